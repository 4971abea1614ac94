//! What a slow or idle client may hold of the server: how long it may take to send a request's
//! headers (also how long an HTTP/1 connection may sit idle between requests, since hyper runs the
//! same timer while it waits for the next head), how long a connection of any protocol may go
//! without a byte moving ([`Stamped`]: hyper never times out an idle HTTP/2 connection), how long
//! one request may take to be answered, and how many connections may be open at once. Past the cap the accept loop waits for a
//! connection to close (the kernel's backlog holds the newcomers); when accepting fails (out of
//! descriptors) it backs off instead of retrying at once. RELIABILITY.md gives the limits and
//! what `tests/process` measured with them.

use std::time::Duration;

use crate::env;

/// The server's connection limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Longest wait for a request's whole header block, and for the next request on an idle
    /// HTTP/1 connection.
    pub header_read_timeout: Duration,
    /// Longest time no byte may move on a connection before it is closed (any protocol).
    pub idle_timeout: Duration,
    /// Longest time one request may take to be answered; past it the client gets 503
    /// `request_timeout` (a paid call is settled only once its answer is produced, so nothing is
    /// charged for it).
    pub request_timeout: Duration,
    /// Most connections open at once.
    pub max_connections: usize,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(75),
            request_timeout: Duration::from_secs(60),
            max_connections: 1_024,
        }
    }
}

/// The longest back-off after a failed accept.
pub const MAX_ACCEPT_BACKOFF: Duration = Duration::from_secs(1);
/// The first back-off after a failed accept; it doubles up to [`MAX_ACCEPT_BACKOFF`].
pub const FIRST_ACCEPT_BACKOFF: Duration = Duration::from_millis(5);

impl ConnectionLimits {
    /// The limits from the environment, the defaults for what is unset.
    pub(crate) fn read(r: &mut crate::config::Reader) -> Self {
        let defaults = Self::default();
        Self {
            header_read_timeout: r
                .positive(&env::HEADER_READ_TIMEOUT_SECS)
                .map_or(defaults.header_read_timeout, Duration::from_secs),
            idle_timeout: r.positive(&env::IDLE_TIMEOUT_SECS).map_or(defaults.idle_timeout, Duration::from_secs),
            request_timeout: r
                .positive(&env::REQUEST_TIMEOUT_SECS)
                .map_or(defaults.request_timeout, Duration::from_secs),
            max_connections: r
                .positive(&env::MAX_CONNECTIONS)
                .map_or(defaults.max_connections, |n| usize::try_from(n).unwrap_or(usize::MAX)),
        }
    }
}

/// A connection's stream that stamps when a byte last moved either way, so the server can close a
/// connection that went quiet ([`ConnectionLimits::idle_timeout`]).
#[derive(Debug)]
pub struct Stamped<T> {
    inner: T,
    last: std::sync::Arc<std::sync::atomic::AtomicU64>,
    epoch: std::time::Instant,
}

/// When a [`Stamped`] stream last moved a byte.
#[derive(Debug, Clone)]
pub struct LastActivity {
    last: std::sync::Arc<std::sync::atomic::AtomicU64>,
    epoch: std::time::Instant,
}

impl LastActivity {
    /// How long ago a byte last moved.
    pub fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last.load(std::sync::atomic::Ordering::Relaxed));
        self.epoch.elapsed().saturating_sub(last)
    }
}

impl<T> Stamped<T> {
    /// `inner`, stamped from now on, and the handle that reads the stamp.
    pub fn new(inner: T) -> (Self, LastActivity) {
        let last = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let epoch = std::time::Instant::now();
        (Self { inner, last: last.clone(), epoch }, LastActivity { last, epoch })
    }

    fn stamp(&self) {
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(now, std::sync::atomic::Ordering::Relaxed);
    }
}

impl<T: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Stamped<T> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, std::task::Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.stamp();
        }
        polled
    }
}

impl<T: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Stamped<T> {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        let polled = std::pin::Pin::new(&mut self.inner).poll_write(cx, buf);
        if matches!(polled, std::task::Poll::Ready(Ok(n)) if n > 0) {
            self.stamp();
        }
        polled
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The back-off after `failures` accept failures in a row.
pub fn accept_backoff(failures: u32) -> Duration {
    FIRST_ACCEPT_BACKOFF.saturating_mul(1 << failures.min(16)).min(MAX_ACCEPT_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_accept_backoff_doubles_up_to_its_cap() {
        assert_eq!(accept_backoff(0), Duration::from_millis(5));
        assert_eq!(accept_backoff(1), Duration::from_millis(10));
        assert_eq!(accept_backoff(3), Duration::from_millis(40));
        assert_eq!(accept_backoff(40), MAX_ACCEPT_BACKOFF);
    }
}
