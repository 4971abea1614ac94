//! The snapshots root: publication by write-to-temporary-folder, sync, rename and an atomic swap
//! of the `current` symlink; retention of the last N snapshots; and the run log.
//!
//! Layout: `<root>/<snapshot-id>/…`, `<root>/current -> <snapshot-id>`, `<root>/runs.jsonl`.
//! A crash at any point leaves `current` pointing at a complete snapshot. With a mirror bucket,
//! each publication is then pushed there ([`crate::mirror`]).

use std::fs;
use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use agentrep_model::SnapshotInput;
use chrono::{Duration, NaiveDate};
use sha2::{Digest, Sha256};

use crate::payloads::PayloadContext;
use crate::wire::{JobRunV1, ManifestV1, SnapshotWritesV1};
use crate::writer::RetiredFiles;
use crate::{PublishError, writer};

/// The name of the pointer to the current snapshot.
pub const CURRENT: &str = "current";
/// The work folder a snapshot is written in before it is renamed to its id (one writer at a time
/// per root; a folder left by a crash is reused).
pub const WORK_DIR: &str = ".publishing";
/// The run log (one JSON object per line), outside the immutable snapshot folders.
pub const RUNS: &str = "runs.jsonl";
/// The ingest sources' status, beside the run log (written by `agentrep ingest` and `schedule`).
pub const SOURCES: &str = "sources.json";
/// Beside the snapshots: the day a rebuild publishing while it is served fills the history to.
pub const BACKFILL: &str = "backfill.json";
/// Folder of the overlays (fast evidence between rebuilds), beside the snapshots.
pub const OVERLAYS: &str = "overlays";
/// Symlink to the newest overlay, swapped atomically.
pub const CURRENT_OVERLAY: &str = "current-overlay";

/// How to publish.
#[derive(Debug, Clone)]
pub struct PublishConfig {
    /// Base path the payloads' links use.
    pub base_path: String,
    /// Snapshots to keep (the current one is always kept).
    pub retain: usize,
    /// The operator's deployed `ScoreVerifier` (`AGENTREP_VERIFIER_CONTRACT`), named in every
    /// score payload's `verify.verifierContract`; `None` names none.
    pub verifier_contract: Option<String>,
    /// A bucket each published snapshot is also pushed to, for replicas and CDNs
    /// (`--publish-to s3://…`; see [`crate::mirror`]).
    pub mirror: Option<std::sync::Arc<agentrep_lake::Bucket>>,
}

impl Default for PublishConfig {
    fn default() -> Self {
        Self { base_path: "/api/agent".to_owned(), retain: 7, verifier_contract: None, mirror: None }
    }
}

/// A snapshot that was published.
#[derive(Debug, Clone)]
pub struct Published {
    /// Its id.
    pub id: String,
    /// Its folder.
    pub dir: PathBuf,
    /// Its manifest.
    pub manifest: ManifestV1,
    /// Whether an identical snapshot was already there.
    pub unchanged: bool,
    /// Whether `current` now points at it (false for a day older than the current snapshot's).
    pub became_current: bool,
    /// What the publication wrote, and what it found already there.
    pub written: SnapshotWritesV1,
}

/// A snapshots root.
#[derive(Debug, Clone)]
pub struct SnapshotStore {
    root: PathBuf,
}

/// Snapshot id of a day and input: `<date>-<first 12 hex of the input digest>`.
pub fn snapshot_id(date: &str, input_digest: &str) -> String {
    format!("{date}-{}", &input_digest[..12.min(input_digest.len())])
}

/// `generatedAt` of a day's snapshot: the end of that day, so it derives from the data only.
pub fn generated_at(date: &str) -> String {
    let day = NaiveDate::parse_from_str(date, "%Y-%m-%d").map(|d| d + Duration::days(1));
    day.map(|d| format!("{d}T00:00:00Z")).unwrap_or_else(|_| format!("{date}T00:00:00Z"))
}

impl SnapshotStore {
    /// A store at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder `current` points at.
    pub fn current_dir(&self) -> Result<PathBuf, PublishError> {
        let link = self.root.join(CURRENT);
        let target = fs::read_link(&link).map_err(|_| PublishError::NothingPublished(self.root.clone()))?;
        Ok(self.root.join(target))
    }

    /// Writes a snapshot of `input` and makes it current.
    pub fn publish(&self, input: &SnapshotInput, config: &PublishConfig) -> Result<Published, PublishError> {
        fs::create_dir_all(&self.root).map_err(PublishError::io(&self.root))?;
        let id = snapshot_id(&input.date, &input.input_digest);
        let ctx = PayloadContext {
            base_path: config.base_path.clone(),
            date: input.date.clone(),
            snapshot_id: id.clone(),
            generated_at: generated_at(&input.date),
            verifier_contract: config.verifier_contract.clone(),
        };
        let final_dir = self.root.join(&id);
        let tmp = self.root.join(WORK_DIR);
        let retired = if tmp.exists() {
            RetiredFiles::unknown(&tmp)?
        } else if !final_dir.exists() && self.recycle_oldest_into(&tmp, config.retain)? {
            RetiredFiles::take(&tmp)?
        } else {
            RetiredFiles::default()
        };
        let (manifest, written) = writer::write_snapshot(&tmp, &ctx, input, &retired)?;
        sync_filesystem(&tmp)?;

        let existing = final_dir.join(crate::layout::MANIFEST);
        let unchanged = fs::read(&existing).ok() == fs::read(tmp.join(crate::layout::MANIFEST)).ok();
        if unchanged {
            fs::remove_dir_all(&tmp).map_err(PublishError::io(&tmp))?;
        } else {
            if final_dir.exists() {
                let old = self.root.join(format!(".old-{id}-{}", std::process::id()));
                fs::rename(&final_dir, &old).map_err(PublishError::io(&final_dir))?;
                fs::rename(&tmp, &final_dir).map_err(PublishError::io(&final_dir))?;
                fs::remove_dir_all(&old).map_err(PublishError::io(&old))?;
            } else {
                fs::rename(&tmp, &final_dir).map_err(PublishError::io(&final_dir))?;
            }
        }
        // `current` only moves forward in time: rebuilding an older day (a backfill or a fix)
        // publishes it without taking the newest snapshot off the air. Rebuilding the current day
        // with newer input (a late source, exported attestations) replaces it: ids of one day
        // differ only in their digest, which orders nothing.
        let current = self.current_id();
        let became_current = current.as_ref().is_none_or(|c| input.date.as_str() >= c.get(..10).unwrap_or(c));
        if became_current {
            self.point_current_at(&id)?;
        }
        self.apply_retention(config.retain, &id)?;
        if let Some(bucket) = &config.mirror {
            crate::mirror::push(self, bucket, &id, became_current, config.retain)?;
        }
        Ok(Published { id, dir: final_dir, manifest, unchanged, became_current, written })
    }

    /// When retention would delete the oldest snapshot after this publication anyway, retires it
    /// now (renamed away from its id) as the work folder, so its files are overwritten in place
    /// (on these machines creating a file costs twenty times more than rewriting one) and those
    /// that would get the same bytes are not written at all. True when a snapshot was retired.
    fn recycle_oldest_into(&self, work: &Path, retain: usize) -> Result<bool, PublishError> {
        let ids = self.list()?;
        if ids.len() < retain.max(1) {
            return Ok(false);
        }
        let current = self.current_id();
        if let Some(oldest) = ids.into_iter().find(|id| Some(id) != current.as_ref()) {
            let dir = self.root.join(&oldest);
            fs::rename(&dir, work).map_err(PublishError::io(&dir))?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Swaps `current` to `id` atomically (a new symlink renamed over the old one).
    pub fn point_current_at(&self, id: &str) -> Result<(), PublishError> {
        let tmp = self.root.join(format!(".{CURRENT}.{}", std::process::id()));
        let _ = fs::remove_file(&tmp);
        symlink(id, &tmp).map_err(PublishError::io(&tmp))?;
        let link = self.root.join(CURRENT);
        fs::rename(&tmp, &link).map_err(PublishError::io(&link))
    }

    /// Snapshot folders, oldest first.
    pub fn list(&self) -> Result<Vec<String>, PublishError> {
        let mut ids: Vec<String> = fs::read_dir(&self.root)
            .map_err(PublishError::io(&self.root))?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join(crate::layout::MANIFEST).is_file())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.') && n != CURRENT)
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// The id `current` points at.
    pub fn current_id(&self) -> Option<String> {
        fs::read_link(self.root.join(CURRENT)).ok().and_then(|p| p.to_str().map(str::to_owned))
    }

    /// Removes the oldest snapshots beyond `retain`, never the current one nor `just_published`.
    pub(crate) fn apply_retention(&self, retain: usize, just_published: &str) -> Result<(), PublishError> {
        let current = self.current_id();
        let ids = self.list()?;
        let excess = ids.len().saturating_sub(retain.max(1));
        for id in ids.into_iter().take(excess) {
            if Some(&id) != current.as_ref() && id != just_published {
                let dir = self.root.join(&id);
                fs::remove_dir_all(&dir).map_err(PublishError::io(&dir))?;
            }
        }
        Ok(())
    }

    /// Appends a run to the run log.
    pub fn record_run(&self, run: &JobRunV1) -> Result<(), PublishError> {
        fs::create_dir_all(&self.root).map_err(PublishError::io(&self.root))?;
        let path = self.root.join(RUNS);
        let mut f = fs::OpenOptions::new().create(true).append(true).open(&path).map_err(PublishError::io(&path))?;
        let mut line = serde_json::to_vec(run).map_err(PublishError::Encode)?;
        line.push(b'\n');
        f.write_all(&line).map_err(PublishError::io(&path))?;
        f.sync_data().map_err(PublishError::io(&path))
    }

    /// Replaces the ingest sources' status atomically.
    pub fn write_sources(&self, sources: &[crate::wire::SourceStatusV1]) -> Result<(), PublishError> {
        self.replace_json(SOURCES, &sources)
    }

    /// Says that a rebuild is filling the history up to `backfill.fills_to` while the snapshots
    /// are served (replaced atomically).
    pub fn write_backfill(&self, backfill: &crate::wire::BackfillV1) -> Result<(), PublishError> {
        self.replace_json(BACKFILL, backfill)
    }

    /// Writes `value` as the JSON file `name` beside the snapshots, replacing it atomically (a
    /// temporary file renamed over it), so a reader sees the old file or the new one.
    fn replace_json(&self, name: &str, value: &impl serde::Serialize) -> Result<(), PublishError> {
        fs::create_dir_all(&self.root).map_err(PublishError::io(&self.root))?;
        let path = self.root.join(name);
        let tmp = self.root.join(format!(".{name}.tmp"));
        let bytes = serde_json::to_vec_pretty(value).map_err(PublishError::Encode)?;
        fs::write(&tmp, bytes).map_err(PublishError::io(&tmp))?;
        fs::rename(&tmp, &path).map_err(PublishError::io(&path))
    }

    /// Publishes an overlay of the current snapshot: its file is written once under `overlays/`
    /// (named by snapshot, time and content, synced), then `current-overlay` is swapped to it by
    /// a symlink renamed over the old one, as `current` is; overlays of snapshots no longer
    /// retained are removed. Returns the file's name.
    pub fn publish_overlay(&self, overlay: &crate::wire::OverlayV1) -> Result<String, PublishError> {
        let dir = self.root.join(OVERLAYS);
        fs::create_dir_all(&dir).map_err(PublishError::io(&dir))?;
        let bytes = serde_json::to_vec_pretty(overlay).map_err(PublishError::Encode)?;
        let digest = hex::encode(&Sha256::digest(&bytes)[..6]);
        let stamp = overlay.as_of.replace([':', '-'], "");
        let name = format!("{}-{stamp}-{digest}.json", overlay.snapshot_id);
        let path = dir.join(&name);
        if !path.is_file() {
            let tmp = dir.join(format!(".{name}.tmp"));
            let mut f = fs::File::create(&tmp).map_err(PublishError::io(&tmp))?;
            f.write_all(&bytes).and_then(|()| f.sync_all()).map_err(PublishError::io(&tmp))?;
            fs::rename(&tmp, &path).map_err(PublishError::io(&path))?;
        }
        let tmp = self.root.join(format!(".{CURRENT_OVERLAY}.{}", std::process::id()));
        let _ = fs::remove_file(&tmp);
        symlink(format!("{OVERLAYS}/{name}"), &tmp).map_err(PublishError::io(&tmp))?;
        let link = self.root.join(CURRENT_OVERLAY);
        fs::rename(&tmp, &link).map_err(PublishError::io(&link))?;
        let retained = self.list()?;
        for entry in fs::read_dir(&dir).map_err(PublishError::io(&dir))?.filter_map(Result::ok) {
            let file = entry.file_name().to_string_lossy().into_owned();
            if file != name && !retained.iter().any(|id| file.starts_with(&format!("{id}-"))) {
                let _ = fs::remove_file(entry.path());
            }
        }
        Ok(name)
    }

    /// The file `current-overlay` names (relative to the root), if any.
    pub fn current_overlay_name(&self) -> Option<String> {
        fs::read_link(self.root.join(CURRENT_OVERLAY)).ok().and_then(|p| p.to_str().map(str::to_owned))
    }

    /// The newest overlay, if one is published and readable.
    pub fn current_overlay(&self) -> Option<crate::wire::OverlayV1> {
        fs::read(self.root.join(CURRENT_OVERLAY)).ok().and_then(|b| serde_json::from_slice(&b).ok())
    }

    /// The history is complete: no rebuild is filling it any more.
    pub fn clear_backfill(&self) -> Result<(), PublishError> {
        let path = self.root.join(BACKFILL);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(PublishError::io(&path)(e)),
            _ => Ok(()),
        }
    }

    /// The rebuild filling the history, if one is.
    pub fn backfill(&self) -> Option<crate::wire::BackfillV1> {
        fs::read(self.root.join(BACKFILL)).ok().and_then(|b| serde_json::from_slice(&b).ok())
    }

    /// The ingest sources' status (none when nothing was ingested).
    pub fn sources(&self) -> Vec<crate::wire::SourceStatusV1> {
        fs::read(self.root.join(SOURCES)).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
    }

    /// The last `n` runs, newest last.
    pub fn recent_runs(&self, n: usize) -> Vec<JobRunV1> {
        let text = fs::read_to_string(self.root.join(RUNS)).unwrap_or_default();
        let runs: Vec<JobRunV1> = text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        runs[runs.len().saturating_sub(n)..].to_vec()
    }
}

/// Makes the written snapshot durable before it is renamed into place: one `syncfs` of the file
/// system (coreutils `sync -f`) instead of an fsync per file.
fn sync_filesystem(dir: &Path) -> Result<(), PublishError> {
    let status = std::process::Command::new("sync").arg("-f").arg(dir).status().map_err(PublishError::io(dir))?;
    if status.success() {
        Ok(())
    } else {
        Err(PublishError::Io {
            path: dir.to_owned(),
            source: std::io::Error::other(format!("sync -f exited with {status}")),
        })
    }
}
