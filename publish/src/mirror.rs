//! Snapshots on a bucket: the publisher pushes each snapshot it publishes, and stateless
//! replicas (`agentrep serve --snapshots-from s3://…`) pull the one the bucket calls current.
//!
//! Bucket layout under the prefix: `<snapshot-id>/…` (the snapshot folder's files, as on disk),
//! `current` (a text object holding the current id), `runs.jsonl` and `sources.json` (copies of
//! the publisher's, for the replicas' `/status`), and `current-overlay.json` (the newest overlay,
//! the fast evidence between rebuilds, which a replica publishes into its own store so its server
//! applies it as the publisher's does).
//!
//! Order is what makes it safe. A push uploads every file of the snapshot, the manifest last,
//! and only then replaces `current` (one PUT: readers see the old id or the new one). S3 is
//! strongly consistent for reads after writes, so a replica that reads the new id finds every
//! file; it downloads the manifest and exactly the files it lists into a work folder, checks every
//! file against the manifest
//! ([`LoadedSnapshot::load`]), renames the folder to its id and swaps its own `current`, which the
//! server picks up as it does after a local publication. A replica that fails half way keeps
//! serving what it served.

use std::fs;
use std::path::{Path, PathBuf};

use agentrep_lake::{Bucket, BucketError};

use crate::layout::MANIFEST;
use crate::store::{CURRENT, RUNS, SOURCES, SnapshotStore};
use crate::wire::{ManifestV1, OverlayV1};
use crate::{LoadedSnapshot, PublishError};

/// Files transferred at once.
const CONCURRENCY: usize = 16;

/// The work folder a replica downloads a snapshot into before renaming it to its id.
const FETCH_DIR: &str = ".fetching";

/// The bucket object holding the newest overlay.
pub const CURRENT_OVERLAY_OBJECT: &str = "current-overlay.json";

impl From<BucketError> for PublishError {
    fn from(e: BucketError) -> Self {
        PublishError::Bucket(e.to_string())
    }
}

/// Every file under `dir`, as (path relative to `dir` with `/` separators, path).
fn files_under(dir: &Path) -> Result<Vec<(String, PathBuf)>, PublishError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).map_err(PublishError::io(&d))? {
            let path = entry.map_err(PublishError::io(&d))?.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).expect("under dir");
                let relative = relative.iter().map(|p| p.to_string_lossy()).collect::<Vec<_>>().join("/");
                out.push((relative, path));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Pushes snapshot `id` of `store` to `bucket`; when `make_current`, then points the bucket's
/// `current` at it. The publisher's run log and source status go along, and snapshots beyond
/// `retain` (never the current one nor `id`) are deleted from the bucket.
pub fn push(
    store: &SnapshotStore,
    bucket: &Bucket,
    id: &str,
    make_current: bool,
    retain: usize,
) -> Result<(), PublishError> {
    let dir = store.root().join(id);
    let manifest_key = format!("{id}/{MANIFEST}");
    let (manifest, files): (Vec<_>, Vec<_>) = files_under(&dir)?
        .into_iter()
        .map(|(rel, path)| (format!("{id}/{rel}"), path))
        .partition(|(key, _)| *key == manifest_key);
    bucket.upload_all(&files, CONCURRENCY)?;
    // The manifest last: a snapshot folder with a manifest in the bucket is complete.
    bucket.upload_all(&manifest, 1)?;
    for side in [RUNS, SOURCES] {
        let path = store.root().join(side);
        if path.is_file() {
            bucket.upload(side, &path)?;
        }
    }
    if make_current {
        bucket.put(CURRENT, id.as_bytes().to_vec())?;
    }
    let current = current_in(bucket)?;
    let ids: Vec<String> = bucket.list_folders("")?;
    let excess = ids.len().saturating_sub(retain.max(1));
    for old in ids.iter().take(excess) {
        if Some(old) != current.as_ref() && old != id {
            bucket.delete_all(&format!("{old}/"))?;
        }
    }
    Ok(())
}

/// Pushes the newest overlay to `bucket` (one PUT: replicas read the old one or the new one).
pub fn push_overlay(bucket: &Bucket, overlay: &OverlayV1) -> Result<(), PublishError> {
    bucket.put(CURRENT_OVERLAY_OBJECT, serde_json::to_vec_pretty(overlay).map_err(PublishError::Encode)?)?;
    Ok(())
}

/// The bucket's newest overlay into `store` when it is not the one `store` holds; whether it was.
/// An overlay that does not parse is an error and changes nothing.
pub fn pull_overlay(store: &SnapshotStore, bucket: &Bucket) -> Result<bool, PublishError> {
    let Some(bytes) = bucket.get(CURRENT_OVERLAY_OBJECT)? else { return Ok(false) };
    let overlay: OverlayV1 = serde_json::from_slice(&bytes).map_err(PublishError::Encode)?;
    if store.current_overlay().as_ref() == Some(&overlay) {
        return Ok(false);
    }
    store.publish_overlay(&overlay)?;
    Ok(true)
}

/// The id the bucket's `current` names, if any.
pub fn current_in(bucket: &Bucket) -> Result<Option<String>, PublishError> {
    Ok(bucket.get(CURRENT)?.map(|bytes| String::from_utf8_lossy(&bytes).trim().to_owned()).filter(|id| !id.is_empty()))
}

/// One look at the bucket: when its `current` names a snapshot `store` does not point at, fetches
/// it (unless the folder is already there and whole), checks it against its manifest, and points
/// `store`'s `current` at it; snapshots beyond `retain` are removed locally; then the bucket's
/// newest overlay. The new id, if `current` moved.
pub fn pull(store: &SnapshotStore, bucket: &Bucket, retain: usize) -> Result<Option<String>, PublishError> {
    let moved = pull_snapshot(store, bucket, retain)?;
    pull_overlay(store, bucket)?;
    Ok(moved)
}

/// [`pull`]'s snapshot half.
fn pull_snapshot(store: &SnapshotStore, bucket: &Bucket, retain: usize) -> Result<Option<String>, PublishError> {
    let Some(id) = current_in(bucket)? else { return Ok(None) };
    let invalid = id.is_empty() || id.starts_with('.') || id.contains(['/', '\\']) || id == CURRENT;
    if invalid {
        return Err(PublishError::Bucket(format!("the bucket's current names no snapshot: {id:?}")));
    }
    if store.current_id().as_deref() == Some(id.as_str()) {
        return Ok(None);
    }
    fs::create_dir_all(store.root()).map_err(PublishError::io(store.root()))?;
    let final_dir = store.root().join(&id);
    let whole = LoadedSnapshot::verify(&final_dir).is_ok_and(|m| m.snapshot_id == id);
    if !whole {
        let work = store.root().join(FETCH_DIR);
        if work.exists() {
            fs::remove_dir_all(&work).map_err(PublishError::io(&work))?;
        }
        // The manifest first, then exactly the files it lists: nothing else in the bucket's
        // folder reaches the replica, and every path stays inside the work folder.
        let manifest_bytes = bucket
            .get(&format!("{id}/{MANIFEST}"))?
            .ok_or_else(|| PublishError::Bucket(format!("the bucket's current names {id}, which has no {MANIFEST}")))?;
        let manifest: ManifestV1 = serde_json::from_slice(&manifest_bytes).map_err(PublishError::Encode)?;
        if manifest.snapshot_id != id {
            return Err(PublishError::Bucket(format!("{id}/ in the bucket holds snapshot {}", manifest.snapshot_id)));
        }
        let mut files: Vec<(String, PathBuf)> = Vec::new();
        for file in &manifest.files {
            if file.path.split('/').any(|part| part.is_empty() || part == "." || part == "..") {
                return Err(PublishError::Bucket(format!(
                    "{id}'s manifest lists a path outside the snapshot: {:?}",
                    file.path
                )));
            }
            files.push((format!("{id}/{}", file.path), work.join(&file.path)));
        }
        let fetched = bucket.download_all(&files, CONCURRENCY)?;
        if let Some(((key, _), _)) = files.iter().zip(&fetched).find(|(_, got)| got.is_none()) {
            return Err(PublishError::Bucket(format!("{key}, listed in the manifest, is not in the bucket")));
        }
        fs::create_dir_all(&work).map_err(PublishError::io(&work))?;
        let manifest_path = work.join(MANIFEST);
        fs::write(&manifest_path, &manifest_bytes).map_err(PublishError::io(&manifest_path))?;
        // Every file against the manifest before anything is served from it.
        LoadedSnapshot::verify(&work)?;
        if final_dir.exists() {
            fs::remove_dir_all(&final_dir).map_err(PublishError::io(&final_dir))?;
        }
        fs::rename(&work, &final_dir).map_err(PublishError::io(&final_dir))?;
    }
    for side in [RUNS, SOURCES] {
        if let Some(bytes) = bucket.get(side)? {
            let path = store.root().join(side);
            let tmp = store.root().join(format!(".{side}.pulled"));
            fs::write(&tmp, bytes).map_err(PublishError::io(&tmp))?;
            fs::rename(&tmp, &path).map_err(PublishError::io(&path))?;
        }
    }
    store.point_current_at(&id)?;
    store.apply_retention(retain, &id)?;
    Ok(Some(id))
}
