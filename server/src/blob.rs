//! What the served snapshot holds for its answers: response bodies in memory with their
//! validators ([`Blob`]), leaderboard entries serialised once ([`EntryJson`]), and the bounded
//! caches of computed views ([`ViewCache`]). Below both the served snapshot's index and the
//! queries that read it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use agentrep_publish::payloads::caip2;
use bytes::Bytes;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

/// A response body held in memory with its validator; the gzip form is made on first request.
#[derive(Debug, Clone)]
pub struct Blob {
    /// Body.
    pub body: Bytes,
    /// Strong ETag, quoted, ready to send.
    pub etag: hyper::header::HeaderValue,
    gzip: OnceLock<Bytes>,
}

impl Blob {
    /// A blob whose ETag comes from a known SHA-256.
    pub fn with_sha(body: Bytes, sha256_hex: &str) -> Self {
        let etag = format!("\"{}\"", &sha256_hex[..32.min(sha256_hex.len())]);
        let etag = hyper::header::HeaderValue::from_str(&etag).expect("hex is a valid header value");
        Self { body, etag, gzip: OnceLock::new() }
    }

    /// A blob hashed now.
    pub fn new(body: Bytes) -> Self {
        let sha = hex::encode(Sha256::digest(&body));
        Self::with_sha(body, &sha)
    }

    /// The gzip-compressed body, computed once.
    pub fn gzip(&self) -> &Bytes {
        self.gzip.get_or_init(|| {
            use std::io::Write;
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(&self.body).expect("writing to memory");
            Bytes::from(enc.finish().expect("writing to memory"))
        })
    }
}

/// One leaderboard entry, pre-serialised both ways.
#[derive(Debug, Clone)]
pub struct EntryJson {
    /// The seller, lowercase.
    pub pay_to: String,
    /// CAIP-2 network.
    pub network: String,
    /// Ecosystem.
    pub ecosystem: String,
    /// JSON without sparkline.
    pub plain: Box<RawValue>,
    /// JSON with `sparkline7d`.
    pub with_sparkline: Box<RawValue>,
}

impl EntryJson {
    /// The entry serialised with and without its sparkline.
    pub fn of(e: &agentrep_publish::wire::LeaderboardEntryV1) -> Self {
        let mut plain = e.clone();
        plain.sparkline_7d = None;
        Self {
            pay_to: e.pay_to.to_ascii_lowercase(),
            network: caip2(&e.network),
            ecosystem: e.ecosystem.clone(),
            plain: serde_json::value::to_raw_value(&plain).expect("entry serialises"),
            with_sparkline: serde_json::value::to_raw_value(e).expect("entry serialises"),
        }
    }
}

/// Query key of a leaderboard view.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LeaderboardKey {
    /// Limit.
    pub limit: u32,
    /// Ecosystem filter.
    pub ecosystem: Option<String>,
    /// Network filter as given.
    pub network: Option<String>,
    /// Sparklines.
    pub sparkline: bool,
}

/// Responses computed from the snapshot for one query (a filtered leaderboard, a sliced history),
/// built once and kept until the snapshot is replaced. Bounded: emptied when it fills.
#[derive(Debug)]
pub struct ViewCache<K> {
    limit: usize,
    views: Mutex<HashMap<K, Arc<Blob>>>,
}

impl<K: std::hash::Hash + Eq + Clone> ViewCache<K> {
    pub(crate) fn new(limit: usize) -> Self {
        Self { limit, views: Mutex::new(HashMap::new()) }
    }

    /// The view for `key`, built by `build` on a miss.
    pub fn get_or_build(&self, key: &K, build: impl FnOnce() -> Blob) -> Arc<Blob> {
        match self.get_or_make(key, || Ok::<_, std::convert::Infallible>(build())) {
            Ok(blob) => blob,
            Err(never) => match never {},
        }
    }

    /// The view for `key`, made by `make` on a miss; a make that fails keeps nothing.
    pub fn get_or_make<E>(&self, key: &K, make: impl FnOnce() -> Result<Blob, E>) -> Result<Arc<Blob>, E> {
        let made = self.get_or_try_build(key, || make().map(Some))?;
        Ok(made.expect("a make that succeeds always makes a view"))
    }

    /// The view for `key`, built by `build` on a miss; a build that fails or finds nothing keeps
    /// nothing.
    pub fn get_or_try_build<E>(
        &self,
        key: &K,
        build: impl FnOnce() -> Result<Option<Blob>, E>,
    ) -> Result<Option<Arc<Blob>>, E> {
        if let Some(hit) = self.views.lock().expect("view cache lock").get(key) {
            return Ok(Some(hit.clone()));
        }
        let Some(blob) = build()? else { return Ok(None) };
        let blob = Arc::new(blob);
        let mut views = self.views.lock().expect("view cache lock");
        if views.len() >= self.limit {
            views.clear();
        }
        views.insert(key.clone(), blob.clone());
        Ok(Some(blob))
    }
}
