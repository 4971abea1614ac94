//! An S3-compatible bucket behind a lake, through the `object_store` crate, called synchronously:
//! the lake's callers are synchronous code (the rebuild's passes, ingest sources between awaits),
//! so the bucket owns a small Tokio runtime and blocks on it.

use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use object_store::aws::AmazonS3Builder;
use object_store::path::Path as Key;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion, WriteMultipart};
use tokio::runtime::Runtime;

use crate::location::BucketUrl;

/// A bucket call that failed, with the key (or prefix) it concerns.
#[derive(Debug, thiserror::Error)]
#[error("bucket {url}, key {key}: {source}")]
pub struct BucketError {
    url: String,
    key: String,
    #[source]
    source: Box<dyn std::error::Error + Send + Sync>,
}

/// What a listing or an upload tells of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteObject {
    /// The key below the lake's prefix (`settlements/date=2026-11-01/part-0.parquet`).
    pub key: String,
    /// Size in bytes.
    pub size: u64,
    /// What changes whenever the object does: its ETag, or its time and size where the store
    /// gives no ETag.
    pub version: String,
}

/// A small object read with what a conditional write over it needs.
#[derive(Debug, Clone)]
pub struct Versioned {
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// Its ETag (a conditional write names it).
    pub e_tag: Option<String>,
    /// When the store last wrote it, by the store's clock.
    pub modified: chrono::DateTime<chrono::Utc>,
}

/// When a conditional write may happen.
#[derive(Debug, Clone, Copy)]
pub enum Condition<'a> {
    /// Only if there is no such object (`If-None-Match: *`).
    Absent,
    /// Only if the object is still the version with this ETag (`If-Match`).
    At(&'a str),
}

/// Files bigger than this are uploaded in parts, so no upload holds a whole partition in memory.
const MULTIPART_ABOVE: u64 = 16 * 1024 * 1024;

/// One lake prefix of one bucket.
pub struct Bucket {
    url: BucketUrl,
    store: Arc<dyn ObjectStore>,
    /// Always `Some` until the bucket is dropped (see `Drop`).
    runtime: Option<Runtime>,
}

impl std::fmt::Debug for Bucket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bucket").field("url", &self.url.to_string()).finish_non_exhaustive()
    }
}

/// A bucket may be dropped inside an async context (`agentrep schedule` owns its lake there),
/// where dropping a runtime the ordinary way panics: its worker threads are left to stop on their
/// own. Nothing is in flight by then, since every call blocks until it is done.
impl Drop for Bucket {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Bucket {
    /// The bucket of `url`, configured from the `AWS_*` variables (`AWS_ENDPOINT_URL`,
    /// `AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_ALLOW_HTTP`…), then from
    /// `settings`: pairs of `object_store`'s S3 keys (`aws_endpoint`, `aws_allow_http`…) and values.
    pub fn new(url: &BucketUrl, settings: &[(&str, &str)]) -> Result<Self, BucketError> {
        let err = |source: Box<dyn std::error::Error + Send + Sync>| BucketError {
            url: url.to_string(),
            key: String::new(),
            source,
        };
        let mut builder = AmazonS3Builder::from_env();
        for (key, value) in settings {
            let key = key.parse().map_err(|e: object_store::Error| err(e.into()))?;
            builder = builder.with_config(key, *value);
        }
        let store = builder.with_bucket_name(&url.bucket).build().map_err(|e| err(e.into()))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("lake-bucket")
            .enable_all()
            .build()
            .map_err(|e| err(e.into()))?;
        Ok(Self { url: url.clone(), store: Arc::new(store), runtime: Some(runtime) })
    }

    /// The bucket's address, for messages.
    pub fn url(&self) -> &BucketUrl {
        &self.url
    }

    /// The object store client itself, for engines that read the bucket with the lake's settings.
    pub fn object_store(&self) -> Arc<dyn ObjectStore> {
        Arc::clone(&self.store)
    }

    /// The `s3://` address of an object, `relative` to the lake's prefix.
    pub fn object_url(&self, relative: &str) -> String {
        format!("s3://{}/{}", self.url.bucket, self.key(relative))
    }

    fn key(&self, relative: &str) -> Key {
        if self.url.prefix.is_empty() {
            Key::from(relative)
        } else {
            Key::from(format!("{}/{relative}", self.url.prefix))
        }
    }

    fn relative<'a>(&self, key: &'a Key) -> &'a str {
        let key = key.as_ref();
        if self.url.prefix.is_empty() {
            key
        } else {
            key.strip_prefix(&self.url.prefix).map_or(key, |k| k.trim_start_matches('/'))
        }
    }

    fn error(&self, key: &str, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> BucketError {
        BucketError { url: self.url.to_string(), key: key.to_owned(), source: source.into() }
    }

    /// Runs `future` to completion on the bucket's runtime, also when the caller is itself inside
    /// a Tokio runtime (an ingest source), where blocking in place is not allowed.
    fn block_on<F>(&self, future: F) -> F::Output
    where
        F: Future + Send,
        F::Output: Send,
    {
        let runtime = self.runtime.as_ref().expect("a bucket's runtime lives as long as the bucket");
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|scope| scope.spawn(|| runtime.block_on(future)).join().expect("a bucket call panicked"))
        } else {
            runtime.block_on(future)
        }
    }

    /// Every object under `dir` (relative to the lake's prefix), in key order.
    pub fn list(&self, dir: &str) -> Result<Vec<RemoteObject>, BucketError> {
        use futures::TryStreamExt;
        let prefix = self.key(dir);
        let metas: Vec<object_store::ObjectMeta> =
            self.block_on(self.store.list(Some(&prefix)).try_collect()).map_err(|e| self.error(dir, e))?;
        let mut objects: Vec<RemoteObject> = metas
            .into_iter()
            .map(|meta| RemoteObject {
                key: self.relative(&meta.location).to_owned(),
                size: meta.size,
                version: version_of(meta.e_tag.as_deref(), meta.last_modified, meta.size),
            })
            .collect();
        objects.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(objects)
    }

    /// An object's bytes; `None` when there is no such object.
    pub fn get(&self, relative: &str) -> Result<Option<Vec<u8>>, BucketError> {
        Ok(self.get_versioned(relative)?.map(|object| object.bytes))
    }

    /// Writes `bytes` as one object (a PUT, which readers see whole or not at all); its version.
    pub fn put(&self, relative: &str, bytes: Vec<u8>) -> Result<String, BucketError> {
        let key = self.key(relative);
        let size = bytes.len() as u64;
        let put = self.block_on(self.store.put(&key, PutPayload::from(bytes))).map_err(|e| self.error(relative, e))?;
        Ok(version_of(put.e_tag.as_deref(), chrono::Utc::now(), size))
    }

    /// An object's bytes with its ETag and the store's time of its last write; `None` when there
    /// is no such object.
    pub fn get_versioned(&self, relative: &str) -> Result<Option<Versioned>, BucketError> {
        let key = self.key(relative);
        let got = self.block_on(async {
            match self.store.get(&key).await {
                Ok(result) => {
                    let (e_tag, modified) = (result.meta.e_tag.clone(), result.meta.last_modified);
                    let bytes = result.bytes().await?.to_vec();
                    Ok(Some(Versioned { bytes, e_tag, modified }))
                }
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        });
        got.map_err(|e| self.error(relative, e))
    }

    /// Writes `bytes` as one object only under `condition`: the new version's ETag, or `None` when
    /// the condition did not hold (another writer came first). A store that answers without an
    /// ETag cannot take conditional writes, and is an error.
    pub fn put_if(
        &self,
        relative: &str,
        bytes: Vec<u8>,
        condition: Condition<'_>,
    ) -> Result<Option<String>, BucketError> {
        let key = self.key(relative);
        let mode = match condition {
            Condition::Absent => PutMode::Create,
            Condition::At(e_tag) => PutMode::Update(UpdateVersion { e_tag: Some(e_tag.to_owned()), version: None }),
        };
        let opts = PutOptions { mode, ..PutOptions::default() };
        match self.block_on(self.store.put_opts(&key, PutPayload::from(bytes), opts)) {
            Ok(put) => match put.e_tag {
                Some(e_tag) => Ok(Some(e_tag)),
                None => Err(self.error(relative, "the store gave no ETag, so it cannot take conditional writes")),
            },
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => Ok(None),
            Err(e) => Err(self.error(relative, e)),
        }
    }

    /// Deletes one object (nothing happens when there is none).
    pub fn delete(&self, relative: &str) -> Result<(), BucketError> {
        let key = self.key(relative);
        match self.block_on(self.store.delete(&key)) {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(self.error(relative, e)),
        }
    }

    /// Uploads a local file as one object: one PUT when small, a multipart upload (completed
    /// atomically, aborted on failure) when large; its version.
    pub fn upload(&self, relative: &str, from: &Path) -> Result<String, BucketError> {
        let key = self.key(relative);
        self.block_on(upload_file(self.store.as_ref(), &key, from)).map_err(|e| self.error(relative, e))
    }

    /// Uploads many local files, `concurrency` at a time: `(key below the prefix, file)` pairs.
    pub fn upload_all(&self, files: &[(String, PathBuf)], concurrency: usize) -> Result<(), BucketError> {
        use futures::{StreamExt, TryStreamExt};
        let store = self.store.as_ref();
        let uploads = futures::stream::iter(files.iter().map(|(relative, from)| {
            let key = self.key(relative);
            async move { upload_file(store, &key, from).await.map_err(|e| self.error(relative, e)) }
        }));
        self.block_on(uploads.buffer_unordered(concurrency.max(1)).try_for_each(|_| async { Ok(()) }))
    }

    /// Downloads many objects into local files, `concurrency` at a time: `(key below the prefix,
    /// file)` pairs, each streamed through a temporary file and a rename. What each download got,
    /// in the order given (`None`: no such object).
    pub fn download_all(
        &self,
        files: &[(String, PathBuf)],
        concurrency: usize,
    ) -> Result<Vec<Option<RemoteObject>>, BucketError> {
        use futures::{StreamExt, TryStreamExt};
        let store = self.store.as_ref();
        let downloads = futures::stream::iter(files.iter().map(|(relative, to)| {
            let key = self.key(relative);
            async move {
                let fetched = download_to(store, &key, to).await.map_err(|e| self.error(relative, e))?;
                Ok(fetched.map(|(size, version)| RemoteObject { key: relative.clone(), size, version }))
            }
        }));
        self.block_on(downloads.buffered(concurrency.max(1)).try_collect())
    }

    /// Many small objects' bytes, `concurrency` at a time, in the order given (`None`: no such
    /// object).
    pub fn get_all(&self, keys: &[String], concurrency: usize) -> Result<Vec<Option<Vec<u8>>>, BucketError> {
        use futures::{StreamExt, TryStreamExt};
        let store = self.store.as_ref();
        let gets = futures::stream::iter(keys.iter().map(|relative| {
            let key = self.key(relative);
            async move {
                match store.get(&key).await {
                    Ok(got) => got.bytes().await.map(|b| Some(b.to_vec())).map_err(|e| self.error(relative, e)),
                    Err(object_store::Error::NotFound { .. }) => Ok(None),
                    Err(e) => Err(self.error(relative, e)),
                }
            }
        }));
        self.block_on(gets.buffered(concurrency.max(1)).try_collect())
    }

    /// The names of the "folders" directly under `dir` (key prefixes ending in `/`).
    pub fn list_folders(&self, dir: &str) -> Result<Vec<String>, BucketError> {
        let prefix = self.key(dir);
        let listed = self.block_on(self.store.list_with_delimiter(Some(&prefix))).map_err(|e| self.error(dir, e))?;
        let mut names: Vec<String> =
            listed.common_prefixes.iter().filter_map(|p| p.filename().map(str::to_owned)).collect();
        names.sort();
        Ok(names)
    }

    /// Deletes every object under `dir`.
    pub fn delete_all(&self, dir: &str) -> Result<(), BucketError> {
        use futures::{StreamExt, TryStreamExt};
        let keys: Vec<Key> = self.list(dir)?.iter().map(|o| self.key(&o.key)).collect();
        let stream = futures::stream::iter(keys.into_iter().map(Ok)).boxed();
        self.block_on(self.store.delete_stream(stream).try_for_each(|_| async { Ok(()) }))
            .map_err(|e| self.error(dir, e))
    }
}

/// Uploads one file: a PUT when small, a multipart upload when large; its version.
async fn upload_file(
    store: &dyn ObjectStore,
    key: &Key,
    from: &Path,
) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let size = std::fs::metadata(from)?.len();
    let put = if size <= MULTIPART_ABOVE {
        store.put(key, PutPayload::from(std::fs::read(from)?)).await?
    } else {
        let upload = store.put_multipart(key).await?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, 8 * 1024 * 1024);
        let written: Result<(), Box<dyn std::error::Error + Send + Sync>> = async {
            let mut file = std::fs::File::open(from)?;
            let mut buf = vec![0u8; 1024 * 1024];
            loop {
                let n = std::io::Read::read(&mut file, &mut buf)?;
                if n == 0 {
                    return Ok(());
                }
                writer.wait_for_capacity(4).await?;
                writer.write(&buf[..n]);
            }
        }
        .await;
        match written {
            Ok(()) => writer.finish().await?,
            Err(e) => {
                let _ = writer.abort().await;
                return Err(e);
            }
        }
    };
    Ok(version_of(put.e_tag.as_deref(), chrono::Utc::now(), size))
}

/// Streams one object into `to` through a synced temporary file beside it and a rename; its size
/// and version, or `None` when there is no such object.
async fn download_to(
    store: &dyn ObjectStore,
    key: &Key,
    to: &Path,
) -> Result<Option<(u64, String)>, Box<dyn std::error::Error + Send + Sync>> {
    use futures::StreamExt;
    let got = match store.get(key).await {
        Ok(got) => got,
        Err(object_store::Error::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let meta = got.meta.clone();
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = temporary_beside(to);
    let written: Result<(), Box<dyn std::error::Error + Send + Sync>> = async {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        let mut stream = got.into_stream();
        while let Some(chunk) = stream.next().await {
            file.write_all(&chunk?)?;
        }
        file.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, to)?;
        Ok(())
    }
    .await;
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(Some((meta.size, version_of(meta.e_tag.as_deref(), meta.last_modified, meta.size))))
}

/// What identifies one version of an object: the ETag when the store gives one.
fn version_of(e_tag: Option<&str>, modified: chrono::DateTime<chrono::Utc>, size: u64) -> String {
    match e_tag {
        Some(tag) => tag.trim_matches('"').to_owned(),
        None => format!("{}-{size}", modified.timestamp_nanos_opt().unwrap_or_default()),
    }
}

/// A temporary file name beside `path`, unique to this process and call.
pub(crate) fn temporary_beside(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}.{n}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `agentrep schedule` owns its lake inside its async main loop and drops it there when it
    /// ends (stopped, refused a lease, or a bad configuration): that must not panic. No request
    /// is made: building a bucket client connects to nothing.
    #[test]
    fn a_bucket_dropped_inside_an_async_context_does_not_panic() {
        let url: BucketUrl = "s3://some-bucket/prefix".parse().unwrap();
        let bucket = Bucket::new(&url, &[("aws_endpoint", "http://127.0.0.1:9"), ("aws_allow_http", "true")]).unwrap();
        let caller = tokio::runtime::Builder::new_current_thread().build().unwrap();
        caller.block_on(async move { drop(bucket) });
    }
}
