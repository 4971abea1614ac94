//! `agentrep import-real`: a lake from public records of real x402 payments, written through the
//! same lake writer as the chain jobs, so the rebuild scores real sellers exactly as it scores an
//! ingested lake. Nothing here names a seller: every fact comes from the files given.
//!
//! The inputs are public files, used as published (credit them wherever their figures appear):
//! - payments: SQLite databases with a table `settlements(counterparty, payer, amount, tx_hash,
//!   ts)` (amount in decimal USDC, ts ISO-8601), plain or gzipped; e.g. the Blackwall seed database
//!   (github `bluetieroperations-create/agent-egress-proxy`, `data/reputation_seed.db.gz`, MIT);
//! - listings: a directory JSON list of payees with `payee`, `resources[]`, `networks[]` and
//!   `min_price` (decimal USDC); e.g. that repository's `data/directory.json`;
//! - facilitators: x402scan's facilitator files (github `Merit-Systems/x402scan`,
//!   `packages/external/facilitators/src/facilitators/*.ts`, MIT), whose `[Network.BASE]`
//!   addresses become facilitator labels, or a CSV `address,operator`;
//! - optionally, a ranked-domain list as CSV `rank,domain` (Tranco's format).
//!
//! Payment records like these come from a block explorer's token transfers: they carry no
//! transaction sender, so whether a facilitator settled each one is unknown. The import takes the
//! friendliest reading, and says so in `realdata.json` beside the lake: every transfer is an
//! EIP-3009 settlement by a known facilitator, every listed endpoint answered a matching 402 twice
//! a day for the last week, every source is fresh, and nobody's funding is known (each payer is its
//! own entity). A seller judged on this reading is judged on its demand, its listings and its
//! standing, which is what the real data holds.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use agentrep_lake::datasets::{
    DomainRankRow, EntityLabelRow, FeedbackRow, FundingRow, ListEntryRow, ListingRow, ProbeRow, ProofRow, ReceiptRow,
    RegistrationRow, SettlementRow,
};
use agentrep_lake::{Lake, Timestamp};
use anyhow::{Context, bail};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

/// The sidecar the import writes in the lake root.
pub const REALDATA_FILE: &str = "realdata.json";
const DAY: i64 = 86_400;
/// The probe latency the friendly reading assumes, milliseconds.
const ASSUMED_LATENCY_MS: u32 = 300;

/// What to import.
#[derive(Debug, Clone)]
pub struct ImportArgs {
    /// Payment databases (SQLite, plain or gzipped).
    pub payments: Vec<PathBuf>,
    /// Directory JSON of the sellers' listings.
    pub directory: PathBuf,
    /// x402scan facilitator files (a folder of `*.ts`) or a CSV `address,operator`.
    pub facilitators: PathBuf,
    /// A ranked-domain list, CSV `rank,domain`.
    pub domain_ranks: Option<PathBuf>,
    /// The list's name and id as recorded (`tranco 2026-09-01`).
    pub domain_list: String,
    /// Where each input came from, for the sidecar's credits (`repo@commit:path (licence)`).
    pub credits: Vec<String>,
    /// The day to score (default: the newest payment's day).
    pub day: Option<NaiveDate>,
}

/// What the import wrote and assumed (`realdata.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RealDataSidecar {
    /// `agentrep-realdata-v1`.
    pub version: String,
    /// The day the lake is scored on.
    pub day: String,
    /// Distinct payments imported.
    pub payments: u64,
    /// Listed sellers (payees of the directory).
    pub listed_sellers: u32,
    /// Payment recipients that are not listed (imported, not scored).
    pub unlisted_recipients: u32,
    /// Facilitator addresses labelled.
    pub facilitators: u32,
    /// Ranked domains imported.
    pub ranked_domains: u32,
    /// Credits of the inputs.
    pub credits: Vec<String>,
    /// The assumptions of the friendly reading.
    pub assumptions: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct DirectoryEntry {
    payee: String,
    #[serde(default)]
    resources: Vec<String>,
    #[serde(default)]
    networks: Vec<String>,
    #[serde(default)]
    min_price: Option<String>,
}

/// One payment as the databases hold it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Payment {
    t: i64,
    tx_hash: String,
    pay_to: String,
    payer: String,
    value: u64,
}

/// Decimal USDC text to micro-USDC, exactly (`"0.01"` → 10 000); `None` for anything else.
pub fn micro_usdc(text: &str) -> Option<u64> {
    let text = text.trim();
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty() && frac.is_empty() || frac.len() > 6 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let frac: u64 = if frac.is_empty() { 0 } else { format!("{frac:0<6}").parse().ok()? };
    whole.checked_mul(1_000_000)?.checked_add(frac)
}

fn read_payments(path: &Path) -> anyhow::Result<Vec<Payment>> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let plain = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_end(&mut out).context("gunzipping")?;
        out
    } else {
        bytes
    };
    let tmp = tempfile::NamedTempFile::new().context("a temporary file")?;
    std::fs::write(tmp.path(), &plain).context("writing the database")?;
    let db = rusqlite::Connection::open_with_flags(tmp.path(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("opening {} as SQLite", path.display()))?;
    let mut stmt =
        db.prepare("SELECT counterparty, payer, amount, tx_hash, ts FROM settlements").with_context(|| {
            format!("{}: no settlements(counterparty, payer, amount, tx_hash, ts) table", path.display())
        })?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>("counterparty")?,
            r.get::<_, Option<String>>("payer")?,
            r.get::<_, String>("amount")?,
            r.get::<_, Option<String>>("tx_hash")?,
            r.get::<_, Option<String>>("ts")?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (pay_to, payer, amount, tx_hash, ts) = row?;
        let (Some(payer), Some(tx_hash), Some(ts)) = (payer, tx_hash, ts) else { continue };
        let Some(value) = micro_usdc(&amount) else { continue };
        let Ok(t) = DateTime::parse_from_rfc3339(ts.trim()) else { continue };
        out.push(Payment {
            t: t.timestamp(),
            tx_hash: tx_hash.to_ascii_lowercase(),
            pay_to: pay_to.to_ascii_lowercase(),
            payer: payer.to_ascii_lowercase(),
            value,
        });
    }
    Ok(out)
}

/// `(address, operator)` of every Base facilitator in x402scan's files, or in a CSV.
pub fn read_facilitators(path: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let mut out = BTreeMap::new();
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ts"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file)?;
            let operator = quoted_after(&text, "name:")
                .unwrap_or_else(|| file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
            for address in base_addresses(&text) {
                out.entry(address).or_insert_with(|| operator.clone());
            }
        }
    } else {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        for line in text.lines().skip(1) {
            let mut cells = line.split(',');
            if let (Some(a), Some(op)) = (cells.next(), cells.next())
                && agentrep_model::Address::parse(a.trim()).is_ok()
            {
                out.entry(a.trim().to_ascii_lowercase()).or_insert_with(|| op.trim().to_owned());
            }
        }
    }
    Ok(out.into_iter().collect())
}

/// The first quoted string after `key` (a TypeScript object literal's value).
fn quoted_after(text: &str, key: &str) -> Option<String> {
    let rest = &text[text.find(key)? + key.len()..];
    let quote = rest.find(['\'', '"'])?;
    let q = rest.as_bytes()[quote] as char;
    let value = &rest[quote + 1..];
    Some(value[..value.find(q)?].to_owned())
}

/// The `0x…` addresses inside each `[Network.BASE]: [ … ]` array of a facilitator file.
fn base_addresses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("[Network.BASE]") {
        rest = &rest[i + "[Network.BASE]".len()..];
        let Some(open) = rest.find('[') else { break };
        let mut depth = 0usize;
        let mut end = rest.len();
        for (j, c) in rest[open..].char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + j;
                        break;
                    }
                }
                _ => {}
            }
        }
        let block = &rest[open..end];
        let mut b = block;
        while let Some(k) = b.find("0x") {
            let candidate: String = b[k..].chars().take(42).collect();
            if agentrep_model::Address::parse(&candidate).is_ok() {
                out.push(candidate.to_ascii_lowercase());
            }
            b = &b[k + 2..];
        }
        rest = &rest[end..];
    }
    out
}

fn ts(secs: i64) -> Timestamp {
    Timestamp::from_secs(secs)
}

fn day_of(secs: i64) -> NaiveDate {
    DateTime::<Utc>::from_timestamp(secs, 0).expect("in range").date_naive()
}

fn midnight(day: NaiveDate) -> i64 {
    day.and_hms_opt(0, 0, 0).expect("midnight").and_utc().timestamp()
}

/// Imports the real records into `lake` (which must be empty or absent).
///
/// # Errors
/// When an input cannot be read or holds no payment, or the lake cannot be written.
pub fn import(lake: &Lake, args: &ImportArgs) -> anyhow::Result<RealDataSidecar> {
    if lake.root().exists() && std::fs::read_dir(lake.root())?.next().is_some() {
        bail!("{} is not empty: import into a new lake", lake.root().display());
    }
    // Payments: the union of every database, one row per (transaction, payer, recipient).
    let mut payments: BTreeMap<(String, String, String), Payment> = BTreeMap::new();
    for path in &args.payments {
        for p in read_payments(path)? {
            let key = (p.tx_hash.clone(), p.payer.clone(), p.pay_to.clone());
            payments
                .entry(key)
                .and_modify(|e| {
                    if e.value != p.value && e.t == p.t {
                        e.value = e.value.max(p.value);
                    }
                })
                .or_insert(p);
        }
    }
    let mut payments: Vec<Payment> = payments.into_values().collect();
    payments.sort();
    let Some(last) = payments.last() else { bail!("no payment in {:?}", args.payments) };
    let day = args.day.unwrap_or_else(|| day_of(last.t));
    let day_end = midnight(day) + DAY;
    payments.retain(|p| p.t < day_end);

    let directory: Vec<DirectoryEntry> = serde_json::from_slice(
        &std::fs::read(&args.directory).with_context(|| format!("reading {}", args.directory.display()))?,
    )
    .with_context(|| format!("{}: not a directory list", args.directory.display()))?;
    let facilitators = read_facilitators(&args.facilitators)?;
    let Some((facilitator, _)) = facilitators.first().cloned() else {
        bail!("no Base facilitator in {}", args.facilitators.display())
    };

    let first_paid: BTreeMap<&str, i64> = payments.iter().fold(BTreeMap::new(), |mut m, p| {
        m.entry(p.pay_to.as_str()).or_insert(p.t);
        m
    });
    // Listings: every resource of every payee, current on the day; first seen when its first
    // payment was (or 30 days before the day without one).
    let usdc = agentrep_model::chain::USDC_BASE.to_ascii_lowercase();
    let mut listings = Vec::new();
    let mut listed: BTreeSet<String> = BTreeSet::new();
    for entry in &directory {
        let payee = entry.payee.to_ascii_lowercase();
        if agentrep_model::Address::parse(&payee).is_err()
            || !(entry.networks.is_empty() || entry.networks.iter().any(|n| n == "eip155:8453" || n == "base"))
        {
            continue;
        }
        let price = entry.min_price.as_deref().and_then(micro_usdc).unwrap_or(1);
        let first = first_paid.get(payee.as_str()).copied().unwrap_or(midnight(day) - 30 * DAY).min(day_end - 1);
        for resource in entry.resources.iter().filter(|r| r.starts_with("http")) {
            listed.insert(payee.clone());
            listings.push(ListingRow {
                resource: resource.clone(),
                pay_to: payee.clone(),
                network: agentrep_model::chain::BASE_CAIP2.to_owned(),
                asset: usdc.clone(),
                price_atomic: price.max(1),
                description: None,
                tags: Vec::new(),
                ecosystem: "bazaar".to_owned(),
                first_seen: ts(first),
                last_seen: ts(midnight(day) + 3_600),
            });
        }
    }
    lake.write_partition(day, &listings)?;

    // Settlements, by day, with an empty partition for every day since the first payment.
    let mut by_day: BTreeMap<NaiveDate, Vec<SettlementRow>> = BTreeMap::new();
    let first_day = day_of(payments[0].t);
    let mut d = first_day;
    while d <= day {
        by_day.insert(d, Vec::new());
        d = d.succ_opt().expect("in range");
    }
    let mut per_tx: BTreeMap<String, u32> = BTreeMap::new();
    for p in &payments {
        let index = per_tx.entry(p.tx_hash.clone()).or_default();
        by_day.entry(day_of(p.t)).or_default().push(SettlementRow {
            tx_hash: p.tx_hash.clone(),
            log_index: *index,
            block_number: 0,
            block_time: ts(p.t),
            payer: p.payer.clone(),
            pay_to: p.pay_to.clone(),
            value: p.value,
            asset: usdc.clone(),
            facilitator: Some(facilitator.clone()),
            eip3009: true,
            network: agentrep_model::chain::BASE_CAIP2.to_owned(),
            form: Some(agentrep_lake::SettlementForm::Eip3009),
            channel: None,
            builder_app: None,
            builder_wallet: None,
            builder_services: None,
        });
        *index += 1;
    }
    for (date, rows) in &by_day {
        lake.write_partition(*date, rows)?;
    }

    // Probes: every current endpoint answered a matching 402 twice a day for the last week.
    for back in 0..7 {
        let date = day - chrono::Duration::days(back);
        let rows: Vec<ProbeRow> = listings
            .iter()
            .flat_map(|l| [3, 15].map(|h| (l, midnight(date) + h * 3_600)))
            .map(|(l, at)| ProbeRow {
                resource: l.resource.clone(),
                probed_at: ts(at),
                status: Some(402),
                ok: true,
                latency_ms: Some(ASSUMED_LATENCY_MS),
                error: None,
                offer_version: Some(2),
                offer_matches: Some(true),
                offer_pay_tos: vec![l.pay_to.to_ascii_lowercase()],
            })
            .collect();
        lake.write_partition(date, &rows)?;
    }

    // Facilitators as labels, known since before the first payment.
    let labelled_at = midnight(first_day) - DAY;
    let labels: Vec<EntityLabelRow> = facilitators
        .iter()
        .map(|(address, operator)| EntityLabelRow {
            address: address.clone(),
            entity: "facilitator".to_owned(),
            name: operator.clone(),
            source: args.facilitators.display().to_string(),
            added_at: ts(labelled_at),
        })
        .collect();
    lake.write_partition(day, &labels)?;

    // The ranked domains the listings use.
    let mut ranked_domains = 0;
    if let Some(path) = &args.domain_ranks {
        let used: BTreeSet<String> =
            listings.iter().filter_map(|l| agentrep_lake::domain::registrable(&l.resource)).collect();
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut rows = Vec::new();
        for line in text.lines() {
            let Some((rank, domain)) = line.split_once(',') else { continue };
            let (Ok(rank), domain) = (rank.trim().parse::<u32>(), domain.trim().to_ascii_lowercase()) else { continue };
            if used.contains(&domain) {
                rows.push(DomainRankRow {
                    domain,
                    rank,
                    list: args.domain_list.split(' ').next().unwrap_or("ranked").to_owned(),
                    list_id: args.domain_list.split_once(' ').map_or("", |(_, id)| id).to_owned(),
                    source: path.display().to_string(),
                    fetched_at: ts(midnight(day) + 3_600),
                });
            }
        }
        rows.sort_by(|a, b| a.domain.cmp(&b.domain).then(a.rank.cmp(&b.rank)));
        rows.dedup_by(|a, b| a.domain == b.domain);
        ranked_domains = rows.len() as u32;
        lake.write_partition(day, &rows)?;
    }

    // Every other seller source is fresh and empty: nothing known.
    lake.write_partition::<FundingRow>(day, &[])?;
    lake.write_partition::<RegistrationRow>(day, &[])?;
    lake.write_partition::<FeedbackRow>(day, &[])?;
    lake.write_partition::<ProofRow>(day, &[])?;
    lake.write_partition::<ListEntryRow>(day, &[])?;
    lake.write_partition::<ReceiptRow>(day, &[])?;

    let recipients: BTreeSet<&str> = payments.iter().map(|p| p.pay_to.as_str()).collect();
    let sidecar = RealDataSidecar {
        version: "agentrep-realdata-v1".to_owned(),
        day: day.to_string(),
        payments: payments.len() as u64,
        listed_sellers: listed.len() as u32,
        unlisted_recipients: recipients.iter().filter(|r| !listed.contains(**r)).count() as u32,
        facilitators: facilitators.len() as u32,
        ranked_domains,
        credits: args.credits.clone(),
        assumptions: vec![
            "every transfer is an EIP-3009 settlement by a known facilitator (the records carry no sender)".to_owned(),
            "every listed endpoint answered a 402 whose offer matched its listing, twice a day for the last 7 days"
                .to_owned(),
            "every source is fresh; nobody's funding, identity, reviews or receipts are known (each payer is its own entity)"
                .to_owned(),
            "a listing's price is its payee's lowest advertised price".to_owned(),
        ],
    };
    lake.write_sidecar(REALDATA_FILE, &serde_json::to_vec_pretty(&sidecar)?)?;
    Ok(sidecar)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_usdc_is_read_exactly() {
        assert_eq!(micro_usdc("0.01"), Some(10_000));
        assert_eq!(micro_usdc("1"), Some(1_000_000));
        assert_eq!(micro_usdc("18289.536825"), Some(18_289_536_825));
        assert_eq!(micro_usdc(".5"), Some(500_000));
        assert_eq!(micro_usdc("0.0000001"), None);
        assert_eq!(micro_usdc("1e-6"), None);
        assert_eq!(micro_usdc(""), None);
    }

    #[test]
    fn base_facilitators_are_read_from_x402scan_files() {
        let text = "export const x = { id: 'x', metadata: { name: 'Example Pay', image: 'i' },\n\
            addresses: { [Network.BASE]: [ { address: '0xDbdf3d8ed80f84c35d01c6c9f9271761bad90ba6', tokens: [USDC] },\n\
            { address: '0x9aae2b0d1b9dc55ac9bab9556f9a26cb64995fb9', tokens: [USDC] } ],\n\
            [Network.SOLANA]: [ { address: 'So1ana' } ] } };";
        assert_eq!(quoted_after(text, "name:").as_deref(), Some("Example Pay"));
        assert_eq!(
            base_addresses(text),
            vec!["0xdbdf3d8ed80f84c35d01c6c9f9271761bad90ba6", "0x9aae2b0d1b9dc55ac9bab9556f9a26cb64995fb9"]
        );
    }
}
