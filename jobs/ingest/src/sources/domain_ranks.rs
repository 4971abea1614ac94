//! The ranked-domain list: a public ranking of web domains (Tranco by default, CSV `rank,domain`)
//! fetched every `refresh_days`, of which the rows for the registrable domains the newest listings
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
use crate::web::MAX_TRUSTED_BODY;

/// The ranked-domain job's checkpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DomainRanksCheckpoint {
    /// Last successful fetch.
    pub last_fetch: Option<DateTime<Utc>>,
}

/// The ranked-domain job.
#[derive(Debug)]
pub struct DomainRanks;

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
        let mut out = String::new();
        flate2::read::GzDecoder::new(body).read_to_string(&mut out)?;
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

impl Source for DomainRanks {
    const NAME: SourceName = SourceName::DomainRanks;
    type Checkpoint = DomainRanksCheckpoint;

    async fn run(
        ctx: &RunContext<'_>,
        checkpoint: DomainRanksCheckpoint,
    ) -> anyhow::Result<(DomainRanksCheckpoint, RunReport)> {
        let mut report = RunReport::default();
        let cfg = &ctx.config.domain_ranks;
        let Some(url) = &cfg.url else {
            report
                .notes
                .push("no ranked-domain list configured (domain_ranks.url): no seller is proven by its domain".into());
            return Ok((checkpoint, report));
        };
        let due = checkpoint
            .last_fetch
            .is_none_or(|last| ctx.now - last >= chrono::Duration::days(i64::from(cfg.refresh_days.max(1))));
        if !due {
            report.notes.push("the ranked-domain list is recent enough; not fetched again".into());
            return Ok((checkpoint, report));
        }
        let today = ctx.now.date_naive();
        let listings: Vec<ListingRow> = match ctx.lake.partitions_up_to(Dataset::Listings, today)?.last() {
            Some(part) => ctx.lake.read_partition(part.date)?,
            None => Vec::new(),
        };
        let used: BTreeSet<String> = listings.iter().filter_map(|l| registrable(&l.resource)).collect();
        let response = ctx.http.get(url.clone()).send().await?.error_for_status()?;
        if response.content_length().is_some_and(|n| n as usize > MAX_TRUSTED_BODY) {
            anyhow::bail!("the ranked-domain list is larger than {MAX_TRUSTED_BODY} bytes");
        }
        let body = response.bytes().await?;
        let ranks = parse_list(&body)?;
        let list_id = if cfg.list_id.is_empty() { today.to_string() } else { cfg.list_id.clone() };
        let mut rows: Vec<DomainRankRow> = ranks
            .into_iter()
            .filter(|(_, d)| used.contains(d))
            .map(|(rank, domain)| DomainRankRow {
                domain,
                rank,
                list: cfg.list.clone(),
                list_id: list_id.clone(),
                source: crate::chain::redact(url),
                fetched_at: ctx.now_ts(),
            })
            .collect();
        rows.sort_by(|a, b| a.domain.cmp(&b.domain).then(a.rank.cmp(&b.rank)));
        rows.dedup_by(|a, b| a.domain == b.domain);
        report.rows = rows.len() as u64;
        report.notes.push(format!("{} of the listings' {} domains are ranked", rows.len(), used.len()));
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
