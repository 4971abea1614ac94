//! The real `agentrep` binary as a child process, started as an operator starts it: the
//! environment cleared but for `PATH`, `HOME` and `TMPDIR`, then only the documented flags and
//! variables. Shared by the process tests and the write tests (which also kill it hard).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::{agentrep_binary, shared_tempdir};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace").to_owned()
}

/// The demo's folder, built once per test run by the real binary (`agentrep demo --no-serve`,
/// what `make run` does before it serves): the embedded world's lake and its 30 snapshots.
pub fn demo_dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = shared_tempdir("process-demo").expect("temp dir");
        let out = base_command().args(["demo", "--no-serve", "--dir"]).arg(dir.path()).output().expect("agentrep runs");
        assert!(out.status.success(), "agentrep demo --no-serve failed: {}", String::from_utf8_lossy(&out.stderr));
        dir
    })
    .path()
}

/// The binary with an empty environment but what any process needs (`PATH`, `HOME`), started in
/// the workspace root.
pub fn base_command() -> Command {
    let mut cmd = Command::new(agentrep_binary());
    cmd.env_clear().current_dir(root());
    for keep in ["PATH", "HOME", "TMPDIR"] {
        if let Some(v) = std::env::var_os(keep) {
            cmd.env(keep, v);
        }
    }
    cmd
}

/// A running `agentrep` child; killed on drop. Its stdout and stderr are collected.
#[derive(Debug)]
pub struct Process {
    child: Child,
    /// Its stdout lines so far.
    pub stdout: Arc<Mutex<Vec<String>>>,
    /// Its stderr lines so far.
    pub stderr: Arc<Mutex<Vec<String>>>,
}

fn collect(pipe: impl std::io::Read + Send + 'static, into: Arc<Mutex<Vec<String>>>) {
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            into.lock().expect("lines").push(line);
        }
    });
}

impl Process {
    /// Starts `agentrep args` with `env`.
    pub fn start(args: &[&str], env: &[(&str, String)]) -> Self {
        let mut cmd = base_command();
        cmd.args(args).envs(env.iter().map(|(k, v)| (*k, v.as_str())));
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("agentrep starts");
        let (stdout, stderr) = (Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(Vec::new())));
        collect(child.stdout.take().expect("piped"), stdout.clone());
        collect(child.stderr.take().expect("piped"), stderr.clone());
        Self { child, stdout, stderr }
    }

    /// Waits (up to `within`) for a stdout line `pick` accepts.
    pub fn wait_for<T>(&mut self, within: Duration, pick: impl Fn(&str) -> Option<T>) -> T {
        let started = Instant::now();
        loop {
            if let Some(found) = self.stdout.lock().expect("lines").iter().find_map(|l| pick(l)) {
                return found;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("agentrep exited ({status}) before printing what was expected:\n{}", self.logs());
            }
            assert!(
                started.elapsed() < within,
                "agentrep printed nothing expected within {within:?}:\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The base URL it serves on (its first line).
    pub fn serving(&mut self) -> String {
        self.wait_for(Duration::from_secs(120), |l| l.strip_prefix("agentrep is serving on ").map(str::to_owned))
    }

    /// Its stdout lines so far.
    pub fn stdout(&self) -> Vec<String> {
        self.stdout.lock().expect("lines").clone()
    }

    /// Everything it printed.
    pub fn logs(&self) -> String {
        format!("stdout:\n{}\nstderr:\n{}", self.stdout().join("\n"), self.stderr.lock().expect("lines").join("\n"))
    }
}

impl Process {
    /// Waits (up to `within`, else kills it and panics) for it to exit.
    pub fn wait(&mut self, within: Duration) -> std::process::ExitStatus {
        let started = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            if started.elapsed() > within {
                self.kill_hard();
                panic!("agentrep did not exit within {within:?}:\n{}", self.logs());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether it has exited.
    pub fn exited(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(Some(_)))
    }

    /// Kills it with SIGKILL (no shutdown of any kind) and waits for it to be gone.
    pub fn kill_hard(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
