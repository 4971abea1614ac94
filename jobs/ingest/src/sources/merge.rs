//! Writing a run's rows into day partitions so that re-running any range gives the same lake:
//! time-ranged replacement (the rows of a re-read range replace the rows the touched days held in
//! that range) and keyed upserts (one row per key, e.g. a wallet's first funding).

use std::collections::BTreeMap;

use agentrep_lake::{Lake, LakeError, Row, Timestamp};
use chrono::NaiveDate;

use super::day_of;

/// Replaces the rows of `[from, to]` (inclusive) in every day partition the range touches with
/// `rows` (which must all lie in the range), keeps every other row, sorts each day by `order`,
/// and writes each touched day (empty days too: a daily source writes a partition every day it
/// covered). Returns the days written and the rows they hold.
pub fn replace_range<R: Row>(
    lake: &Lake,
    rows: Vec<R>,
    from: Timestamp,
    to: Timestamp,
    time_of: impl Fn(&R) -> Timestamp,
    order: impl Fn(&R, &R) -> std::cmp::Ordering,
) -> Result<(Vec<NaiveDate>, u64), LakeError> {
    replace_owned_range(lake, rows, from, to, time_of, order, |_| true)
}

/// [`replace_range`] for a dataset several jobs write: only the rows `owns` accepts are replaced.
pub fn replace_owned_range<R: Row>(
    lake: &Lake,
    rows: Vec<R>,
    from: Timestamp,
    to: Timestamp,
    time_of: impl Fn(&R) -> Timestamp,
    order: impl Fn(&R, &R) -> std::cmp::Ordering,
    owns: impl Fn(&R) -> bool,
) -> Result<(Vec<NaiveDate>, u64), LakeError> {
    let mut by_day: BTreeMap<NaiveDate, Vec<R>> = BTreeMap::new();
    let (first, last) = (day_of(from.secs()), day_of(to.secs()));
    let mut day = first;
    while day <= last {
        by_day.insert(day, Vec::new());
        day = day.succ_opt().expect("day in range");
    }
    for row in rows {
        let t = time_of(&row);
        assert!(t >= from && t <= to, "row outside its range");
        by_day.entry(day_of(t.secs())).or_default().push(row);
    }
    let mut written = 0;
    let days: Vec<NaiveDate> = by_day.keys().copied().collect();
    for (day, mut fresh) in by_day {
        let kept = lake.read_partition::<R>(day)?.into_iter().filter(|r| {
            let t = time_of(r);
            t < from || t > to || !owns(r)
        });
        fresh.extend(kept);
        fresh.sort_by(&order);
        written += fresh.len() as u64;
        lake.write_partition(day, &fresh)?;
    }
    Ok((days, written))
}

/// Updates rows in place wherever they are: `update` is offered every row of every partition of
/// the dataset and returns whether it changed it; changed days are rewritten.
pub fn update_rows<R: Row>(lake: &Lake, mut update: impl FnMut(&mut R) -> bool) -> Result<Vec<NaiveDate>, LakeError> {
    let mut changed_days = Vec::new();
    for part in lake.partitions(R::DATASET)? {
        let mut rows = lake.read_partition::<R>(part.date)?;
        let mut changed = false;
        for row in &mut rows {
            changed |= update(row);
        }
        if changed {
            lake.write_partition(part.date, &rows)?;
            changed_days.push(part.date);
        }
    }
    Ok(changed_days)
}

/// Every row of a dataset (all partitions).
pub fn read_all<R: Row>(lake: &Lake) -> Result<Vec<R>, LakeError> {
    let mut out = Vec::new();
    for part in lake.partitions(R::DATASET)? {
        out.extend(lake.read_partition::<R>(part.date)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use agentrep_lake::datasets::ProofRow;

    use super::*;

    fn proof(address: &str, secs: i64) -> ProofRow {
        ProofRow {
            address: address.into(),
            proof_type: "ens".into(),
            source: "t".into(),
            verified_at: Timestamp::from_secs(secs),
        }
    }

    #[test]
    fn re_reading_a_range_replaces_exactly_that_range() {
        let dir = tempfile::tempdir().unwrap();
        let lake = Lake::new(dir.path());
        let day = 86_400 * 20_000;
        let order = |a: &ProofRow, b: &ProofRow| (a.verified_at, &a.address).cmp(&(b.verified_at, &b.address));
        let t = |r: &ProofRow| r.verified_at;
        let first = vec![proof("0x1", day + 10), proof("0x2", day + 20), proof("0x3", day + 86_400 + 5)];
        replace_range(&lake, first, Timestamp::from_secs(day), Timestamp::from_secs(day + 86_400 + 10), t, order)
            .unwrap();
        // A re-read of [day+15, day+86_400+10] finds 0x2 again and a new 0x4, but not 0x3 (reorged).
        let again = vec![proof("0x2", day + 20), proof("0x4", day + 30)];
        let (days, rows) = replace_range(
            &lake,
            again,
            Timestamp::from_secs(day + 15),
            Timestamp::from_secs(day + 86_400 + 10),
            t,
            order,
        )
        .unwrap();
        assert_eq!(days.len(), 2);
        assert_eq!(rows, 3);
        let d0: Vec<_> = lake.read_partition::<ProofRow>(days[0]).unwrap().into_iter().map(|r| r.address).collect();
        assert_eq!(d0, ["0x1", "0x2", "0x4"]);
        assert!(lake.read_partition::<ProofRow>(days[1]).unwrap().is_empty(), "the removed row left the lake");
        assert_eq!(lake.partitions(agentrep_lake::Dataset::IdentityProofs).unwrap().len(), 2);
    }
}
