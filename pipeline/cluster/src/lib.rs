//! agentrep past one machine: the rebuild's settlement pass on an Apache DataFusion Ballista
//! cluster ([`Ballista`], a [`PassEngine`](agentrep_pipeline::PassEngine)), and the cluster's
//! scheduler and executor processes ([`run_scheduler`], [`run_executor`]), which read the lake's
//! bucket with the lake's `AWS_*` configuration.

mod engine;
mod process;
mod stores;

pub use engine::Ballista;
pub use process::{ClusterProcessError, ExecutorSettings, run_executor, run_scheduler};
