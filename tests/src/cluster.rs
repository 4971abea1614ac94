//! A Ballista cluster on loopback, from the real binary as an operator starts it:
//! `agentrep cluster scheduler` and N `agentrep cluster executor`s, each a process of its own on
//! 127.0.0.1 with its own ports, configured only by the documented flags and `AWS_*` variables.
//! Every process is stopped by its own id when the cluster is dropped (or killed on purpose).

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::process::Process;

/// A scheduler and its executors.
#[derive(Debug)]
pub struct BallistaCluster {
    /// `df://127.0.0.1:PORT`, what `rebuild --scheduler` takes.
    pub scheduler_url: String,
    scheduler: Process,
    /// The executors, in start order.
    pub executors: Vec<Process>,
}

/// A free port on 127.0.0.1 whose next port is free too (an executor takes both).
fn free_port_pair() -> u16 {
    for _ in 0..100 {
        let first = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = first.local_addr().expect("bound").port();
        if port < u16::MAX && TcpListener::bind(("127.0.0.1", port + 1)).is_ok() {
            return port;
        }
    }
    panic!("no two consecutive free ports on 127.0.0.1");
}

/// Waits until `process` listens on `addr`: `Err` with its logs when it exits or stays silent for
/// a minute first.
fn wait_listening(addr: SocketAddr, process: &mut Process) -> Result<(), String> {
    let started = Instant::now();
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if process.exited() || started.elapsed() > Duration::from_secs(60) {
            return Err(process.logs());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

/// Starts a cluster process bound to a free port pair (`args` given the address) and waits until
/// it listens; on another pair when a process of a test running beside this one took the port
/// between the check and the bind (it then exits with `Address already in use`).
fn start_listening(what: &str, env: &[(&str, String)], args: impl Fn(&str) -> Vec<String>) -> (Process, SocketAddr) {
    for _ in 0..5 {
        let addr: SocketAddr = format!("127.0.0.1:{}", free_port_pair()).parse().expect("address");
        let args = args(&addr.to_string());
        let mut process = Process::start(&args.iter().map(String::as_str).collect::<Vec<_>>(), env);
        match wait_listening(addr, &mut process) {
            Ok(()) => return (process, addr),
            Err(logs) if logs.contains("Address already in use") => process.kill_hard(),
            Err(logs) => panic!("{what} does not listen on {addr}:\n{logs}"),
        }
    }
    panic!("{what}: its port was taken five times over");
}

impl BallistaCluster {
    /// Starts a scheduler and `executors` executors (2 tasks each, shuffle files under `work`),
    /// with `env` (the bucket's `AWS_*` variables), and waits until each listens.
    pub fn start(executors: usize, env: &[(&str, String)], work: &Path) -> Self {
        // A lost executor is noticed within seconds, not Ballista's default three minutes.
        let (scheduler, scheduler_addr) = start_listening("the scheduler", env, |bind| {
            ["cluster", "scheduler", "--bind", bind, "--executor-timeout-secs", "6"].map(str::to_owned).to_vec()
        });
        let bind = scheduler_addr.to_string();
        let executors = (0..executors)
            .map(|i| {
                let work_dir = work.join(format!("executor-{i}"));
                std::fs::create_dir_all(&work_dir).expect("work dir");
                let work_dir = work_dir.display().to_string();
                start_listening("an executor", env, |addr| {
                    [
                        "cluster",
                        "executor",
                        "--bind",
                        addr,
                        "--scheduler",
                        &bind,
                        "--concurrent-tasks",
                        "2",
                        "--work-dir",
                        &work_dir,
                        "--heartbeat-secs",
                        "2",
                    ]
                    .map(str::to_owned)
                    .to_vec()
                })
                .0
            })
            .collect();
        Self { scheduler_url: format!("df://{bind}"), scheduler, executors }
    }

    /// Everything the cluster's processes printed, for failure messages.
    pub fn logs(&self) -> String {
        let mut logs = format!("scheduler:\n{}", self.scheduler.logs());
        for (i, executor) in self.executors.iter().enumerate() {
            logs.push_str(&format!("\nexecutor {i}:\n{}", executor.logs()));
        }
        logs
    }
}
