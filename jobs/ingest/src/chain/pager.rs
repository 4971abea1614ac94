//! The adaptive `eth_getLogs` pager (onchain.md §0): a window that starts at `log_window` blocks,
//! halves on "range too large" or "too many results" answers (or takes the range the provider
//! suggests), and doubles after sparse pages up to `max_log_window`. Logs marked `removed` are
//! dropped: a reorged log never reaches the lake.

use std::sync::atomic::{AtomicU64, Ordering};

use alloy::providers::{DynProvider, Provider};
use alloy::rpc::types::{Filter, Log};
use alloy::transports::{RpcError, TransportError};
use anyhow::Context;

/// Fewer logs than this in a page lets the window grow.
pub const SPARSE_PAGE: usize = 2_000;

/// The pager's window, shared by the sources of one run.
#[derive(Debug)]
pub struct LogPager {
    window: AtomicU64,
    max_window: u64,
}

/// What one scan cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageStats {
    /// `eth_getLogs` calls that returned logs.
    pub pages: u64,
    /// Calls refused for their size and retried smaller.
    pub shrinks: u64,
    /// Blocks covered.
    pub blocks: u64,
    /// Logs returned (not removed).
    pub logs: u64,
}

impl PageStats {
    /// Adds another scan's cost.
    pub fn add(&mut self, other: PageStats) {
        self.pages += other.pages;
        self.shrinks += other.shrinks;
        self.blocks += other.blocks;
        self.logs += other.logs;
    }
}

impl LogPager {
    /// A pager starting at `window` blocks, growing to `max_window` at most.
    pub fn new(window: u64, max_window: u64) -> Self {
        Self { window: AtomicU64::new(window.max(1)), max_window: max_window.max(1) }
    }

    /// The current window.
    pub fn window(&self) -> u64 {
        self.window.load(Ordering::Relaxed)
    }

    /// Every log matching `filter` (its address and topics; the block range is set here) in
    /// `[from, to]`, in chain order. `progress` is told each page's last block.
    pub async fn scan(
        &self,
        provider: &DynProvider,
        filter: &Filter,
        from: u64,
        to: u64,
        mut progress: impl FnMut(u64),
    ) -> anyhow::Result<(Vec<Log>, PageStats)> {
        self.scan_pages(provider, filter, from, to, |end, _| progress(end)).await
    }

    /// [`LogPager::scan`], telling `on_page` each page's last block and logs as the page arrives
    /// (so a caller can start on them while the next page is read).
    pub async fn scan_pages(
        &self,
        provider: &DynProvider,
        filter: &Filter,
        from: u64,
        to: u64,
        mut on_page: impl FnMut(u64, &[Log]),
    ) -> anyhow::Result<(Vec<Log>, PageStats)> {
        let mut out = Vec::new();
        let mut stats = PageStats::default();
        let mut start = from;
        while start <= to {
            let window = self.window();
            let end = to.min(start.saturating_add(window - 1));
            let page = filter.clone().from_block(start).to_block(end);
            match provider.get_logs(&page).await {
                Ok(logs) => {
                    let n = logs.len();
                    let first = out.len();
                    out.extend(logs.into_iter().filter(|l| !l.removed));
                    stats.pages += 1;
                    stats.blocks += end - start + 1;
                    if n < SPARSE_PAGE && end - start + 1 == window {
                        self.window.store((window * 2).min(self.max_window), Ordering::Relaxed);
                    }
                    on_page(end, &out[first..]);
                    start = end + 1;
                }
                Err(e) => match too_large(&e) {
                    Some(suggested) => {
                        stats.shrinks += 1;
                        let next = match suggested {
                            Some((lo, hi)) if lo == start && hi >= lo && hi < end => hi - lo + 1,
                            _ => (end - start).div_ceil(2),
                        };
                        if end == start || next == 0 {
                            return Err(e).with_context(|| format!("eth_getLogs refused even one block ({start})"));
                        }
                        self.window.store(next, Ordering::Relaxed);
                    }
                    None => return Err(e).with_context(|| format!("eth_getLogs blocks {start}..={end}")),
                },
            }
        }
        out.sort_by_key(|l| (l.block_number, l.log_index));
        stats.logs = out.len() as u64;
        Ok((out, stats))
    }
}

/// `Some(suggested range)` when the node refused the page for its size or range; the suggestion
/// is the `[0x…, 0x…]` range some providers put in the message or data. A rate limit is never a
/// refusal for size, though its words may look alike (Alchemy's 429 "exceeded its compute units
/// per second capacity", a plain "Too Many Requests"): it is retried, not paged around.
pub(super) fn too_large(error: &TransportError) -> Option<Option<(u64, u64)>> {
    let text = match error {
        RpcError::ErrorResp(payload) if payload.code != 429 => {
            format!("{} {}", payload.message, payload.data.as_ref().map(|d| d.get()).unwrap_or_default())
        }
        RpcError::Transport(alloy::transports::TransportErrorKind::HttpError(e)) if e.status != 429 => e.body.clone(),
        _ => return None,
    };
    let lower = text.to_ascii_lowercase();
    let rate_limit = [
        "rate limit",
        "rate-limit",
        "request rate",
        "too many requests",
        "compute units",
        "capacity",
        "credits",
        "request limit reached",
        "request count",
    ];
    if rate_limit.iter().any(|m| lower.contains(m)) {
        return None;
    }
    let markers = [
        "range",
        "too many",
        "more than",
        "limit exceeded",
        "exceed",
        "response size",
        "too large",
        "results",
        "block range",
    ];
    markers.iter().any(|m| lower.contains(m)).then(|| suggested_range(&lower))
}

/// The first `[0xLO, 0xHI]` in a message.
fn suggested_range(text: &str) -> Option<(u64, u64)> {
    let open = text.find('[')?;
    let close = open + text[open..].find(']')?;
    let mut parts = text[open + 1..close].split(',').map(|p| p.trim().trim_matches('"'));
    let parse = |p: &str| u64::from_str_radix(p.strip_prefix("0x")?, 16).ok();
    Some((parse(parts.next()?)?, parse(parts.next()?)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggested_ranges_are_read_from_provider_messages() {
        let infura = "query returned more than 10000 results. try with this block range [0x10, 0x1f].";
        assert_eq!(suggested_range(infura), Some((16, 31)));
        assert_eq!(suggested_range("this block range should work: [0xa, 0xb]"), Some((10, 11)));
        assert_eq!(suggested_range("block range too large"), None);
    }

    fn rpc_error(code: i64, message: &str) -> TransportError {
        RpcError::ErrorResp(
            serde_json::from_value(serde_json::json!({"code": code, "message": message})).expect("payload"),
        )
    }

    #[test]
    fn size_refusals_are_told_from_rate_limits() {
        let refusals = [
            (
                -32602,
                "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit \
                 on the response size, or you can request any block range with a cap of 10K logs in the response. \
                 Based on your parameters and the response size limit, this block range should work: [0x1, 0x32]",
                Some((1, 50)),
            ),
            (-32005, "query returned more than 10000 results. Try with this block range [0x10, 0x1f].", Some((16, 31))),
            (
                -32600,
                "You can make eth_getLogs requests with up to a 500 block range. Based on your parameters, this block \
                 range should work: [0x1be4213, 0x1be4406]",
                Some((0x1be4213, 0x1be4406)),
            ),
            (-32602, "range 1000000 exceeds limit of 10000", None),
            (-32614, "eth_getLogs is limited to a 10,000 range", None),
        ];
        for (code, message, suggested) in refusals {
            assert_eq!(too_large(&rpc_error(code, message)), Some(suggested), "{message}");
        }
        let rate_limits = [
            (
                429,
                "Your app has exceeded its compute units per second capacity. If you have retries enabled, you can \
                 safely ignore this message.",
            ),
            (-32005, "daily request count exceeded, request rate limited"),
            (-32005, "project ID request rate exceeded"),
            (-32007, "100/second request limit reached - reduce calls per second or upgrade your account"),
            (-32012, "credits limited to 6000/sec"),
        ];
        for (code, message) in rate_limits {
            assert_eq!(too_large(&rpc_error(code, message)), None, "{message}");
        }
        let http = alloy::transports::TransportErrorKind::http_error;
        assert_eq!(too_large(&http(429, "Too Many Requests".into())), None);
        assert_eq!(too_large(&http(413, "block range too large".into())), Some(None));
    }
}
