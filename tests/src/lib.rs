//! Shared support for the end-to-end tests: a small world built once per test run (every integration test is one binary, `tests/integration.rs`), and a real
//! server on a random loopback port.

pub mod buyers;
pub mod chain;
pub mod cluster;
pub mod fixtures;
pub mod process;
pub mod replayed;
pub mod s3;

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use agentrep_datasets::{Scale, WorldConfig};
use agentrep_lake::Lake;
use agentrep_publish::{PublishConfig, SnapshotStore};
use agentrep_server::{PaymentSettings, Server, ServerConfig, ServiceIdentity};
use chrono::NaiveDate;

/// A world built in a temporary folder: lake plus published snapshots.
#[derive(Debug)]
pub struct BuiltWorld {
    /// Keeps the folder alive.
    pub dir: tempfile::TempDir,
    /// The world's config.
    pub config: WorldConfig,
}

impl BuiltWorld {
    /// The lake.
    pub fn lake(&self) -> Lake {
        Lake::new(self.dir.path().join("lake"))
    }

    /// The snapshots root.
    pub fn snapshots(&self) -> PathBuf {
        self.dir.path().join("snapshots")
    }

    /// The days of the world.
    pub fn days(&self) -> Vec<NaiveDate> {
        self.config.days()
    }
}

/// Prefix of the folders of worlds shared by a whole test binary.
const SHARED_PREFIX: &str = "agentrep-shared-";

/// A temporary folder for something a test binary keeps in a `static` for its whole run. Statics
/// are never dropped, so such a folder outlives the process; each call first removes the folders
/// of test processes that are gone, so runs do not pile up in the temporary directory.
pub fn shared_tempdir(kind: &str) -> std::io::Result<tempfile::TempDir> {
    if let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(rest) = name.strip_prefix(SHARED_PREFIX) else { continue };
            // `<kind>-<pid>-<random>`: the kind may itself hold hyphens (`process-demo`), the
            // random suffix does not, so the pid is the second field from the right.
            let pid = rest.rsplit('-').nth(1).and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    tempfile::Builder::new().prefix(&format!("{SHARED_PREFIX}{kind}-{}-", std::process::id())).tempdir()
}

/// Copies a folder tree (a lake a test edits without touching the shared world's) as `cp -a`
/// would: modification times kept (the lake's digest sidecars are trusted only when not older
/// than their file), files hard-linked to each other linked again (snapshots share the files
/// that did not change), and symbolic links made again, pointing into the copy when they pointed
/// into the original (a snapshot store's `current`).
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    TreeCopy { from, to, linked: HashMap::new() }.copy(from, to)
}

struct TreeCopy<'a> {
    from: &'a Path,
    to: &'a Path,
    /// The first copy of each file with more than one link, by (device, inode) of the original.
    linked: HashMap<(u64, u64), PathBuf>,
}

impl TreeCopy<'_> {
    fn copy(&mut self, dir: &Path, into: &Path) -> std::io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        std::fs::create_dir_all(into)?;
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let (source, target) = (entry.path(), into.join(entry.file_name()));
            let kind = entry.file_type()?;
            if kind.is_dir() {
                self.copy(&source, &target)?;
            } else if kind.is_symlink() {
                let points_to = std::fs::read_link(&source)?;
                let points_to = match points_to.strip_prefix(self.from) {
                    Ok(inside) => self.to.join(inside),
                    Err(_) => points_to,
                };
                std::os::unix::fs::symlink(points_to, &target)?;
            } else {
                let meta = entry.metadata()?;
                let inode = (meta.dev(), meta.ino());
                if meta.nlink() > 1 {
                    if let Some(first) = self.linked.get(&inode) {
                        std::fs::hard_link(first, &target)?;
                        continue;
                    }
                    self.linked.insert(inode, target.clone());
                }
                std::fs::copy(&source, &target)?;
                std::fs::File::options().write(true).open(&target)?.set_modified(meta.modified()?)?;
            }
        }
        Ok(())
    }
}

/// A small-scale world of `days` days with the first `rebuilt` of them rebuilt and published,
/// in a folder of the test's own: a copy of the world the test run built for these two numbers
/// first (generating and rebuilding takes tens of seconds, copying far less).
pub fn build_world(days: u32, rebuilt: usize) -> BuiltWorld {
    type Built = &'static OnceLock<BuiltWorld>;
    static BUILT: Mutex<BTreeMap<(u32, usize), Built>> = Mutex::new(BTreeMap::new());
    let slot: Built = *BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .entry((days, rebuilt))
        .or_insert_with(|| Box::leak(Box::default()));
    let original = slot.get_or_init(|| {
        let dir = shared_tempdir(&format!("world-{days}-{rebuilt}")).expect("temp dir");
        build_world_in(dir, days, rebuilt)
    });
    let dir = tempfile::tempdir().expect("temp dir");
    copy_dir(original.dir.path(), dir.path()).expect("the built world copies");
    BuiltWorld { dir, config: original.config }
}

fn build_world_in(dir: tempfile::TempDir, days: u32, rebuilt: usize) -> BuiltWorld {
    let config = WorldConfig { days, ..WorldConfig::new(Scale::Small) };
    agentrep_datasets::generate(&config, &dir.path().join("lake"), &|_, _| {}).expect("world generates");
    let world = BuiltWorld { dir, config };
    let store = SnapshotStore::new(world.snapshots());
    let all_days = world.days();
    agentrep_jobs::commands::rebuild_days(&world.lake(), &store, &PublishConfig::default(), &all_days[..rebuilt])
        .expect("rebuilds");
    world
}

/// The shared world of the test run: 8 days, the first 7 rebuilt (the 8th is left for tests
/// that publish a new snapshot while serving).
pub fn shared_world() -> &'static BuiltWorld {
    static WORLD: OnceLock<BuiltWorld> = OnceLock::new();
    WORLD.get_or_init(|| build_world_in(shared_tempdir("world").expect("temp dir"), 8, 7))
}

/// The static tree `export-static` writes for the published snapshot in the folder `snapshot`:
/// where the per-wallet files a static file server serves are (a published snapshot holds their
/// records, not the files). Written once per snapshot folder in a test run.
pub fn static_tree(snapshot: &Path) -> PathBuf {
    static TREES: Mutex<BTreeMap<PathBuf, (tempfile::TempDir, PathBuf)>> = Mutex::new(BTreeMap::new());
    let mut trees = TREES.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, tree)) = trees.get(snapshot) {
        return tree.clone();
    }
    let dir = shared_tempdir("static").expect("temp dir");
    let tree = dir.path().join("tree");
    agentrep_publish::static_export::export_static(snapshot, &tree).expect("the snapshot exports");
    trees.insert(snapshot.to_path_buf(), (dir, tree.clone()));
    tree
}

/// Every file of the published snapshot in `snapshot` and every per-wallet file rendered from its
/// tables (what the server serves), in path order: what two snapshots that must be the same are
/// compared by, file by file.
pub fn read_snapshot(snapshot: &Path) -> Vec<(String, Vec<u8>)> {
    use agentrep_publish::static_export::is_rendered;
    let mut files = read_tree(snapshot);
    files.extend(read_tree(&static_tree(snapshot)).into_iter().filter(|(path, _)| is_rendered(path)));
    files.sort();
    files
}

/// A server on a random loopback port, run on its own runtime thread until the test ends.
#[derive(Debug)]
pub struct RunningServer {
    /// Bound address.
    pub addr: SocketAddr,
    /// Base URL including the base path.
    pub base: String,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// A receiving address for tests of servers that take no payments (no node, no way to settle):
/// their paid routes answer 503 and quote no terms. Nobody holds its key.
pub const TEST_PAY_TO: &str = "0x00000000000000000000000000000000000a6e27";

impl RunningServer {
    /// Starts serving `snapshots` as a deployment with no operator address (paid routes 503).
    pub fn start(snapshots: &Path) -> Self {
        Self::start_with(snapshots, ServiceIdentity::default())
    }

    /// Starts serving `snapshots` as the deployment `identity` describes (taking no payments).
    pub fn start_with(snapshots: &Path, identity: ServiceIdentity) -> Self {
        Self::start_config(ServerConfig {
            snapshots: snapshots.to_owned(),
            reload_interval: std::time::Duration::from_millis(100),
            identity,
            payments: PaymentSettings::default(),
            ..ServerConfig::default()
        })
    }

    /// Starts a server with `config`.
    pub fn start_config(config: ServerConfig) -> Self {
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt =
                tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
            rt.block_on(async move {
                let server = Server::bind("127.0.0.1:0".parse().expect("addr"), config).await.expect("binds");
                addr_tx.send(server.local_addr()).expect("send addr");
                server.run_until(async move { drop(stop_rx.await) }).await.expect("serves");
            });
        });
        let addr = addr_rx.recv().expect("server started");
        Self { addr, base: format!("http://{addr}/api/agent"), shutdown: Some(stop_tx), thread: Some(thread) }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Recursively reads every file under `dir` as (relative path, bytes), sorted.
pub fn read_tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("under dir").to_string_lossy().into_owned();
                out.push((rel, std::fs::read(&p).expect("readable")));
            }
        }
    }
    out.sort();
    out
}

/// Checks (or, with `UPDATE_EXPECT`, rewrites) the text between
/// `<!-- {name}:begin (generated from {source}) -->` and `<!-- {name}:end -->` in `document` (a
/// path relative to the workspace root).
pub fn check_generated_section(document: &str, name: &str, source: &str, expected: &str) {
    // Tests of one binary run in parallel, and several rewrite sections of the same document.
    static ONE_WRITER: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _writing = ONE_WRITER.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(document);
    let doc = std::fs::read_to_string(&path).expect("document exists");
    let begin = format!("<!-- {name}:begin (generated from {source}) -->\n");
    let end_marker = format!("<!-- {name}:end -->");
    let start = doc.find(&begin).unwrap_or_else(|| panic!("{document} lacks {begin}")) + begin.len();
    let end = doc[start..].find(&end_marker).unwrap_or_else(|| panic!("{document} lacks {end_marker}")) + start;
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, format!("{}{}{}", &doc[..start], expected, &doc[end..])).expect("writable");
        return;
    }
    assert_eq!(&doc[start..end], expected, "{document}'s {name} section is stale: run UPDATE_EXPECT=1 make test");
}

/// The `agentrep` binary beside this test's target folder (`scripts/test.sh` builds it first).
pub fn agentrep_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary");
    let bin = exe.parent().and_then(Path::parent).expect("target dir").join("agentrep");
    assert!(
        bin.is_file(),
        "{} is missing: `make test` builds it first (`cargo build -p agentrep-jobs --bin agentrep`)",
        bin.display()
    );
    bin
}

/// Installs the pinned test clients once per process (`scripts/fetch-test-clients.sh`, silent when
/// they are there already) and returns `.tools`: npm packages in `clients/node_modules`, the
/// Python venv in `py`.
///
/// # Panics
/// When the script fails (it needs npm and Python the first time).
pub fn test_clients() -> PathBuf {
    static TOOLS: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("crate has a parent").to_owned();
    TOOLS
        .get_or_init(|| {
            let out = std::process::Command::new("bash")
                .arg(root.join("scripts/fetch-test-clients.sh"))
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| format!("running scripts/fetch-test-clients.sh: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "scripts/fetch-test-clients.sh failed ({}): {}{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            Ok(root.join(".tools"))
        })
        .clone()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// What the prober writes after `rounds` rounds of 15 minutes from `from` (Unix seconds) against
/// `resources` that stopped answering: every probe refused.
pub fn dead_probes(resources: &[String], from: i64, rounds: i64) -> Vec<agentrep_lake::datasets::ProbeRow> {
    (1..=rounds)
        .flat_map(|round| {
            resources.iter().map(move |resource| agentrep_lake::datasets::ProbeRow {
                resource: resource.clone(),
                probed_at: agentrep_lake::Timestamp::from_secs(from + round * 900),
                status: None,
                ok: false,
                latency_ms: None,
                error: Some("connection refused".to_owned()),
                offer_version: None,
                offer_matches: None,
                offer_pay_tos: Vec::new(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use super::copy_dir;

    /// A snapshot store in miniature: two snapshot folders sharing a file, `current` naming one of
    /// them relatively, a link by absolute path into the tree, and an old file.
    #[test]
    fn a_copy_keeps_links_and_times() {
        let from = tempfile::tempdir().unwrap();
        let root = from.path();
        std::fs::create_dir_all(root.join("a/score")).unwrap();
        std::fs::create_dir_all(root.join("b/score")).unwrap();
        std::fs::write(root.join("a/score/x.json"), b"{}").unwrap();
        std::fs::hard_link(root.join("a/score/x.json"), root.join("b/score/x.json")).unwrap();
        std::fs::write(root.join("b/score/y.json"), b"[]").unwrap();
        std::os::unix::fs::symlink("b", root.join("current")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("absolute")).unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        std::fs::File::options().write(true).open(root.join("b/score/y.json")).unwrap().set_modified(old).unwrap();

        let to = tempfile::tempdir().unwrap();
        let copy = to.path().join("copy");
        copy_dir(root, &copy).unwrap();

        let (x_a, x_b) = (copy.join("a/score/x.json"), copy.join("b/score/x.json"));
        assert_eq!(std::fs::read(&x_b).unwrap(), b"{}");
        assert_eq!(std::fs::metadata(&x_a).unwrap().ino(), std::fs::metadata(&x_b).unwrap().ino(), "still shared");
        assert_ne!(
            std::fs::metadata(&x_a).unwrap().ino(),
            std::fs::metadata(root.join("a/score/x.json")).unwrap().ino()
        );
        assert_eq!(std::fs::read_link(copy.join("current")).unwrap(), std::path::Path::new("b"));
        assert_eq!(std::fs::read_link(copy.join("absolute")).unwrap(), copy.join("a"), "points into the copy");
        assert_eq!(std::fs::read(copy.join("current/score/y.json")).unwrap(), b"[]");
        assert_eq!(std::fs::metadata(copy.join("b/score/y.json")).unwrap().modified().unwrap(), old);
    }
}
