//! A lease on a lake: at most one holder at a time of a role (the scheduler), on a folder lake
//! and on a bucket lake alike, so a second one is refused wherever it runs.
//!
//! - **Folder lake:** an OS file lock on `_checkpoints/<name>.lock`. The OS releases it when the
//!   process dies, so a killed holder never blocks the next one.
//! - **Bucket lake:** the object `_checkpoints/<name>.lease`, written only by conditional PUTs:
//!   created only if absent (`If-None-Match: *`), renewed only while it is still the version this
//!   holder wrote (`If-Match`). Two processes, on one machine or two, can therefore never both
//!   hold it. The holder renews it every third of its duration on a thread of its own; a lease
//!   left unrenewed for its whole duration (a killed or cut-off holder) may be taken over, again
//!   only by a conditional write over the version found. A holder whose renewal was refused, or
//!   that could not renew for the whole duration, has lost the lease, and [`Lease::check`] says
//!   so before it writes again. Expiry compares the store's time of the last renewal with the
//!   taker's clock: the machines' clocks must agree to well within the duration (NTP does).

use std::fs::File;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::bucket::{Bucket, Condition};
use crate::store::{CHECKPOINTS_DIR, LakeError, io_err};

/// How long a bucket lease lasts without a renewal.
pub const LEASE_DURATION: Duration = Duration::from_secs(60);

/// A held lease; released when dropped.
pub struct Lease {
    name: String,
    holder: Holder,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease").field("name", &self.name).finish_non_exhaustive()
    }
}

enum Holder {
    /// Held for its lock, which closing the file releases.
    Folder {
        _locked: File,
    },
    Bucket {
        renewal: Arc<Renewal>,
        stop: Option<mpsc::Sender<()>>,
        thread: Option<JoinHandle<()>>,
    },
}

/// What a bucket lease object holds: who holds it, for how long each renewal lasts.
#[derive(Debug, Serialize, Deserialize)]
struct LeaseBody {
    holder: String,
    duration_secs: u64,
    renewed_at: i64,
}

/// A bucket lease's renewals, shared by the holder and its renewal thread.
struct Renewal {
    bucket: Arc<Bucket>,
    key: String,
    holder: String,
    duration: Duration,
    state: Mutex<RenewalState>,
}

struct RenewalState {
    /// The ETag of the version this holder wrote last.
    e_tag: String,
    /// When that write was acknowledged.
    renewed: Instant,
    /// Why the lease is no longer held, once it is not.
    lost: Option<String>,
}

impl Lease {
    /// Takes the lease `name` of a folder lake (its checkpoints folder is `dir`).
    pub(crate) fn folder(name: &str, dir: &std::path::Path) -> Result<Self, LakeError> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let path = dir.join(format!("{name}.lock"));
        let file = File::options().create(true).truncate(false).write(true).open(&path).map_err(io_err(&path))?;
        match file.try_lock() {
            Ok(()) => Ok(Self { name: name.to_owned(), holder: Holder::Folder { _locked: file } }),
            Err(std::fs::TryLockError::WouldBlock) => Err(LakeError::LeaseHeld {
                name: name.to_owned(),
                holder: format!("another process on this machine (it locks {})", path.display()),
            }),
            Err(std::fs::TryLockError::Error(e)) => Err(io_err(&path)(e)),
        }
    }

    /// Takes the lease `name` of a bucket lake, lasting `duration` between renewals.
    pub(crate) fn bucket(name: &str, bucket: Arc<Bucket>, duration: Duration) -> Result<Self, LakeError> {
        let key = format!("{CHECKPOINTS_DIR}/{name}.lease");
        let holder = holder_id();
        let body = |now: i64| lease_body(&holder, duration, now);
        // A lease found expired is taken over only over the version found; a race lost there (or
        // a lease released between two calls) is looked at again, a few times at most.
        for _ in 0..3 {
            if let Some(e_tag) = bucket.put_if(&key, body(unix_now()), Condition::Absent)? {
                return Ok(Self::held(name, bucket, key, holder, duration, e_tag));
            }
            let Some(found) = bucket.get_versioned(&key)? else { continue };
            let previous: Option<LeaseBody> = serde_json::from_slice(&found.bytes).ok();
            let lasts = previous.as_ref().map_or(duration, |p| Duration::from_secs(p.duration_secs));
            let age = (chrono::Utc::now() - found.modified).to_std().unwrap_or_default();
            if age < lasts {
                let holder = previous.map_or_else(|| "an unreadable lease object".to_owned(), |p| p.holder);
                return Err(LakeError::LeaseHeld {
                    name: name.to_owned(),
                    holder: format!("{holder} (renewed {} s ago, it lasts {} s)", age.as_secs(), lasts.as_secs()),
                });
            }
            let Some(found_tag) = found.e_tag else { continue };
            if let Some(e_tag) = bucket.put_if(&key, body(unix_now()), Condition::At(&found_tag))? {
                return Ok(Self::held(name, bucket, key, holder, duration, e_tag));
            }
        }
        Err(LakeError::LeaseHeld { name: name.to_owned(), holder: "other processes taking it at the same time".into() })
    }

    fn held(name: &str, bucket: Arc<Bucket>, key: String, holder: String, duration: Duration, e_tag: String) -> Self {
        let renewal = Arc::new(Renewal {
            bucket,
            key,
            holder,
            duration,
            state: Mutex::new(RenewalState { e_tag, renewed: Instant::now(), lost: None }),
        });
        let (stop, stopped) = mpsc::channel();
        let thread = {
            let renewal = Arc::clone(&renewal);
            std::thread::Builder::new()
                .name(format!("lease-{name}"))
                .spawn(move || {
                    while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(renewal.duration / 3) {
                        if !renewal.renew() {
                            break;
                        }
                    }
                })
                .expect("spawning a thread")
        };
        Self { name: name.to_owned(), holder: Holder::Bucket { renewal, stop: Some(stop), thread: Some(thread) } }
    }

    /// The lease's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `Ok` while this process still holds the lease: call it before each round of writes.
    pub fn check(&self) -> Result<(), LakeError> {
        let Holder::Bucket { renewal, .. } = &self.holder else { return Ok(()) };
        let state = renewal.state.lock().expect("lease state");
        let why = match &state.lost {
            Some(why) => why.clone(),
            None if state.renewed.elapsed() >= renewal.duration => {
                format!("not renewed for {} s", state.renewed.elapsed().as_secs())
            }
            None => return Ok(()),
        };
        Err(LakeError::LeaseLost { name: self.name.clone(), why })
    }
}

impl Renewal {
    /// One renewal; `false` once the lease is lost (nothing more to renew).
    fn renew(&self) -> bool {
        let e_tag = self.state.lock().expect("lease state").e_tag.clone();
        let written =
            self.bucket.put_if(&self.key, lease_body(&self.holder, self.duration, unix_now()), Condition::At(&e_tag));
        let mut state = self.state.lock().expect("lease state");
        match written {
            Ok(Some(e_tag)) => {
                state.e_tag = e_tag;
                state.renewed = Instant::now();
                true
            }
            Ok(None) => {
                state.lost = Some("another process took it over (its renewal was refused)".into());
                false
            }
            // A failed call is tried again at the next tick, until the lease has run out.
            Err(e) if state.renewed.elapsed() >= self.duration => {
                state.lost = Some(format!("not renewed for {} s: {e}", state.renewed.elapsed().as_secs()));
                false
            }
            Err(_) => true,
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let Holder::Bucket { renewal, stop, thread } = &mut self.holder else { return };
        drop(stop.take());
        if let Some(thread) = thread.take() {
            let _ = thread.join();
        }
        if renewal.state.lock().expect("lease state").lost.is_some() {
            return;
        }
        // Released only while it is still this holder's: a lease lost meanwhile is left alone.
        // (S3 has no conditional delete here, so a takeover between this read and the delete,
        // possible only after a whole unrenewed duration, would be undone; the next holder's
        // renewal then finds no object and reports the lease lost.)
        if let Ok(Some(found)) = renewal.bucket.get_versioned(&renewal.key) {
            let ours = serde_json::from_slice::<LeaseBody>(&found.bytes).is_ok_and(|b| b.holder == renewal.holder);
            if ours {
                let _ = renewal.bucket.delete(&renewal.key);
            }
        }
    }
}

fn lease_body(holder: &str, duration: Duration, now: i64) -> Vec<u8> {
    let body = LeaseBody { holder: holder.to_owned(), duration_secs: duration.as_secs().max(1), renewed_at: now };
    serde_json::to_vec(&body).expect("a lease body serialises")
}

fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Who holds a lease, for the message a refused process prints: host, process id, and a start
/// time that tells two holders of one process id apart.
fn holder_id() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "an unnamed host".into());
    let started = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.6fZ");
    format!("process {} on {host}, started {started}", std::process::id())
}
