//! Which blocks a chain source reads in one run, cut at whole seconds so that "the rows whose
//! block time is in [from, to]" and "the rows of blocks [start, end]" are the same set: a re-read
//! range then replaces exactly what it re-read (several blocks share a second on Base).

use chrono::{Days, NaiveDate};
use serde::{Deserialize, Serialize};

use super::{Bounds, ts};
use crate::chain::Chain;

/// A chain source's checkpoint: the first block it has not read, and that block's predecessor's
/// time (what it has covered).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockCursor {
    /// First block not yet read; `None` before the first run.
    pub next_block: Option<u64>,
    /// The last second (Unix, inclusive) through which every block has been read: one before
    /// the time of the first block not read.
    pub covered_until: Option<i64>,
}

impl BlockCursor {
    /// Coverage for `/status` and the scheduler.
    pub fn coverage(&self) -> (Option<chrono::DateTime<chrono::Utc>>, Option<u64>) {
        (
            self.covered_until.and_then(|t| chrono::DateTime::from_timestamp(t, 0)),
            self.next_block.map(|b| b.saturating_sub(1)),
        )
    }
}

/// The blocks of one run and their times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockRange {
    /// First block (the first of its second).
    pub start: u64,
    /// Last block (the last of its second).
    pub end: u64,
    /// Time of `start`, Unix seconds.
    pub from_time: i64,
    /// Time of `end`, Unix seconds.
    pub to_time: i64,
    /// Every block up to this second (inclusive) is in the range: one before the time of the
    /// block after `end`, which is in a later second (or `to_time` when no later block is known).
    pub covered_until: i64,
}

impl BlockRange {
    /// The cursor after reading this range.
    pub fn cursor(&self) -> BlockCursor {
        BlockCursor { next_block: Some(self.end + 1), covered_until: Some(self.covered_until) }
    }

    /// The range's times as lake timestamps (inclusive, whole seconds).
    pub fn times(&self) -> (agentrep_lake::Timestamp, agentrep_lake::Timestamp) {
        (ts(self.from_time), agentrep_lake::Timestamp(ts(self.to_time + 1).0 - 1))
    }
}

/// Blocks sharing one second at most (Base after Denim: 5; margin for faster chains).
pub(crate) const MAX_BLOCKS_PER_SECOND: u64 = 64;

/// Unix time of a day's 00:00:00 UTC.
pub(crate) fn midnight(day: NaiveDate) -> i64 {
    day.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp()
}

/// The range to read now: from the cursor (less the reorg depth) or the start block, to the safe
/// head (or the bounds), cut at whole seconds. `None` when there is nothing new.
pub async fn plan(chain: &Chain, cursor: &BlockCursor, bounds: &Bounds) -> anyhow::Result<Option<BlockRange>> {
    let head = chain.safe_head().await?;
    let config = chain.config();
    let mut start = match cursor.next_block {
        Some(next) => next.saturating_sub(config.reorg_depth),
        None => bounds.from_block.unwrap_or(config.start_block),
    };
    let mut end = head;
    if let Some(until) = bounds.until_block {
        end = end.min(until);
    }
    if let Some(day) = bounds.until_day {
        let next_midnight = midnight(day.checked_add_days(Days::new(1)).expect("day in range"));
        let first_after = chain.first_block_at_or_after(next_midnight, start.min(end), end).await?;
        end = end.min(first_after.saturating_sub(1));
    }
    if start > end {
        return Ok(None);
    }
    // Start at the first block of its second.
    let start_time = chain.block_time(start).await?;
    start = chain.first_block_at_or_after(start_time, start.saturating_sub(MAX_BLOCKS_PER_SECOND), start).await?;
    // End at the last block of its second: when the next block may share the second (it is not
    // yet safe to read, or it does), stop before the second starts.
    let end_time = chain.block_time(end).await?;
    let next_time = if end < head { Some(chain.block_time(end + 1).await?) } else { None };
    let covered_until = match next_time {
        Some(next) if next > end_time => next - 1,
        _ => {
            let first_of_second =
                chain.first_block_at_or_after(end_time, end.saturating_sub(MAX_BLOCKS_PER_SECOND), end).await?;
            if first_of_second <= start {
                return Ok(None);
            }
            end = first_of_second - 1;
            end_time - 1
        }
    };
    if start > end {
        return Ok(None);
    }
    Ok(Some(BlockRange {
        start,
        end,
        from_time: chain.block_time(start).await?,
        to_time: chain.block_time(end).await?,
        covered_until,
    }))
}
