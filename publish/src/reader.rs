//! Loads a published snapshot into memory for the server: every file's bytes checked against the
//! manifest, the full leaderboard and the counterparties parsed.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::PublishError;
use crate::layout;
use crate::wire::{
    AgentRowV1, CrawlerRowV1, DeployerRowV1, FundingRowV1, IdentityRowV1, LeaderboardFileV1, ListRowV1, ListingRowV1,
    ManifestV1, ProofRowV1,
};

/// The snapshot's directory indexes.
#[derive(Debug, Default, Clone)]
pub struct DirectoryRows {
    /// Identity proofs.
    pub proofs: Vec<ProofRowV1>,
    /// Denylist and allowlist entries.
    pub lists: Vec<ListRowV1>,
    /// ERC-8004 registered agents.
    pub identities: Vec<IdentityRowV1>,
    /// Marketplace crawl sources.
    pub crawlers: Vec<CrawlerRowV1>,
    /// First fundings of sellers, deployers and their funders.
    pub funding: Vec<FundingRowV1>,
    /// Current marketplace listings (empty for a snapshot published before the index).
    pub listings: Vec<ListingRowV1>,
}

/// A snapshot held in memory.
#[derive(Debug)]
pub struct LoadedSnapshot {
    /// Snapshot id.
    pub id: String,
    /// Folder it was read from.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: ManifestV1,
    /// Raw bytes of `manifest.json`.
    pub manifest_bytes: Vec<u8>,
    /// Every ranked leaderboard entry with stats.
    pub leaderboard: LeaderboardFileV1,
    /// Known non-seller wallets.
    pub counterparties: crate::counterparties::Counterparties,
    /// Every indexed seller, in address order.
    pub agents: Vec<AgentRowV1>,
    /// Every scored deployer, in address order.
    pub deployers: Vec<DeployerRowV1>,
    /// Directory rows the directory reads serve.
    pub directory: DirectoryRows,
    /// What every live re-score of the snapshot shares (absent in snapshots older than it).
    pub live_context: Option<crate::live::LiveContextV1>,
    /// Every seller's live basis, held compressed (absent in snapshots older than its columns).
    pub live_bases: Option<std::sync::Arc<crate::live::LiveBases>>,
    /// The record tables the per-wallet documents are rendered from, held compressed (absent in
    /// snapshots older than them, which keep their rendered files in [`LoadedSnapshot::files`]).
    pub records: Option<crate::tables::SnapshotRecords>,
    /// Every file listed in the manifest, by relative path, but the record tables and the live
    /// basis, and, where the snapshot has its record tables, the files they render (verified, not
    /// kept).
    pub files: HashMap<String, Vec<u8>>,
}

impl LoadedSnapshot {
    /// Checks every file the manifest in `dir` lists (size and SHA-256) without keeping them;
    /// the manifest.
    pub fn verify(dir: &Path) -> Result<ManifestV1, PublishError> {
        let manifest_path = dir.join(layout::MANIFEST);
        let manifest_bytes = fs::read(&manifest_path).map_err(PublishError::io(&manifest_path))?;
        let manifest: ManifestV1 = serde_json::from_slice(&manifest_bytes).map_err(PublishError::Encode)?;
        manifest.files.par_iter().try_for_each(|f| read_checked(dir, &manifest, f).map(drop))?;
        Ok(manifest)
    }

    /// Reads and verifies the snapshot in `dir`.
    pub fn load(dir: &Path) -> Result<Self, PublishError> {
        let manifest_path = dir.join(layout::MANIFEST);
        let manifest_bytes = fs::read(&manifest_path).map_err(PublishError::io(&manifest_path))?;
        let manifest: ManifestV1 = serde_json::from_slice(&manifest_bytes).map_err(PublishError::Encode)?;
        let mut files: HashMap<String, Vec<u8>> = manifest
            .files
            .par_iter()
            .map(|f| read_checked(dir, &manifest, f).map(|bytes| (f.path.clone(), bytes)))
            .collect::<Result<_, PublishError>>()?;
        // Moved out, not copied: the server keeps these bytes as they are.
        let live_bases = files
            .remove(layout::LIVE_BASIS)
            .map(|b| crate::live::LiveBases::read(bytes::Bytes::from(b)).map(std::sync::Arc::new))
            .transpose()?;
        let records = match (&live_bases, files.remove(layout::SELLERS_TABLE)) {
            (Some(live), Some(sellers)) => {
                let mut table = |name: &'static str| {
                    files.remove(name).map(bytes::Bytes::from).ok_or_else(|| PublishError::Corrupt {
                        snapshot: manifest.snapshot_id.clone(),
                        path: name.to_owned(),
                        reason: "missing beside sellers.parquet".to_owned(),
                    })
                };
                let (deployers, tokens) = (table(layout::DEPLOYERS_TABLE)?, table(layout::TOKENS_TABLE)?);
                files.retain(|path, _| !crate::static_export::is_rendered(path));
                Some(crate::tables::SnapshotRecords::from_bytes(live.clone(), sellers.into(), deployers, tokens)?)
            }
            _ => None,
        };
        let required = |path: &str| {
            files.get(path).ok_or_else(|| PublishError::Corrupt {
                snapshot: manifest.snapshot_id.clone(),
                path: path.to_owned(),
                reason: "missing".to_owned(),
            })
        };
        let leaderboard: LeaderboardFileV1 =
            serde_json::from_slice(required(layout::LEADERBOARD_FULL)?).map_err(PublishError::Encode)?;
        let agents = json_lines(required(layout::AGENTS_INDEX)?)?;
        let deployers = json_lines(required(layout::DEPLOYERS_INDEX)?)?;
        let directory = DirectoryRows {
            proofs: json_lines(required(layout::PROOFS_INDEX)?)?,
            lists: json_lines(required(layout::LISTS_INDEX)?)?,
            identities: json_lines(required(layout::IDENTITIES_INDEX)?)?,
            crawlers: json_lines(required(layout::CRAWLERS_INDEX)?)?,
            funding: json_lines(required(layout::FUNDING_INDEX)?)?,
            listings: files.get(layout::LISTINGS_INDEX).map(|b| json_lines(b)).transpose()?.unwrap_or_default(),
        };
        // Read, then let go of: the file's bytes are larger than what is held of them.
        let counterparties = match (files.remove(layout::COUNTERPARTIES), files.remove(layout::COUNTERPARTIES_CSV)) {
            (Some(parquet), _) => crate::counterparties::Counterparties::from_parquet(parquet.into())?,
            (None, Some(csv)) => crate::counterparties::Counterparties::from_csv(&csv)?,
            (None, None) => crate::counterparties::Counterparties::default(),
        };
        let live_context = files
            .get(layout::LIVE_CONTEXT)
            .map(|bytes| serde_json::from_slice(bytes).map_err(PublishError::Encode))
            .transpose()?;
        Ok(Self {
            id: manifest.snapshot_id.clone(),
            live_context,
            live_bases,
            records,
            dir: dir.to_owned(),
            manifest,
            manifest_bytes,
            leaderboard,
            counterparties,
            agents,
            deployers,
            directory,
            files,
        })
    }

    /// Reads `scores.csv` back into typed rows (used by `agentrep eval`).
    pub fn score_rows(&self) -> Result<Vec<crate::wire::ScoreCsvRowV1>, PublishError> {
        let bytes = self.files.get(layout::SCORES_CSV).map(Vec::as_slice).unwrap_or_default();
        csv::Reader::from_reader(bytes)
            .deserialize()
            .collect::<Result<_, _>>()
            .map_err(|e| PublishError::Csv(e.to_string()))
    }
}

fn json_lines<T: serde::de::DeserializeOwned + Send>(bytes: &[u8]) -> Result<Vec<T>, PublishError> {
    bytes
        .par_split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).map_err(PublishError::Encode))
        .collect()
}

/// One file of a snapshot, read and checked against its manifest entry.
fn read_checked(dir: &Path, manifest: &ManifestV1, f: &crate::wire::ManifestFileV1) -> Result<Vec<u8>, PublishError> {
    let path = dir.join(&f.path);
    let bytes = fs::read(&path).map_err(PublishError::io(&path))?;
    let corrupt =
        |reason: String| PublishError::Corrupt { snapshot: manifest.snapshot_id.clone(), path: f.path.clone(), reason };
    if bytes.len() as u64 != f.size {
        return Err(corrupt(format!("size {} != {}", bytes.len(), f.size)));
    }
    if hex::encode(Sha256::digest(&bytes)) != f.sha256 {
        return Err(corrupt("sha256 differs".to_owned()));
    }
    Ok(bytes)
}
