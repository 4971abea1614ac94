//! `agentrep`: generate the embedded world, rebuild and publish daily snapshots, serve them, and
//! evaluate verdicts against the world's labels.

use agentrep_jobs::{cli, commands, progress};
use clap::Parser;

/// mimalloc instead of glibc's allocator: the rebuild builds and drops millions of small strings and
/// records (payloads, per-seller features), and glibc spent a fifth of the publication's CPU in
/// malloc, free and consolidating its free lists (BENCHMARKS.md § 4k).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // reqwest is built without a TLS crypto provider (rustls on ring is chosen here, once): every
    // HTTP client the program builds (the payment chain, facilitators, live sources, ingest)
    // panics if one is built before this line.
    agentrep_ingest::web::install_crypto_provider();
    let cli = cli::Cli::parse();
    progress::init_tracing(cli.verbose, cli.log_format);
    match commands::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("agentrep: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
