//! The lake: atomic day-partition writes, partition listing and the input digest, on a local
//! folder or on a bucket.
//!
//! A bucket lake keeps a local copy of what it reads (its cache folder, laid out as a folder
//! lake): the rebuild's engine and the typed readers read local Parquet files either way. Listing
//! a dataset lists its prefix in the bucket and brings the cache in line with it, partition by
//! partition: a partition whose bucket version (ETag) is the one the cache holds is not fetched
//! again, one that changed is downloaded, one that left the bucket leaves the cache. A write goes
//! to the bucket first, from a synced temporary file in the cache folder, as one PUT (or one
//! multipart upload above 16 MiB), which readers see whole or not at all, then its digest sidecar;
//! only then is the file renamed into the cache, so the cache holds only versions the bucket has.
//! Checkpoints are single objects.
//!
//! Each partition file has a digest sidecar beside it (`part-0.parquet.sha256`: the file's SHA-256
//! and size, written by [`Lake::write_partition`] right after the rename), so the input digest reads
//! a few bytes per partition instead of hashing the lake every day. A sidecar counts only while it
//! is at least as new as its file and names the file's size; otherwise (a crash between the two
//! renames, a file replaced by another tool, a lake copied file by file) the file is hashed again
//! and the sidecar rewritten.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::NaiveDate;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::errors::ParquetError;
use parquet::file::properties::WriterProperties;
use sha2::{Digest, Sha256};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::bucket::{Bucket, BucketError, RemoteObject, temporary_beside};
use crate::datasets::{Dataset, Row, SchemaMismatch};
use crate::lease::{LEASE_DURATION, Lease};
use crate::location::LakeLocation;

/// A lake failure, with the path it concerns.
#[derive(Debug, thiserror::Error)]
pub enum LakeError {
    /// Reading or writing a file failed.
    #[error("lake I/O at {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// Encoding or decoding Parquet failed.
    #[error("parquet {path}: {source}")]
    Parquet {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: ParquetError,
    },
    /// A partition file does not have its dataset's schema.
    #[error("{path}: {source}")]
    Schema {
        /// The file.
        path: PathBuf,
        /// The mismatch.
        source: SchemaMismatch,
    },
    /// A bucket call failed.
    #[error(transparent)]
    Bucket(#[from] BucketError),
    /// The view reads this dataset where it lives (a cluster does): it has no local copies.
    #[error("the dataset {0} is read in the bucket by this rebuild's engine, not from local copies")]
    ReadRemotely(&'static str),
    /// Another process holds a lease this one asked for.
    #[error("another process holds this lake's {name} lease: {holder}; one {name} per lake")]
    LeaseHeld {
        /// The lease (`scheduler`).
        name: String,
        /// Who holds it, as its holder wrote.
        holder: String,
    },
    /// This process held the lease and no longer does.
    #[error("this process lost the lake's {name} lease: {why}")]
    LeaseLost {
        /// The lease.
        name: String,
        /// Why.
        why: String,
    },
    /// A checkpoint file is not valid JSON of its type.
    #[error("checkpoint {path}: {source}")]
    Checkpoint {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(io::Error) -> LakeError + '_ {
    move |source| LakeError::Io { path: path.to_owned(), source }
}

/// One partition file of a dataset.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PartitionFile {
    /// The partition day.
    pub date: NaiveDate,
    /// The Parquet file.
    pub path: PathBuf,
}

/// A lake: a folder, or a bucket prefix with a local cache folder.
#[derive(Debug, Clone)]
pub struct Lake {
    /// The lake's folder, or a bucket lake's cache folder.
    root: PathBuf,
    bucket: Option<Arc<Bucket>>,
    /// In a pinned view ([`Lake::pinned`]), the datasets whose cache was already brought in line
    /// with the bucket: they are not listed again.
    pinned: Option<Arc<std::sync::Mutex<std::collections::HashSet<Dataset>>>>,
    /// In a view with remote datasets ([`Lake::pinned_remote`]): which, and their partitions once
    /// listed.
    remote: Option<Arc<RemoteDatasets>>,
}

/// The datasets a view reads where they live, and each one's partitions once listed.
#[derive(Debug, Default)]
struct RemoteDatasets {
    datasets: Vec<Dataset>,
    listed: std::sync::Mutex<std::collections::HashMap<Dataset, Vec<RemotePartition>>>,
}

/// A partition of a bucket lake as the bucket holds it, never fetched: for an engine that reads
/// it where it lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemotePartition {
    /// The partition day.
    pub date: NaiveDate,
    /// Its `s3://` address.
    pub url: String,
    /// Its file's SHA-256 (from the bucket's sidecar when that names this version).
    pub sha256: String,
}

/// File name of the one file of a day partition.
const PART_FILE: &str = "part-0.parquet";

/// File name of a partition file's digest sidecar (`<sha256 hex> <size>`, and in a bucket the
/// version of the partition object it was written for).
const PART_DIGEST_FILE: &str = "part-0.parquet.sha256";

/// File name, in a bucket lake's cache, of the bucket version a cached partition file was
/// downloaded or uploaded as (`<version> <size>`).
const PART_VERSION_FILE: &str = "part-0.parquet.version";

/// A writer that hashes and counts what goes through it.
struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    len: u64,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// What a digest sidecar holds.
fn sidecar_text(sha256: &str, len: u64) -> String {
    format!("{sha256} {len}\n")
}

/// The SHA-256 a valid sidecar gives for `path`, or `None` when it must be hashed again.
fn sidecar_digest(path: &Path, sidecar: &Path) -> Option<String> {
    let file = fs::metadata(path).ok()?;
    let side = fs::metadata(sidecar).ok()?;
    if side.modified().ok()? < file.modified().ok()? {
        return None;
    }
    let text = fs::read_to_string(sidecar).ok()?;
    let (sha256, len, _) = parse_sidecar(&text)?;
    (len == file.len()).then_some(sha256)
}

/// A bucket listing of a dataset's objects by partition day: each day's file and sidecar.
type ListedDays<'a> = std::collections::BTreeMap<NaiveDate, (Option<&'a RemoteObject>, Option<&'a RemoteObject>)>;

fn listed_days(dataset: Dataset, listed: &[RemoteObject]) -> ListedDays<'_> {
    let mut days = ListedDays::new();
    for object in listed {
        match partition_of_key(dataset, &object.key) {
            Some((day, PART_FILE)) => days.entry(day).or_default().0 = Some(object),
            Some((day, PART_DIGEST_FILE)) => days.entry(day).or_default().1 = Some(object),
            _ => {}
        }
    }
    days
}

/// The SHA-256 a bucket sidecar gives for `part`, if it was written for that very version.
fn sidecar_for(text: &[u8], part: &RemoteObject) -> Option<String> {
    let text = String::from_utf8_lossy(text);
    let (sha256, len, version) = parse_sidecar(&text)?;
    (version == Some(part.version.as_str()) && len == part.size).then_some(sha256)
}

/// Every partition of `dataset` in the bucket with its digest: the sidecar's when it names the
/// partition's version and size, else the file's bytes hashed.
fn list_remote(bucket: &Bucket, dataset: Dataset) -> Result<Vec<RemotePartition>, LakeError> {
    let listed = bucket.list(&format!("{}/", dataset.name()))?;
    let parts: Vec<(NaiveDate, &RemoteObject, Option<&RemoteObject>)> = listed_days(dataset, &listed)
        .into_iter()
        .filter_map(|(day, (part, sidecar))| Some((day, part?, sidecar)))
        .collect();
    let sidecar_keys: Vec<String> = parts.iter().filter_map(|(_, _, s)| s.map(|s| s.key.clone())).collect();
    let mut sidecars = bucket.get_all(&sidecar_keys, FETCH_CONCURRENCY)?.into_iter();
    let mut out = Vec::with_capacity(parts.len());
    for (date, part, sidecar) in parts {
        let text = if sidecar.is_some() { sidecars.next().flatten() } else { None };
        let sha256 = match text.and_then(|t| sidecar_for(&t, part)) {
            Some(sha256) => sha256,
            None => {
                let bytes = bucket.get(&part.key)?.ok_or_else(|| LakeError::Io {
                    path: PathBuf::from(&part.key),
                    source: io::Error::new(io::ErrorKind::NotFound, "removed from the bucket while listed"),
                })?;
                hex::encode(Sha256::digest(&bytes))
            }
        };
        out.push(RemotePartition { date, url: bucket.object_url(&part.key), sha256 });
    }
    Ok(out)
}

/// A sidecar's SHA-256, size and, in a bucket, the partition version it names.
fn parse_sidecar(text: &str) -> Option<(String, u64, Option<&str>)> {
    let mut fields = text.split_whitespace();
    let (sha256, len, version) = (fields.next()?, fields.next()?.parse().ok()?, fields.next());
    let valid = sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit());
    valid.then(|| (sha256.to_ascii_lowercase(), len, version))
}

/// Writes a sidecar through a temporary file and a rename; not synced: a lost or torn sidecar
/// only costs one more hash of its file.
fn write_sidecar(sidecar: &Path, sha256: &str, len: u64) -> io::Result<()> {
    let tmp = temporary_beside(sidecar);
    fs::write(&tmp, sidecar_text(sha256, len))?;
    fs::rename(&tmp, sidecar)
}

/// Partitions fetched from a bucket at once.
const FETCH_CONCURRENCY: usize = 8;

/// Folder beside the datasets that holds the ingest jobs' checkpoints (and the scheduler's lease).
pub(crate) const CHECKPOINTS_DIR: &str = "_checkpoints";

/// Folder beside the datasets that holds the rebuild's carried state.
const CARRIED_DIR: &str = "_carried";

impl Lake {
    /// A lake in the folder `root` (created on first write).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into(), bucket: None, pinned: None, remote: None }
    }

    /// A view of this lake that lists each dataset of a bucket at most once: the first read of a
    /// dataset brings its cached copies in line with the bucket, and later reads through the view
    /// (or its clones) read those copies without asking the bucket again. What a rebuild reads:
    /// one consistent listing per dataset, and one request per dataset instead of one per read.
    /// Writes through the view go to the bucket as always. A folder lake is its own view.
    pub fn pinned(&self) -> Self {
        let pinned = self.bucket.as_ref().map(|_| Arc::default());
        Self { pinned, ..self.clone() }
    }

    /// A [`pinned`](Lake::pinned) view in which `remote` datasets are read where they live, by an
    /// engine running elsewhere: they are listed once, their digests read from the bucket's
    /// sidecars, and their files never fetched to this machine ([`Lake::remote_partitions_up_to`];
    /// [`Lake::partitions`] refuses them). A folder lake has no remote datasets.
    pub fn pinned_remote(&self, remote: &[Dataset]) -> Self {
        let view = self.pinned();
        let remote = self
            .bucket
            .as_ref()
            .map(|_| Arc::new(RemoteDatasets { datasets: remote.to_vec(), listed: Default::default() }));
        Self { remote, ..view }
    }

    /// Whether this view reads `dataset` where it lives.
    pub fn is_remote(&self, dataset: Dataset) -> bool {
        self.remote.as_ref().is_some_and(|r| r.datasets.contains(&dataset))
    }

    /// A bucket lake's partitions of `dataset` up to and including `up_to` as the bucket holds
    /// them, with their digests; nothing is fetched but the digest sidecars (a partition whose
    /// sidecar does not name its version is read once to hash it). In a view with remote
    /// datasets, a remote dataset is listed once. `None` for a folder lake.
    pub fn remote_partitions_up_to(
        &self,
        dataset: Dataset,
        up_to: NaiveDate,
    ) -> Result<Option<Vec<RemotePartition>>, LakeError> {
        let Some(bucket) = &self.bucket else { return Ok(None) };
        let cached = self.remote.as_ref().filter(|r| r.datasets.contains(&dataset));
        let listed = match cached.and_then(|r| r.listed.lock().expect("remote datasets").get(&dataset).cloned()) {
            Some(listed) => listed,
            None => {
                let listed = list_remote(bucket, dataset)?;
                if let Some(remote) = cached {
                    remote.listed.lock().expect("remote datasets").insert(dataset, listed.clone());
                }
                listed
            }
        };
        Ok(Some(listed.into_iter().filter(|p| p.date <= up_to).collect()))
    }

    /// The lake at `location`: a folder, or a bucket (configured from the `AWS_*` variables) whose
    /// local copies are kept in `cache`.
    pub fn open(location: &LakeLocation, cache: &Path) -> Result<Self, LakeError> {
        Self::open_with(location, cache, &[])
    }

    /// [`Lake::open`], with S3 settings that override the `AWS_*` variables (pairs of
    /// `object_store` keys such as `aws_endpoint` and values): for tools and tests that configure
    /// the bucket without touching the process environment.
    pub fn open_with(location: &LakeLocation, cache: &Path, settings: &[(&str, &str)]) -> Result<Self, LakeError> {
        match location {
            LakeLocation::Folder(root) => Ok(Self::new(root)),
            LakeLocation::Bucket(url) => Ok(Self {
                root: cache.to_owned(),
                bucket: Some(Arc::new(Bucket::new(url, settings)?)),
                pinned: None,
                remote: None,
            }),
        }
    }

    /// Where the lake is, as the operator named it.
    pub fn location(&self) -> LakeLocation {
        match &self.bucket {
            Some(bucket) => LakeLocation::Bucket(bucket.url().clone()),
            None => LakeLocation::Folder(self.root.clone()),
        }
    }

    /// A bucket lake's bucket (`None` for a folder lake).
    pub fn bucket(&self) -> Option<&Arc<Bucket>> {
        self.bucket.as_ref()
    }

    /// The local folder: the lake itself, or a bucket lake's cache.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether the lake holds nothing yet (no partition, checkpoint or sidecar).
    pub fn is_empty(&self) -> Result<bool, LakeError> {
        match &self.bucket {
            Some(bucket) => Ok(bucket.list("")?.is_empty()),
            None => match fs::read_dir(&self.root) {
                Ok(mut entries) => Ok(entries.next().is_none()),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(true),
                Err(e) => Err(io_err(&self.root)(e)),
            },
        }
    }

    /// Folder of a dataset.
    pub fn dataset_dir(&self, dataset: Dataset) -> PathBuf {
        self.root.join(dataset.name())
    }

    /// Path of a day partition's file.
    pub fn partition_path(&self, dataset: Dataset, date: NaiveDate) -> PathBuf {
        self.dataset_dir(dataset).join(format!("date={date}")).join(PART_FILE)
    }

    /// The `s3://` address of a day partition's file in a bucket lake (`None` for a folder lake):
    /// where an engine running on other machines reads it.
    pub fn partition_url(&self, dataset: Dataset, date: NaiveDate) -> Option<String> {
        Some(self.bucket.as_ref()?.object_url(&partition_key(dataset, date)))
    }

    /// Writes (or replaces) one day of a dataset atomically: the rows go to a temporary file in
    /// the partition folder, which is synced and then renamed over `part-0.parquet`. In a bucket
    /// lake the temporary file is uploaded (then its sidecar) before the rename, so a failed
    /// upload changes nothing.
    pub fn write_partition<R: Row>(&self, date: NaiveDate, rows: &[R]) -> Result<PathBuf, LakeError> {
        let path = self.partition_path(R::DATASET, date);
        let dir = path.parent().expect("partition path has a parent");
        fs::create_dir_all(dir).map_err(io_err(dir))?;
        let tmp = temporary_beside(&path);
        let file = fs::File::create(&tmp).map_err(io_err(&tmp))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(256 * 1024))
            .build();
        let parquet_err = |source| LakeError::Parquet { path: path.clone(), source };
        let hashing = HashingWriter { inner: BufWriter::new(file), hasher: Sha256::new(), len: 0 };
        let mut writer = ArrowWriter::try_new(hashing, R::schema(), Some(props)).map_err(parquet_err)?;
        for chunk in rows.chunks(256 * 1024) {
            writer.write(&R::to_batch(chunk)).map_err(parquet_err)?;
        }
        let hashing = writer.into_inner().map_err(parquet_err)?;
        let (sha256, len) = (hex::encode(hashing.hasher.finalize()), hashing.len);
        let file = hashing.inner.into_inner().map_err(|e| io_err(&tmp)(e.into_error()))?;
        file.sync_all().map_err(io_err(&tmp))?;
        // A bucket lake uploads first: its cache only ever holds versions the bucket has, so a
        // failed upload leaves the cache (and the bucket) as they were.
        let version = match &self.bucket {
            Some(bucket) => {
                let uploaded = bucket.upload(&partition_key(R::DATASET, date), &tmp).and_then(|version| {
                    let sidecar = format!("{sha256} {len} {version}\n");
                    bucket.put(&sidecar_key(R::DATASET, date), sidecar.into_bytes()).map(|_| version)
                });
                match uploaded {
                    Ok(version) => Some(version),
                    Err(e) => {
                        let _ = fs::remove_file(&tmp);
                        return Err(e.into());
                    }
                }
            }
            None => None,
        };
        let version_file = dir.join(PART_VERSION_FILE);
        if version.is_some() {
            let _ = fs::remove_file(&version_file);
        }
        fs::rename(&tmp, &path).map_err(io_err(&path))?;
        let sidecar = dir.join(PART_DIGEST_FILE);
        write_sidecar(&sidecar, &sha256, len).map_err(io_err(&sidecar))?;
        if let Some(version) = version {
            write_version_file(&version_file, &version, len).map_err(io_err(&version_file))?;
        }
        Ok(path)
    }

    /// Reads one day of a dataset back as typed rows; a missing partition has none.
    pub fn read_partition<R: Row>(&self, date: NaiveDate) -> Result<Vec<R>, LakeError> {
        if self.bucket.is_some() {
            self.sync_from_bucket(R::DATASET, &format!("date={date}/"))?;
        }
        let path = self.partition_path(R::DATASET, date);
        let file = match fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_err(&path)(e)),
        };
        let parquet_err = |source| LakeError::Parquet { path: path.clone(), source };
        let reader = ParquetRecordBatchReaderBuilder::try_new(file).and_then(|b| b.build()).map_err(parquet_err)?;
        let mut rows = Vec::new();
        for batch in reader {
            let batch = batch.map_err(|e| parquet_err(e.into()))?;
            rows.extend(R::from_batch(&batch).map_err(|source| LakeError::Schema { path: path.clone(), source })?);
        }
        Ok(rows)
    }

    /// Folder of the ingest jobs' checkpoints.
    pub fn checkpoints_dir(&self) -> PathBuf {
        self.root.join(CHECKPOINTS_DIR)
    }

    /// Takes the lease `name` (`scheduler`): refused while another process, on this machine or,
    /// for a bucket lake, on any machine, holds it (module [`crate::lease`]). Released when the
    /// [`Lease`] is dropped, or by the OS or the lease's expiry when the process dies.
    pub fn lease(&self, name: &str) -> Result<Lease, LakeError> {
        self.lease_for(name, LEASE_DURATION)
    }

    /// [`Lake::lease`] with a bucket lease lasting `duration` between renewals (tests shorten it).
    pub fn lease_for(&self, name: &str, duration: std::time::Duration) -> Result<Lease, LakeError> {
        match &self.bucket {
            Some(bucket) => Lease::bucket(name, Arc::clone(bucket), duration),
            None => Lease::folder(name, &self.checkpoints_dir()),
        }
    }

    /// Reads a job's checkpoint; `None` before its first run.
    pub fn read_checkpoint<T: DeserializeOwned>(&self, job: &str) -> Result<Option<T>, LakeError> {
        let path = self.checkpoints_dir().join(format!("{job}.json"));
        if let Some(bucket) = &self.bucket {
            let Some(bytes) = bucket.get(&format!("{CHECKPOINTS_DIR}/{job}.json"))? else { return Ok(None) };
            return serde_json::from_slice(&bytes).map(Some).map_err(|source| LakeError::Checkpoint { path, source });
        }
        match fs::read(&path) {
            Ok(bytes) => {
                serde_json::from_slice(&bytes).map(Some).map_err(|source| LakeError::Checkpoint { path, source })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path)(e)),
        }
    }

    /// Writes a job's checkpoint atomically (temporary file, sync, rename), so a crash leaves
    /// either the old checkpoint or the new one.
    pub fn write_checkpoint<T: Serialize>(&self, job: &str, checkpoint: &T) -> Result<PathBuf, LakeError> {
        let dir = self.checkpoints_dir();
        let path = dir.join(format!("{job}.json"));
        let bytes = serde_json::to_vec_pretty(checkpoint)
            .map_err(|source| LakeError::Checkpoint { path: path.clone(), source })?;
        match &self.bucket {
            Some(bucket) => {
                bucket.put(&format!("{CHECKPOINTS_DIR}/{job}.json"), bytes)?;
            }
            None => write_atomically(&dir, &path, &bytes)?,
        }
        Ok(path)
    }

    /// Appends `entry` to the append-only journal `journal` under `id` (unique within the
    /// journal): a file (an object, on a bucket) of its own, written whole once and never
    /// rewritten (`create_new` after a sync on a folder, `If-None-Match` on a bucket), so two
    /// writers never overwrite each other's entries and a crash leaves every entry written so far.
    /// An entry already there under `id` is left as it is (`false`).
    pub fn journal_append<T: Serialize>(&self, journal: &str, id: &str, entry: &T) -> Result<bool, LakeError> {
        let dir = self.journal_dir(journal);
        let path = dir.join(format!("{id}.json"));
        let bytes = serde_json::to_vec(entry).map_err(|source| LakeError::Checkpoint { path: path.clone(), source })?;
        if let Some(bucket) = &self.bucket {
            let written = bucket.put_if(&journal_key(journal, id), bytes, crate::bucket::Condition::Absent)?;
            return Ok(written.is_some());
        }
        fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let tmp = dir.join(format!(".{id}.{}.tmp", std::process::id()));
        let mut file = fs::File::create(&tmp).map_err(io_err(&tmp))?;
        file.write_all(&bytes).and_then(|()| file.sync_all()).map_err(io_err(&tmp))?;
        // A hard link fails when the name is taken: the entry appears whole, once.
        let linked = fs::hard_link(&tmp, &path);
        let _ = fs::remove_file(&tmp);
        match linked {
            Ok(()) => {
                fs::File::open(&dir).and_then(|d| d.sync_all()).map_err(io_err(&dir))?;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(io_err(&path)(e)),
        }
    }

    /// Every entry of the journal `journal`, by id in id order.
    pub fn journal_entries<T: DeserializeOwned>(&self, journal: &str) -> Result<Vec<(String, T)>, LakeError> {
        let dir = self.journal_dir(journal);
        let mut out = Vec::new();
        let read = |id: String, bytes: &[u8], out: &mut Vec<(String, T)>| -> Result<(), LakeError> {
            let path = dir.join(format!("{id}.json"));
            let entry = serde_json::from_slice(bytes).map_err(|source| LakeError::Checkpoint { path, source })?;
            out.push((id, entry));
            Ok(())
        };
        if let Some(bucket) = &self.bucket {
            let prefix = format!("{CHECKPOINTS_DIR}/{journal}.journal/");
            for object in bucket.list(&prefix)? {
                let Some(id) = object.key.strip_prefix(&prefix).and_then(|k| k.strip_suffix(".json")) else { continue };
                if let Some(bytes) = bucket.get(&object.key)? {
                    read(id.to_owned(), &bytes, &mut out)?;
                }
            }
            return Ok(out);
        }
        let mut names: Vec<String> = match fs::read_dir(&dir) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".json")).map(str::to_owned))
                .filter(|n| !n.starts_with('.'))
                .collect(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io_err(&dir)(e)),
        };
        names.sort();
        for id in names {
            let path = dir.join(format!("{id}.json"));
            let bytes = fs::read(&path).map_err(io_err(&path))?;
            read(id, &bytes, &mut out)?;
        }
        Ok(out)
    }

    /// Removes the entries `ids` of the journal `journal` (settled business: their effect is
    /// elsewhere in the lake). Entries are removed, never rewritten.
    pub fn journal_remove(&self, journal: &str, ids: &[String]) -> Result<(), LakeError> {
        for id in ids {
            match &self.bucket {
                Some(bucket) => bucket.delete(&journal_key(journal, id))?,
                None => {
                    let path = self.journal_dir(journal).join(format!("{id}.json"));
                    match fs::remove_file(&path) {
                        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_err(&path)(e)),
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }

    fn journal_dir(&self, journal: &str) -> PathBuf {
        self.checkpoints_dir().join(format!("{journal}.journal"))
    }

    /// Every partition of a dataset, oldest first; a missing dataset has none. In a bucket lake,
    /// the cache is first brought in line with the bucket (see the module's documentation), so
    /// the paths are local copies of the bucket's current partitions.
    pub fn partitions(&self, dataset: Dataset) -> Result<Vec<PartitionFile>, LakeError> {
        if self.is_remote(dataset) {
            return Err(LakeError::ReadRemotely(dataset.name()));
        }
        if self.bucket.is_some() {
            self.sync_from_bucket(dataset, "")?;
        }
        self.local_partitions(dataset)
    }

    /// Partitions of a dataset up to and including `up_to`.
    pub fn partitions_up_to(&self, dataset: Dataset, up_to: NaiveDate) -> Result<Vec<PartitionFile>, LakeError> {
        let mut parts = self.partitions(dataset)?;
        parts.retain(|p| p.date <= up_to);
        Ok(parts)
    }

    /// The days a dataset has a partition for, oldest first: a listing, which fetches nothing.
    pub fn partition_days(&self, dataset: Dataset) -> Result<Vec<NaiveDate>, LakeError> {
        if self.is_remote(dataset) {
            let parts = self.remote_partitions_up_to(dataset, NaiveDate::MAX)?.unwrap_or_default();
            return Ok(parts.into_iter().map(|p| p.date).collect());
        }
        let pinned = self.pinned.as_ref().is_some_and(|p| p.lock().expect("pinned datasets").contains(&dataset));
        match &self.bucket {
            Some(bucket) if !pinned => {
                let listed = bucket.list(&format!("{}/", dataset.name()))?;
                let days = listed
                    .iter()
                    .filter_map(|o| partition_of_key(dataset, &o.key))
                    .filter(|(_, file)| *file == PART_FILE);
                let mut days: Vec<NaiveDate> = days.map(|(day, _)| day).collect();
                days.dedup();
                Ok(days)
            }
            _ => Ok(self.partitions(dataset)?.into_iter().map(|p| p.date).collect()),
        }
    }

    /// The days that have a partition in any source dataset, oldest first.
    pub fn source_days(&self) -> Result<Vec<NaiveDate>, LakeError> {
        let mut days = Vec::new();
        for dataset in Dataset::ALL.iter().filter(|d| !d.is_derived()) {
            days.extend(self.partition_days(*dataset)?);
        }
        days.sort_unstable();
        days.dedup();
        Ok(days)
    }

    /// SHA-256 over the contents of every partition up to `up_to` (derived datasets only strictly
    /// before it), in a fixed order: two lakes with the same data have the same digest whatever
    /// their paths or file times. Each file's own SHA-256 comes from its digest sidecar when that
    /// is valid (see the module's documentation), so a day's digest reads partition metadata, not
    /// the lake's bytes.
    pub fn input_digest(&self, up_to: NaiveDate) -> Result<String, LakeError> {
        let mut hasher = Sha256::new();
        for dataset in Dataset::ALL {
            let digests: Vec<(NaiveDate, String)> = if self.is_remote(*dataset) {
                let parts = self.remote_partitions_up_to(*dataset, up_to)?.unwrap_or_default();
                parts.into_iter().map(|p| (p.date, p.sha256)).collect()
            } else {
                let parts = self.partitions_up_to(*dataset, up_to)?;
                parts.iter().map(|p| Ok((p.date, self.partition_digest(&p.path)?))).collect::<Result<_, LakeError>>()?
            };
            for (date, file_digest) in digests {
                if dataset.is_derived() && date >= up_to {
                    continue;
                }
                hasher.update(format!("{}/{date}\n{file_digest}\n", dataset.name()).as_bytes());
            }
        }
        Ok(hex::encode(hasher.finalize()))
    }

    /// SHA-256 over one dataset's partitions up to and including `up_to` (each partition's day and
    /// file digest, from the sidecars): what a fold over the dataset up to that day has read, so a
    /// partition that arrived late, was rewritten or was removed changes it.
    pub fn dataset_digest(&self, dataset: Dataset, up_to: NaiveDate) -> Result<String, LakeError> {
        let mut hasher = Sha256::new();
        for part in self.partitions_up_to(dataset, up_to)? {
            let file_digest = self.partition_digest(&part.path)?;
            hasher.update(format!("{}\n{file_digest}\n", part.date).as_bytes());
        }
        Ok(hex::encode(hasher.finalize()))
    }

    /// Folder of the rebuild's carried state (folds over history kept from one day to the next;
    /// see `agentrep-pipeline`'s `carry` module). Derived and disposable: deleting it only makes
    /// the next rebuild fold from every partition.
    pub fn carried_dir(&self) -> PathBuf {
        self.root.join(CARRIED_DIR)
    }

    /// The SHA-256 of one partition file: from its sidecar when valid, else hashed from its bytes
    /// (and the sidecar rewritten, when the lake is writable).
    fn partition_digest(&self, path: &Path) -> Result<String, LakeError> {
        let sidecar = path.with_file_name(PART_DIGEST_FILE);
        if let Some(sha256) = sidecar_digest(path, &sidecar) {
            return Ok(sha256);
        }
        let mut file = fs::File::open(path).map_err(io_err(path))?;
        let mut hashing = HashingWriter { inner: io::sink(), hasher: Sha256::new(), len: 0 };
        io::copy(&mut file, &mut hashing).map_err(io_err(path))?;
        let sha256 = hex::encode(hashing.hasher.finalize());
        // A read-only lake keeps hashing; nothing else depends on the sidecar being there.
        let _ = write_sidecar(&sidecar, &sha256, hashing.len);
        Ok(sha256)
    }

    /// Writes a small sidecar file next to the lake (e.g. ground-truth labels) atomically; in a
    /// bucket lake, to the bucket too.
    pub fn write_sidecar(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, LakeError> {
        let path = self.root.join(name);
        write_atomically(&self.root, &path, bytes)?;
        if let Some(bucket) = &self.bucket {
            bucket.put(name, bytes.to_vec())?;
        }
        Ok(path)
    }

    /// Brings the cached copies of a bucket lake's partitions of `dataset` (those whose folder
    /// name starts with `within`, e.g. `date=2026-11-01/`) in line with the bucket.
    fn sync_from_bucket(&self, dataset: Dataset, within: &str) -> Result<(), LakeError> {
        let bucket = self.bucket.as_ref().expect("a bucket lake");
        if let Some(pinned) = &self.pinned {
            if pinned.lock().expect("pinned datasets").contains(&dataset) {
                return Ok(());
            }
            if within.is_empty() {
                self.sync_from_bucket_unpinned(bucket, dataset, within)?;
                pinned.lock().expect("pinned datasets").insert(dataset);
                return Ok(());
            }
        }
        self.sync_from_bucket_unpinned(bucket, dataset, within)
    }

    fn sync_from_bucket_unpinned(&self, bucket: &Bucket, dataset: Dataset, within: &str) -> Result<(), LakeError> {
        let listed = bucket.list(&format!("{}/{within}", dataset.name()))?;
        let in_bucket = listed_days(dataset, &listed);
        // Cached partitions the bucket no longer has leave the cache.
        for cached in self.local_partitions(dataset)? {
            let in_scope = format!("date={}/", cached.date).starts_with(within);
            if in_scope && !in_bucket.get(&cached.date).is_some_and(|(part, _)| part.is_some()) {
                let dir = cached.path.parent().expect("partition path has a parent");
                fs::remove_dir_all(dir).map_err(io_err(dir))?;
            }
        }
        // The partitions whose copy is not the bucket's version, fetched together.
        let mut stale = Vec::new();
        for (day, (part, sidecar)) in in_bucket {
            let Some(part) = part else { continue };
            let path = self.partition_path(dataset, day);
            let version_file = path.with_file_name(PART_VERSION_FILE);
            if read_version_file(&version_file).is_some_and(|(v, size)| v == part.version && size == part.size)
                && fs::metadata(&path).is_ok_and(|m| m.len() == part.size)
            {
                continue;
            }
            let _ = fs::remove_file(&version_file);
            stale.push((part, sidecar, path));
        }
        if stale.is_empty() {
            return Ok(());
        }
        let files: Vec<(String, PathBuf)> =
            stale.iter().map(|(part, _, path)| (part.key.clone(), path.clone())).collect();
        let fetched = bucket.download_all(&files, FETCH_CONCURRENCY)?;
        let sidecar_keys: Vec<String> =
            stale.iter().filter_map(|(_, sidecar, _)| sidecar.map(|s| s.key.clone())).collect();
        let mut sidecars = bucket.get_all(&sidecar_keys, FETCH_CONCURRENCY)?.into_iter();
        for ((_, sidecar, path), fetched) in stale.iter().zip(fetched) {
            let sidecar_text = if sidecar.is_some() { sidecars.next().flatten() } else { None };
            let Some(fetched) = fetched else { continue };
            // The bucket's sidecar counts when it names this very version; otherwise the copy is
            // hashed when a digest is first asked for.
            let digest_file = path.with_file_name(PART_DIGEST_FILE);
            let _ = fs::remove_file(&digest_file);
            if let Some(sha256) = sidecar_text.and_then(|text| sidecar_for(&text, &fetched)) {
                write_sidecar(&digest_file, &sha256, fetched.size).map_err(io_err(&digest_file))?;
            }
            let version_file = path.with_file_name(PART_VERSION_FILE);
            write_version_file(&version_file, &fetched.version, fetched.size).map_err(io_err(&version_file))?;
        }
        Ok(())
    }

    /// The partitions of a dataset in the local folder (the lake's own, or a bucket lake's cache).
    fn local_partitions(&self, dataset: Dataset) -> Result<Vec<PartitionFile>, LakeError> {
        let dir = self.dataset_dir(dataset);
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_err(&dir)(e)),
        };
        let mut parts = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io_err(&dir))?;
            let name = entry.file_name();
            let Some(date) = name.to_str().and_then(|n| n.strip_prefix("date=")) else { continue };
            let Ok(date) = date.parse::<NaiveDate>() else { continue };
            let path = entry.path().join(PART_FILE);
            if path.is_file() {
                parts.push(PartitionFile { date, path });
            }
        }
        parts.sort();
        Ok(parts)
    }
}

/// The bucket key of a day partition's file, below the lake's prefix.
fn partition_key(dataset: Dataset, date: NaiveDate) -> String {
    format!("{}/date={date}/{PART_FILE}", dataset.name())
}

/// The bucket key of a day partition's digest sidecar.
fn sidecar_key(dataset: Dataset, date: NaiveDate) -> String {
    format!("{}/date={date}/{PART_DIGEST_FILE}", dataset.name())
}

/// The day and file name of a key of `dataset` laid out as `<dataset>/date=<day>/<file>`.
fn partition_of_key(dataset: Dataset, key: &str) -> Option<(NaiveDate, &str)> {
    let rest = key.strip_prefix(dataset.name())?.strip_prefix("/date=")?;
    let (day, file) = rest.split_once('/')?;
    Some((day.parse().ok()?, file))
}

fn write_version_file(path: &Path, version: &str, len: u64) -> io::Result<()> {
    let tmp = temporary_beside(path);
    fs::write(&tmp, format!("{version} {len}\n"))?;
    fs::rename(&tmp, path)
}

fn read_version_file(path: &Path) -> Option<(String, u64)> {
    let text = fs::read_to_string(path).ok()?;
    let (version, len) = text.trim_end().rsplit_once(' ')?;
    Some((version.to_owned(), len.parse().ok()?))
}

/// Writes `bytes` to `path` in `dir` through a synced temporary file and a rename.
/// The bucket key of a journal entry.
fn journal_key(journal: &str, id: &str) -> String {
    format!("{CHECKPOINTS_DIR}/{journal}.journal/{id}.json")
}

fn write_atomically(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), LakeError> {
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut file = fs::File::create(&tmp).map_err(io_err(&tmp))?;
    file.write_all(bytes).map_err(io_err(&tmp))?;
    file.sync_all().map_err(io_err(&tmp))?;
    fs::rename(&tmp, path).map_err(io_err(path))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Timestamp;
    use crate::datasets::ProofRow;

    /// The journal is append-only: entries from two writers (two handles on one lake) never
    /// overwrite each other, an id is written once, and removed entries are gone.
    #[test]
    fn journal_entries_are_written_once_and_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (Lake::new(dir.path()), Lake::new(dir.path()));
        assert!(a.journal_entries::<u32>("j").unwrap().is_empty(), "no journal yet");
        assert!(a.journal_append("j", "0x01", &1u32).unwrap());
        assert!(b.journal_append("j", "0x02", &2u32).unwrap());
        assert!(!b.journal_append("j", "0x01", &99u32).unwrap(), "an id is written once");
        let entries: Vec<(String, u32)> = a.journal_entries("j").unwrap();
        assert_eq!(entries, [("0x01".to_owned(), 1), ("0x02".to_owned(), 2)]);
        b.journal_remove("j", &["0x01".to_owned(), "0x09".to_owned()]).unwrap();
        assert_eq!(a.journal_entries::<u32>("j").unwrap(), [("0x02".to_owned(), 2)]);
    }

    fn proof(addr: &str) -> ProofRow {
        ProofRow {
            address: addr.into(),
            proof_type: "ens".into(),
            source: "test".into(),
            verified_at: Timestamp::from_secs(1),
        }
    }

    #[test]
    fn rewriting_a_day_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let lake = Lake::new(dir.path());
        let day = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
        lake.write_partition(day, &[proof("0x01"), proof("0x02")]).unwrap();
        let first = lake.input_digest(day).unwrap();
        lake.write_partition(day, &[proof("0x03")]).unwrap();
        let parts = lake.partitions(Dataset::IdentityProofs).unwrap();
        assert_eq!(parts.len(), 1);
        let mut files: Vec<String> = fs::read_dir(parts[0].path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        files.sort();
        assert_eq!(files, [PART_FILE, PART_DIGEST_FILE], "no temporary file left behind");
        assert_ne!(first, lake.input_digest(day).unwrap());
    }

    #[test]
    fn partitions_read_back_as_written() {
        use crate::datasets::{AgentCardRow, ProbeRow};
        let dir = tempfile::tempdir().unwrap();
        let lake = Lake::new(dir.path());
        let day = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
        let probes = vec![
            ProbeRow {
                resource: "https://a.example/x".into(),
                probed_at: Timestamp::from_secs(7),
                status: Some(402),
                ok: true,
                latency_ms: None,
                error: None,
                offer_version: Some(2),
                offer_matches: Some(false),
                offer_pay_tos: vec!["0x0000000000000000000000000000000000000001".into()],
            },
            ProbeRow {
                resource: "https://b.example/y".into(),
                probed_at: Timestamp::from_secs(8),
                status: None,
                ok: false,
                latency_ms: Some(3),
                error: Some("timeout".into()),
                offer_version: None,
                offer_matches: None,
                offer_pay_tos: Vec::new(),
            },
        ];
        lake.write_partition(day, &probes).unwrap();
        assert_eq!(lake.read_partition::<ProbeRow>(day).unwrap(), probes);
        let cards = vec![AgentCardRow {
            agent_id: 3,
            uri: "data:application/json,{}".into(),
            fetched_at: Timestamp::from_secs(9),
            name: None,
            description: Some("d".into()),
            endpoints: vec!["https://e.example".into(), String::new()],
            wallets: vec![],
            links_back: true,
            digest: None,
            error: None,
        }];
        lake.write_partition(day, &cards).unwrap();
        assert_eq!(lake.read_partition::<AgentCardRow>(day).unwrap(), cards);
        assert!(lake.read_partition::<ProbeRow>(day.succ_opt().unwrap()).unwrap().is_empty());
    }

    #[test]
    fn checkpoints_round_trip_and_start_empty() {
        let dir = tempfile::tempdir().unwrap();
        let lake = Lake::new(dir.path());
        assert_eq!(lake.read_checkpoint::<u64>("settlements").unwrap(), None);
        lake.write_checkpoint("settlements", &42u64).unwrap();
        lake.write_checkpoint("settlements", &43u64).unwrap();
        assert_eq!(lake.read_checkpoint::<u64>("settlements").unwrap(), Some(43));
        assert_eq!(fs::read_dir(lake.checkpoints_dir()).unwrap().count(), 1, "no temporary file left behind");
        fs::write(lake.checkpoints_dir().join("bad.json"), b"{").unwrap();
        assert!(matches!(lake.read_checkpoint::<u64>("bad"), Err(LakeError::Checkpoint { .. })));
    }

    #[test]
    fn a_stale_or_missing_sidecar_is_hashed_again() {
        let dir = tempfile::tempdir().unwrap();
        let lake = Lake::new(dir.path());
        let day = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
        let path = lake.write_partition(day, &[proof("0x01")]).unwrap();
        let sidecar = path.with_file_name(PART_DIGEST_FILE);
        let written = lake.input_digest(day).unwrap();

        // Another tool replaces the file: the sidecar is older than the file, so it is not used.
        let other = tempfile::tempdir().unwrap();
        let replacement = Lake::new(other.path()).write_partition(day, &[proof("0x02")]).unwrap();
        let stale = fs::read(&sidecar).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(10));
        fs::copy(&replacement, &path).unwrap();
        let replaced = lake.input_digest(day).unwrap();
        assert_ne!(replaced, written, "a stale sidecar must not stand for a new file");
        assert_eq!(replaced, Lake::new(other.path()).input_digest(day).unwrap());
        assert_ne!(fs::read(&sidecar).unwrap(), stale, "the sidecar was rewritten");

        // A missing or garbled sidecar: the same digest, from the bytes.
        fs::remove_file(&sidecar).unwrap();
        assert_eq!(lake.input_digest(day).unwrap(), replaced);
        fs::write(&sidecar, b"not a digest").unwrap();
        assert_eq!(lake.input_digest(day).unwrap(), replaced);
        // A sidecar naming another size is refused even when it is newer.
        fs::write(&sidecar, sidecar_text(&"0".repeat(64), fs::metadata(&path).unwrap().len() + 1)).unwrap();
        assert_eq!(lake.input_digest(day).unwrap(), replaced);
    }

    #[test]
    fn digest_ignores_later_days_and_location() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let d1 = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
        let d2 = d1.succ_opt().unwrap();
        for dir in [a.path(), b.path()] {
            Lake::new(dir).write_partition(d1, &[proof("0x01")]).unwrap();
        }
        Lake::new(b.path()).write_partition(d2, &[proof("0x02")]).unwrap();
        assert_eq!(Lake::new(a.path()).input_digest(d1).unwrap(), Lake::new(b.path()).input_digest(d1).unwrap());
    }
}
