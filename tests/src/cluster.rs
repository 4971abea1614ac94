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

fn wait_listening(addr: SocketAddr, process: &mut Process, what: &str) {
    let started = Instant::now();
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(started.elapsed() < Duration::from_secs(60), "{what} does not listen on {addr}:\n{}", process.logs());
        std::thread::sleep(Duration::from_millis(100));
    }
}

impl BallistaCluster {
    /// Starts a scheduler and `executors` executors (2 tasks each, shuffle files under `work`),
    /// with `env` (the bucket's `AWS_*` variables), and waits until each listens.
    pub fn start(executors: usize, env: &[(&str, String)], work: &Path) -> Self {
        let scheduler_addr: SocketAddr = format!("127.0.0.1:{}", free_port_pair()).parse().expect("address");
        let bind = scheduler_addr.to_string();
        // A lost executor is noticed within seconds, not Ballista's default three minutes.
        let mut scheduler =
            Process::start(&["cluster", "scheduler", "--bind", &bind, "--executor-timeout-secs", "6"], env);
        wait_listening(scheduler_addr, &mut scheduler, "the scheduler");
        let executors = (0..executors)
            .map(|i| {
                let addr: SocketAddr = format!("127.0.0.1:{}", free_port_pair()).parse().expect("address");
                let work_dir = work.join(format!("executor-{i}"));
                std::fs::create_dir_all(&work_dir).expect("work dir");
                let mut executor = Process::start(
                    &[
                        "cluster",
                        "executor",
                        "--bind",
                        &addr.to_string(),
                        "--scheduler",
                        &bind,
                        "--concurrent-tasks",
                        "2",
                        "--work-dir",
                        &work_dir.display().to_string(),
                        "--heartbeat-secs",
                        "2",
                    ],
                    env,
                );
                wait_listening(addr, &mut executor, "an executor");
                executor
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
