//! Writes one snapshot folder: every payload file, the CSV and Parquet exports, and last the
//! manifest listing every file with its size and SHA-256.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use agentrep_model::buyers::BuyerTrust;
use agentrep_model::{DeployerRecord, METHODOLOGY_VERSION, SellerRecord, SnapshotInput, decision::Decision};
use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::layout::{self, *};
use crate::payloads::{self, CategoryIndex, PayloadContext, caip2};
use crate::tables::{self, Deployers, SellerRow, Sellers, Tokens};
use crate::wire::*;
use crate::{PublishError, exports};

/// Entries in the static default leaderboard (the route's default limit).
pub const DEFAULT_LEADERBOARD_LIMIT: usize = 100;
/// Movers each way in the static `movers.json` (the route's default limit).
pub const STATIC_MOVERS: usize = 10;

/// Records encoded at once (in parallel) before their lines are written in order: what bounds the
/// memory of a large bundle or index to a slice of it.
const LINES_IN_FLIGHT: usize = 8192;

/// One line per record, in input order, each encoded by `line` into an empty buffer.
fn write_lines<R: Sync>(
    out: &mut Streamed,
    records: &[R],
    line: impl Fn(&R, &mut Vec<u8>) -> Result<(), PublishError> + Sync,
) -> Result<(), PublishError> {
    for slice in records.chunks(LINES_IN_FLIGHT) {
        let lines: Vec<Vec<u8>> = slice
            .par_iter()
            .map(|r| {
                let mut buf = Vec::with_capacity(512);
                line(r, &mut buf)?;
                buf.push(b'\n');
                Ok(buf)
            })
            .collect::<Result<_, PublishError>>()?;
        for l in &lines {
            out.put(l)?;
        }
    }
    Ok(())
}

/// One `<key> <json>` line per record, in input order.
fn write_keyed_lines<R: Sync, T: Serialize>(
    out: &mut Streamed,
    records: &[R],
    key: impl Fn(&R) -> &str + Sync,
    payload: impl Fn(&R) -> T + Sync,
) -> Result<(), PublishError> {
    write_lines(out, records, |r, line| {
        line.extend_from_slice(key(r).as_bytes());
        line.push(b' ');
        serde_json::to_writer(line, &payload(r)).map_err(PublishError::Encode)
    })
}

/// A keyed bundle of one payload per record: `<key> <json>` lines in the records' order.
pub(crate) fn keyed_bundle<R: Sync, T: Serialize>(
    out: &Out<'_>,
    rel: &str,
    records: &[R],
    key: impl Fn(&R) -> &str + Sync,
    payload: impl Fn(&R) -> T + Sync,
) -> Result<ManifestFileV1, PublishError> {
    out.stream(rel, |w| write_keyed_lines(w, records, key, payload))
}

/// One JSON document per line, in input order.
fn json_lines<T: Serialize + Sync>(out: &Out<'_>, rel: &str, rows: &[T]) -> Result<ManifestFileV1, PublishError> {
    out.stream(rel, |w| write_lines(w, rows, |r, line| serde_json::to_writer(line, r).map_err(PublishError::Encode)))
}

/// What a retired snapshot's files hold, by path (their SHA-256, from its manifest): a file the
/// new snapshot would write with the same bytes is left as it is.
#[derive(Debug, Default)]
pub struct RetiredFiles {
    sha256: std::collections::HashMap<String, String>,
}

impl RetiredFiles {
    /// Takes the manifest out of a folder about to be rewritten and keeps what it says the files
    /// hold. The manifest is removed (and the removal made durable) before any file changes, so a
    /// crash mid-rewrite never leaves a manifest that vouches for overwritten files.
    pub fn take(dir: &Path) -> Result<Self, PublishError> {
        let path = dir.join(MANIFEST);
        let manifest: Option<ManifestV1> = match fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).ok(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(PublishError::io(&path)(e)),
        };
        fs::remove_file(&path).map_err(PublishError::io(&path))?;
        fs::File::open(dir).and_then(|d| d.sync_all()).map_err(PublishError::io(dir))?;
        Ok(Self {
            sha256: manifest.map(|m| m.files.into_iter().map(|f| (f.path, f.sha256)).collect()).unwrap_or_default(),
        })
    }

    /// Nothing is known of the folder's files (a folder left by a crash: its manifest, if any, may
    /// not match them).
    pub fn unknown(dir: &Path) -> Result<Self, PublishError> {
        let path = dir.join(MANIFEST);
        match fs::remove_file(&path) {
            Ok(()) => fs::File::open(dir).and_then(|d| d.sync_all()).map_err(PublishError::io(dir))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(PublishError::io(&path)(e)),
        }
        Ok(Self::default())
    }
}

/// The folder a snapshot's files are written into, and what was written.
pub(crate) struct Out<'a> {
    dir: &'a Path,
    retired: &'a RetiredFiles,
    files_written: std::sync::atomic::AtomicU64,
    bytes_written: std::sync::atomic::AtomicU64,
    files_kept: std::sync::atomic::AtomicU64,
}

impl<'a> Out<'a> {
    /// Writes into `dir`, keeping the files `retired` says hold the same bytes.
    pub(crate) fn new(dir: &'a Path, retired: &'a RetiredFiles) -> Self {
        Out {
            dir,
            retired,
            files_written: Default::default(),
            bytes_written: Default::default(),
            files_kept: Default::default(),
        }
    }

    pub(crate) fn write(&self, rel: &str, bytes: &[u8]) -> Result<ManifestFileV1, PublishError> {
        use std::sync::atomic::Ordering::Relaxed;
        let entry = ManifestFileV1 {
            path: rel.to_owned(),
            size: bytes.len() as u64,
            sha256: hex::encode(Sha256::digest(bytes)),
        };
        if self.retired.sha256.get(rel) == Some(&entry.sha256) {
            self.files_kept.fetch_add(1, Relaxed);
            return Ok(entry);
        }
        self.files_written.fetch_add(1, Relaxed);
        self.bytes_written.fetch_add(entry.size, Relaxed);
        let path = self.dir.join(rel);
        // Overwrite in place, then cut to length: a recycled file keeps its blocks, and freeing and
        // reallocating blocks is what costs most on these machines' disks.
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(PublishError::io(&path))?;
        file.write_all(bytes).map_err(PublishError::io(&path))?;
        file.set_len(bytes.len() as u64).map_err(PublishError::io(&path))?;
        Ok(entry)
    }

    pub(crate) fn json(&self, rel: &str, value: &impl Serialize) -> Result<ManifestFileV1, PublishError> {
        self.write(rel, &serde_json::to_vec(value).map_err(PublishError::Encode)?)
    }

    /// Writes a file as `fill` produces it, for files too large to hold: the bytes go through
    /// SHA-256 into a temporary file beside `rel`, which replaces `rel` unless the retired snapshot's
    /// file there holds the same bytes (then it is removed and the file kept, as [`Self::write`]
    /// keeps it).
    pub(crate) fn stream(
        &self,
        rel: &str,
        fill: impl FnOnce(&mut Streamed) -> Result<(), PublishError>,
    ) -> Result<ManifestFileV1, PublishError> {
        use std::sync::atomic::Ordering::Relaxed;
        let partial = self.dir.join(format!("{rel}.partial"));
        let file = fs::File::create(&partial).map_err(PublishError::io(&partial))?;
        let mut out =
            Streamed { file: BufWriter::with_capacity(1 << 20, file), sha256: Sha256::new(), size: 0, path: partial };
        let filled = fill(&mut out).and_then(|()| out.file.flush().map_err(PublishError::io(&out.path)));
        let Streamed { file, sha256, size, path: partial } = out;
        drop(file);
        if let Err(e) = filled {
            // Best effort: a partial file left by a failed write is removed by the next publication
            // into this folder, as any file its manifest does not list.
            let _ = fs::remove_file(&partial);
            return Err(e);
        }
        let entry = ManifestFileV1 { path: rel.to_owned(), size, sha256: hex::encode(sha256.finalize()) };
        if self.retired.sha256.get(rel) == Some(&entry.sha256) {
            fs::remove_file(&partial).map_err(PublishError::io(&partial))?;
            self.files_kept.fetch_add(1, Relaxed);
        } else {
            let path = self.dir.join(rel);
            fs::rename(&partial, &path).map_err(PublishError::io(&path))?;
            self.files_written.fetch_add(1, Relaxed);
            self.bytes_written.fetch_add(size, Relaxed);
        }
        Ok(entry)
    }
}

/// A file being written by [`Out::stream`]: what goes in is hashed and counted.
pub(crate) struct Streamed {
    file: BufWriter<fs::File>,
    sha256: Sha256,
    size: u64,
    path: PathBuf,
}

impl Streamed {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]) -> Result<(), PublishError> {
        self.write_all(bytes).map_err(PublishError::io(&self.path))
    }
}

impl Write for Streamed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        self.sha256.update(&buf[..n]);
        self.size += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Leaderboard order: measured sellers a buyer may pay (`PROCEED` or `PROCEED_LOW_VALUE`); proven
/// before unproven (cheap unanchored demand cannot buy the top of a list), then score desc,
/// confidence desc, volume desc, address.
pub fn ranked(sellers: &[SellerRecord]) -> Vec<&SellerRecord> {
    let mut ranked: Vec<&SellerRecord> = sellers
        .iter()
        .filter(|s| {
            s.assessment.score.is_some()
                && matches!(s.assessment.decision, Decision::Proceed | Decision::ProceedLowValue)
        })
        .collect();
    ranked.sort_by(|a, b| {
        b.assessment
            .proven()
            .cmp(&a.assessment.proven())
            .then(b.assessment.score.cmp(&a.assessment.score))
            .then(b.assessment.confidence.total_cmp(&a.assessment.confidence))
            .then(b.features.demand.volume.cmp(&a.features.demand.volume))
            .then_with(|| a.address.cmp(&b.address))
    });
    ranked
}

/// Removes every file under `dir` that is not in `files` (left over from a recycled snapshot).
fn remove_unlisted(dir: &Path, files: &[ManifestFileV1]) -> Result<(), PublishError> {
    let keep: std::collections::HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let mut stack = vec![dir.to_path_buf()];
    let mut folders = Vec::new();
    while let Some(folder) = stack.pop() {
        folders.push(folder.clone());
        for entry in fs::read_dir(&folder).map_err(PublishError::io(&folder))? {
            let entry = entry.map_err(PublishError::io(&folder))?;
            let path = entry.path();
            if entry.file_type().map_err(PublishError::io(&path))?.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path.strip_prefix(dir).expect("under dir").to_string_lossy().into_owned();
            if !keep.contains(rel.as_str()) {
                fs::remove_file(&path).map_err(PublishError::io(&path))?;
            }
        }
    }
    // Folders left empty (those of a retired snapshot's files this one does not have), deepest
    // first; a folder that still holds files is kept.
    for folder in folders.iter().skip(1).rev() {
        if fs::read_dir(folder).map_err(PublishError::io(folder))?.next().is_none() {
            fs::remove_dir(folder).map_err(PublishError::io(folder))?;
        }
    }
    Ok(())
}

/// The record tables, the live basis and the live context.
fn table_files(out: &Out<'_>, input: &SnapshotInput) -> Result<Vec<ManifestFileV1>, PublishError> {
    let sellers: Vec<SellerRow<'_>> = input.sellers.iter().map(SellerRow::of).collect();
    let deployers: Vec<&DeployerRecord> = input.deployers.iter().collect();
    let tokens: Vec<&BuyerTrust> = input.buyer_trust.iter().collect();
    let live_rows: Vec<crate::live::LiveRow<'_>> = input.sellers.iter().map(crate::live::LiveRow::of).collect();
    Ok(vec![
        out.stream(SELLERS_TABLE, |w| tables::write_to::<Sellers, _>(w, &sellers))?,
        out.stream(DEPLOYERS_TABLE, |w| tables::write_to::<Deployers, _>(w, &deployers))?,
        out.stream(TOKENS_TABLE, |w| tables::write_to::<Tokens, _>(w, &tokens))?,
        out.stream(LIVE_BASIS, |w| crate::live::columns::write_to(w, &live_rows))?,
        out.json(
            LIVE_CONTEXT,
            &crate::live::LiveContextV1 {
                version: crate::live::LIVE_CONTEXT_VERSION.to_owned(),
                snapshot_date: input.date.clone(),
                facilitators: input.facilitators.clone(),
                oracle_payers: input.oracle_payers.clone(),
            },
        )?,
    ])
}

/// The leaderboards, the indexes, movers, and the CSV and Parquet exports.
fn index_and_export_files(
    out: &Out<'_>,
    ctx: &PayloadContext,
    input: &SnapshotInput,
    ranked: &[&SellerRecord],
    categories: &CategoryIndex,
) -> Result<Vec<ManifestFileV1>, PublishError> {
    let mut files = Vec::new();
    let mut network_breakdown = std::collections::BTreeMap::new();
    for s in &input.sellers {
        *network_breakdown.entry(caip2(&s.listing.network)).or_insert(0u32) += 1;
    }
    let stats = LeaderboardStats {
        ranked: ranked.len() as u32,
        total_indexed: input.sellers.len() as u32,
        network_breakdown,
        rebuild_counts: RebuildCountsV1 {
            sellers: input.sellers.len() as u32,
            deployers: input.deployers.len() as u32,
            degraded: input.sellers.iter().filter(|s| s.assessment.score.is_none()).count() as u32,
        },
    };
    let entries: Vec<LeaderboardEntryV1> = ranked.par_iter().map(|s| payloads::leaderboard_entry(s, true)).collect();
    let default_view: Vec<LeaderboardEntryV1> =
        ranked.iter().take(DEFAULT_LEADERBOARD_LIMIT).map(|s| payloads::leaderboard_entry(s, false)).collect();
    let filters =
        FiltersV1 { ecosystem: None, network: None, limit: DEFAULT_LEADERBOARD_LIMIT as u32, with_sparkline: false };
    files.push(
        out.json(LEADERBOARD, &LeaderboardV1::assemble(&ctx.generated_at, &ctx.date, &stats, filters, default_view))?,
    );
    let full = LeaderboardFileV1 {
        version: version("leaderboard-full"),
        generated_at: ctx.generated_at.clone(),
        snapshot_date: ctx.date.clone(),
        stats: stats.clone(),
        entries,
    };
    files.push(out.stream(LEADERBOARD_FULL, |w| serde_json::to_writer(w, &full).map_err(PublishError::Encode))?);
    drop(full);

    let rank_of: std::collections::HashMap<&str, u32> =
        ranked.iter().enumerate().map(|(i, s)| (s.address.as_str(), i as u32 + 1)).collect();
    let agent_rows: Vec<AgentRowV1> = input
        .sellers
        .par_iter()
        .map(|s| payloads::agent_row(s, rank_of.get(s.address.as_str()).copied(), categories))
        .collect();
    files.push(json_lines(out, AGENTS_INDEX, &agent_rows)?);
    let deployer_rows: Vec<DeployerRowV1> = input.deployers.iter().map(payloads::deployer_row).collect();
    files.push(json_lines(out, DEPLOYERS_INDEX, &deployer_rows)?);
    let proofs: Vec<ProofRowV1> = input.proofs.iter().map(payloads::proof_row).collect();
    files.push(json_lines(out, PROOFS_INDEX, &proofs)?);
    let lists: Vec<ListRowV1> = input.lists.iter().map(payloads::list_row).collect();
    files.push(json_lines(out, LISTS_INDEX, &lists)?);
    let identities: Vec<IdentityRowV1> = input.identities.iter().map(payloads::identity_row).collect();
    files.push(json_lines(out, IDENTITIES_INDEX, &identities)?);
    let crawlers: Vec<CrawlerRowV1> = input.crawlers.iter().map(payloads::crawler_row).collect();
    files.push(json_lines(out, CRAWLERS_INDEX, &crawlers)?);
    let funding: Vec<FundingRowV1> = input.funding.iter().map(payloads::funding_row).collect();
    files.push(json_lines(out, FUNDING_INDEX, &funding)?);
    let listings: Vec<ListingRowV1> = input.listings.iter().map(payloads::listing_row).collect();
    files.push(json_lines(out, LISTINGS_INDEX, &listings)?);
    let mut csv_order: Vec<&SellerRecord> = ranked.to_vec();
    csv_order.extend(input.sellers.iter().filter(|s| !rank_of.contains_key(s.address.as_str())));
    let day = chrono::NaiveDate::parse_from_str(&ctx.date, "%Y-%m-%d")
        .map_err(|e| PublishError::Export(format!("snapshot day {}: {e}", ctx.date)))?;
    let score_rows: Vec<exports::ScoreRow<'_>> = csv_order
        .iter()
        .map(|s| exports::ScoreRow {
            rank: rank_of.get(s.address.as_str()).copied(),
            seller: s,
            date: day,
            base_path: &ctx.base_path,
            categories,
        })
        .collect();
    let scores = exports::scores();
    files.push(out.stream(SCORES_CSV, |w| scores.write_csv(w, &score_rows))?);
    files.push(out.stream(SCORES_PARQUET, |w| scores.write_parquet(w, &score_rows))?);
    let history_rows: Vec<exports::HistoryRow<'_>> = csv_order
        .iter()
        .flat_map(|s| s.history.iter().map(|point| exports::HistoryRow { address: &s.address, point }))
        .collect();
    files.push(out.stream(HISTORY_PARQUET, |w| exports::history().write_parquet(w, &history_rows))?);
    files.push(out.json(MOVERS, &payloads::movers(&ctx.date, &agent_rows, STATIC_MOVERS))?);
    files.push(out.stream(COUNTERPARTIES, |w| exports::counterparties().write_parquet(w, &input.counterparties))?);
    files.push(
        out.stream(SETTLEMENT_FORMS_PARQUET, |w| exports::settlement_forms().write_parquet(w, &input.settlement_mix))?,
    );

    Ok(files)
}

/// Writes every file of a snapshot into `dir` and returns the manifest, written last, with what was
/// written. `dir` may hold a retired snapshot whose files are overwritten in place, except those
/// `retired` says already hold the same bytes, which are left as they are; files the new snapshot
/// does not have are removed before the manifest is written.
pub fn write_snapshot(
    dir: &Path,
    ctx: &PayloadContext,
    input: &SnapshotInput,
    retired: &RetiredFiles,
) -> Result<(ManifestV1, SnapshotWritesV1), PublishError> {
    for sub in layout::SNAPSHOT_FOLDERS {
        let sub = dir.join(sub);
        fs::create_dir_all(&sub).map_err(PublishError::io(&sub))?;
    }
    let out = Out::new(dir, retired);
    let ranked = ranked(&input.sellers);
    let categories = CategoryIndex::new(&ranked);
    // The per-wallet documents are not files of the snapshot: the server renders them from the
    // record tables, and `export-static` writes them for a static file server.
    let (tables, indexes) =
        rayon::join(|| table_files(&out, input), || index_and_export_files(&out, ctx, input, &ranked, &categories));
    let mut files = tables?;
    files.extend(indexes?);

    files.sort_by(|a, b| a.path.cmp(&b.path));
    remove_unlisted(dir, &files)?;
    let manifest = ManifestV1 {
        version: version("manifest"),
        snapshot_id: ctx.snapshot_id.clone(),
        snapshot_date: ctx.date.clone(),
        generated_at: ctx.generated_at.clone(),
        methodology: METHODOLOGY_VERSION.to_owned(),
        input_digest: input.input_digest.clone(),
        base_path: ctx.base_path.clone(),
        counts: SnapshotCountsV1 {
            sellers: input.sellers.len() as u32,
            ranked: ranked.len() as u32,
            deployers: input.deployers.len() as u32,
            counterparties: input.counterparties.len() as u32,
        },
        verifier_contract: ctx.verifier_contract.clone(),
        files,
    };
    write_manifest(dir, &manifest)?;
    let stats = SnapshotWritesV1 {
        files_written: out.files_written.into_inner(),
        bytes_written: out.bytes_written.into_inner(),
        files_kept: out.files_kept.into_inner(),
    };
    Ok((manifest, stats))
}

/// Writes `manifest` as the folder's `manifest.json` (last: it vouches for the files written).
pub(crate) fn write_manifest(dir: &Path, manifest: &ManifestV1) -> Result<(), PublishError> {
    let path: PathBuf = dir.join(MANIFEST);
    let file = fs::File::create(&path).map_err(PublishError::io(&path))?;
    let mut w = BufWriter::new(file);
    serde_json::to_writer_pretty(&mut w, manifest).map_err(PublishError::Encode)?;
    w.flush().map_err(PublishError::io(&path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out<'a>(dir: &'a Path, retired: &'a RetiredFiles) -> Out<'a> {
        Out::new(dir, retired)
    }

    fn lines(w: &mut Streamed, n: usize) -> Result<(), PublishError> {
        let records: Vec<usize> = (0..n).collect();
        write_lines(w, &records, |r, line| {
            line.extend_from_slice(r.to_string().as_bytes());
            Ok(())
        })
    }

    #[test]
    fn a_streamed_file_is_kept_replaced_or_left_as_the_retired_manifest_says() {
        use std::sync::atomic::Ordering::Relaxed;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bundle");
        // More records than one slice in flight, so the lines of several slices are joined in order.
        let n = LINES_IN_FLIGHT * 2 + 5;
        let expected: String = (0..n).map(|i| format!("{i}\n")).collect();
        std::fs::write(&path, &expected).unwrap();
        let same = hex::encode(Sha256::digest(expected.as_bytes()));
        let retired = RetiredFiles { sha256: [("bundle".to_owned(), same.clone())].into() };

        // The retired file holds the same bytes: it is kept, and nothing is left beside it.
        let o = out(dir.path(), &retired);
        let entry = o.stream("bundle", |w| lines(w, n)).unwrap();
        assert_eq!((entry.sha256.as_str(), entry.size), (same.as_str(), expected.len() as u64));
        assert_eq!((o.files_kept.load(Relaxed), o.files_written.load(Relaxed)), (1, 0));
        assert!(!dir.path().join("bundle.partial").exists());

        // Different bytes replace it.
        let o = out(dir.path(), &retired);
        let entry = o.stream("bundle", |w| lines(w, 3)).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "0\n1\n2\n");
        assert_eq!(entry.sha256, hex::encode(Sha256::digest(b"0\n1\n2\n")));
        assert_eq!((o.files_written.load(Relaxed), o.bytes_written.load(Relaxed)), (1, 6));

        // A failed fill leaves the file as it was and no partial file.
        let o = out(dir.path(), &retired);
        let failed = o.stream("bundle", |w| {
            w.put(b"half")?;
            Err(PublishError::Export("encoding failed".to_owned()))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "0\n1\n2\n");
        assert!(!dir.path().join("bundle.partial").exists());
    }
}
