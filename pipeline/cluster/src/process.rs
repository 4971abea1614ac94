//! The cluster's processes: a Ballista scheduler and executors, started by
//! `agentrep cluster scheduler` and `agentrep cluster executor`. They are Ballista's own scheduler
//! and executor (the `ballista-scheduler` and `ballista-executor` crates) with one change: their
//! sessions read `s3://` through [`BucketStores`], configured from the `AWS_*` variables, so they
//! read the lake's bucket with the lake's configuration.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ballista_core::extension::{
    SessionConfigExt, ballista_aggregate_functions, ballista_scalar_functions, ballista_window_functions,
};
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::{SessionState, SessionStateBuilder};
use datafusion::prelude::SessionConfig;

use crate::stores::BucketStores;

/// A session reading `s3://` through `stores`, with Ballista's functions: what the scheduler
/// plans with and what the client submits from.
pub(crate) fn session_state(
    config: SessionConfig,
    stores: Arc<BucketStores>,
) -> datafusion::error::Result<SessionState> {
    let runtime = RuntimeEnvBuilder::new().with_object_store_registry(stores).build_arc()?;
    Ok(SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .with_runtime_env(runtime)
        .with_scalar_functions(ballista_scalar_functions())
        .with_aggregate_functions(ballista_aggregate_functions())
        .with_window_functions(ballista_window_functions())
        .build())
}

/// Runs a scheduler on `bind` until the process is stopped. An executor that has not called in
/// for `executor_timeout` is dead, and its tasks run again elsewhere.
pub fn run_scheduler(bind: SocketAddr, executor_timeout: Duration) -> Result<(), ClusterProcessError> {
    let stores = Arc::new(BucketStores::default());
    let timeout = executor_timeout.as_secs().max(1);
    let config = SchedulerConfig {
        bind_host: bind.ip().to_string(),
        external_host: bind.ip().to_string(),
        bind_port: bind.port(),
        executor_timeout_seconds: timeout,
        expire_dead_executor_interval_seconds: timeout.min(15),
        ..SchedulerConfig::default()
    }
    .with_override_config_producer(Arc::new(SessionConfig::new_with_ballista))
    .with_override_session_builder(Arc::new(move |config| session_state(config, Arc::clone(&stores))));
    runtime()?.block_on(async move {
        let cluster = BallistaCluster::new_from_config(&config).await?;
        start_server(cluster, bind, Arc::new(config)).await
    })?;
    Ok(())
}

/// How to start an executor.
#[derive(Debug, Clone)]
pub struct ExecutorSettings {
    /// Where it serves its results (Arrow Flight); its gRPC port is the next one.
    pub bind: SocketAddr,
    /// The scheduler it registers with.
    pub scheduler: SocketAddr,
    /// Tasks it runs at once.
    pub concurrent_tasks: usize,
    /// Its shuffle files (a temporary folder when `None`).
    pub work_dir: Option<PathBuf>,
    /// How often it tells the scheduler it is alive.
    pub heartbeat: Duration,
}

/// Runs an executor until the process is stopped.
pub fn run_executor(settings: &ExecutorSettings) -> Result<(), ClusterProcessError> {
    let stores = Arc::new(BucketStores::default());
    let work_dir = settings.work_dir.as_ref().map(|d| d.to_string_lossy().into_owned());
    let temp_dir = work_dir.clone();
    let grpc_port = settings.bind.port().checked_add(1).ok_or(ClusterProcessError::Port(settings.bind.port()))?;
    let config = ExecutorProcessConfig {
        bind_host: settings.bind.ip().to_string(),
        external_host: Some(settings.bind.ip().to_string()),
        port: settings.bind.port(),
        grpc_port,
        scheduler_host: settings.scheduler.ip().to_string(),
        scheduler_port: settings.scheduler.port(),
        scheduler_connect_timeout_seconds: 10,
        concurrent_tasks: settings.concurrent_tasks,
        work_dir,
        print_thread_info: false,
        executor_heartbeat_interval_seconds: settings.heartbeat.as_secs().max(1),
        override_config_producer: Some(Arc::new(SessionConfig::new_with_ballista)),
        override_runtime_producer: Some(Arc::new(move |_config: &SessionConfig| {
            let mut builder = RuntimeEnvBuilder::new().with_object_store_registry(stores.clone());
            if let Some(dir) = &temp_dir {
                builder = builder.with_temp_file_path(dir);
            }
            builder.build_arc()
        })),
        ..ExecutorProcessConfig::default()
    };
    runtime()?.block_on(start_executor_process(Arc::new(config)))?;
    Ok(())
}

/// The stack of every thread that plans or runs DataFusion statements, in the cluster processes
/// and in the rebuild's client: Ballista's own binaries give their planner threads 32 MiB, as deep
/// plans recurse (and recurse deeper still in the tests' build, where DataFusion is unoptimised).
pub(crate) const PLANNER_STACK_BYTES: usize = 32 * 1024 * 1024;

fn runtime() -> Result<tokio::runtime::Runtime, ClusterProcessError> {
    Ok(tokio::runtime::Builder::new_multi_thread().enable_all().thread_stack_size(PLANNER_STACK_BYTES).build()?)
}

/// A cluster process could not start or stopped on an error.
#[derive(Debug, thiserror::Error)]
pub enum ClusterProcessError {
    /// Ballista's own error.
    #[error(transparent)]
    Ballista(#[from] ballista_core::error::BallistaError),
    /// The async runtime could not start.
    #[error("starting the runtime: {0}")]
    Runtime(#[from] std::io::Error),
    /// An executor's port leaves no room for its gRPC port (the next one).
    #[error("executor port {0} leaves no room for its gRPC port (the next one)")]
    Port(u16),
}
