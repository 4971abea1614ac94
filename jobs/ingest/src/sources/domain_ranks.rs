//! The ranked-domain list: a public ranking of web domains (Tranco's newest list by default, CSV
//! `rank,domain`, its id read from `latest_id_url`) fetched every `[schedule.every_secs]
//! domain_ranks`, of which the rows for the registrable domains the newest listings
//! use become the day's `domain_ranks` partition. A rank is a domain's standing; whether a seller
//! controls that domain is the probes' to show (its offers served from there must name it).

use std::collections::BTreeSet;
use std::io::Read;

use agentrep_lake::Dataset;
use agentrep_lake::datasets::{DomainRankRow, ListingRow};
use agentrep_lake::domain::registrable;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{RunContext, RunReport, Source, SourceName};
use crate::web::get_trusted;

/// The ranked-domain job's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DomainRanksCheckpoint {
    /// Last successful fetch.
    pub last_fetch: Option<DateTime<Utc>>,
}

/// The ranked-domain job.
#[derive(Debug)]
pub struct DomainRanks;

/// The most a gzipped list may inflate to: a million ranked domains take about 22 MiB.
const MAX_LIST_BYTES: u64 = 256 << 20;

/// `(rank, domain)` pairs of a CSV `rank,domain` (lowercase domains; a header or malformed line is
/// skipped), plain or gzipped.
///
/// # Errors
/// When the body is a zip archive (not read: use the list's plain CSV download) or not gzip/UTF-8.
pub fn parse_list(body: &[u8]) -> anyhow::Result<Vec<(u32, String)>> {
    if body.starts_with(b"PK") {
        anyhow::bail!("the ranked-domain list is a zip archive; configure its plain CSV download instead");
    }
    let text = if body.starts_with(&[0x1f, 0x8b]) {
        // Bounded: a small gzip can inflate a thousandfold, and the list is read whole.
        let mut out = String::new();
        flate2::read::GzDecoder::new(body).take(MAX_LIST_BYTES + 1).read_to_string(&mut out)?;
        if out.len() as u64 > MAX_LIST_BYTES {
            anyhow::bail!("the ranked-domain list inflates past {} MiB", MAX_LIST_BYTES >> 20);
        }
        out
    } else {
        String::from_utf8(body.to_vec())?
    };
    Ok(text
        .lines()
        .filter_map(|line| {
            let (rank, domain) = line.split_once(',')?;
            let rank: u32 = rank.trim().parse().ok()?;
            let domain = domain.trim().trim_end_matches('.').to_ascii_lowercase();
            (rank > 0 && !domain.is_empty()).then_some((rank, domain))
        })
        .collect())
}

/// The id of the list to fetch: the configured one, else the newest the publisher names (read from
/// `latest_id_url`), else the fetch day when the URL names no id.
async fn list_id(ctx: &RunContext<'_>, today: chrono::NaiveDate) -> anyhow::Result<String> {
    let cfg = &ctx.config.domain_ranks;
    if !cfg.list_id.is_empty() {
        return Ok(cfg.list_id.clone());
    }
    match (&cfg.latest_id_url, cfg.names_list_id()) {
        (Some(latest), true) => {
            let (status, body) = get_trusted(ctx.http, latest.clone(), "the ranked-domain list's id")
                .await
                .map_err(anyhow::Error::msg)?;
            let id = String::from_utf8_lossy(&body).trim().to_owned();
            let well_formed = !id.is_empty() && id.len() <= 32 && id.bytes().all(|b| b.is_ascii_alphanumeric());
            if !(200..300).contains(&status) || !well_formed {
                anyhow::bail!("the ranked-domain list's id: HTTP {status}, not an id");
            }
            Ok(id)
        }
        (None, true) => anyhow::bail!("domain_ranks.url names {{list_id}}: set domain_ranks.list_id or latest_id_url"),
        (_, false) => Ok(today.to_string()),
    }
}

impl Source for DomainRanks {
    const NAME: SourceName = SourceName::DomainRanks;
    type Checkpoint = DomainRanksCheckpoint;

    async fn run(
        ctx: &RunContext<'_>,
        checkpoint: DomainRanksCheckpoint,
    ) -> anyhow::Result<(DomainRanksCheckpoint, RunReport)> {
        let mut report = RunReport::default();
        let cfg = &ctx.config.domain_ranks;
        if !cfg.enabled {
            report
                .notes
                .push("the ranked-domain list is off (domain_ranks.enabled): no seller is proven by its domain".into());
            return Ok((checkpoint, report));
        }
        // A restarted scheduler (or a one-shot `ingest`) does not fetch a list it already holds.
        let every = chrono::Duration::from_std(ctx.config.schedule.every(SourceName::DomainRanks))?;
        if checkpoint.last_fetch.is_some_and(|last| ctx.now - last < every) {
            report.notes.push("the ranked-domain list is recent enough; not fetched again".into());
            return Ok((checkpoint, report));
        }
        let today = ctx.now.date_naive();
        let listings: Vec<ListingRow> = match ctx.lake.partitions_up_to(Dataset::Listings, today)?.last() {
            Some(part) => ctx.lake.read_partition(part.date)?,
            None => Vec::new(),
        };
        let used: BTreeSet<String> = listings.iter().filter_map(|l| registrable(&l.resource)).collect();
        let list_id = list_id(ctx, today).await?;
        let url = cfg.url_for(&list_id)?;
        let (status, body) =
            get_trusted(ctx.http, url.clone(), "the ranked-domain list").await.map_err(anyhow::Error::msg)?;
        if !(200..300).contains(&status) {
            anyhow::bail!("the ranked-domain list answered HTTP {status}");
        }
        let ranks = parse_list(&body)?;
        if ranks.is_empty() {
            anyhow::bail!("the ranked-domain list has no `rank,domain` row (kept the previous one)");
        }
        let mut rows: Vec<DomainRankRow> = ranks
            .into_iter()
            .filter(|(_, d)| used.contains(d))
            .map(|(rank, domain)| DomainRankRow {
                domain,
                rank,
                list: cfg.list.clone(),
                list_id: list_id.clone(),
                source: crate::chain::redact(&url),
                fetched_at: ctx.now_ts(),
            })
            .collect();
        rows.sort_by(|a, b| a.domain.cmp(&b.domain).then(a.rank.cmp(&b.rank)));
        rows.dedup_by(|a, b| a.domain == b.domain);
        report.rows = rows.len() as u64;
        report.notes.push(format!(
            "list {} {list_id}: {} of the listings' {} domains are ranked",
            cfg.list,
            rows.len(),
            used.len()
        ));
        ctx.lake.write_partition(today, &rows)?;
        report.days = vec![today];
        Ok((DomainRanksCheckpoint { last_fetch: Some(ctx.now) }, report))
    }

    fn coverage(checkpoint: &DomainRanksCheckpoint) -> (Option<DateTime<Utc>>, Option<u64>) {
        (checkpoint.last_fetch, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tranco_csv_is_read_plain_or_gzipped_and_a_zip_is_refused() {
        let csv = b"1,google.com\n2,Example.COM.\nrank,domain\n3,\nx,y\n";
        let want = vec![(1, "google.com".to_owned()), (2, "example.com".to_owned())];
        assert_eq!(parse_list(csv).unwrap(), want);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, csv).unwrap();
        assert_eq!(parse_list(&gz.finish().unwrap()).unwrap(), want);
        assert!(parse_list(b"PK\x03\x04...").unwrap_err().to_string().contains("zip"));
    }
}
