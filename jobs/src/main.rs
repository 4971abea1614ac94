//! `agentrep`: generate the embedded world, rebuild and publish daily snapshots, serve them, and
//! evaluate verdicts against the world's labels.

use agentrep_jobs::{cli, commands, progress};
use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    progress::init_tracing(cli.verbose);
    match commands::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("agentrep: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
