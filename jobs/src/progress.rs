//! Logging (tracing) and progress bars (indicatif) for the binary.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use crate::cli::LogFormat;

/// Logs to stderr; `RUST_LOG` overrides the level chosen by `-v`. Text lines carry ANSI colours
/// only when stderr is a terminal (never in a file or a pipe); JSON lines are one object each.
pub fn init_tracing(verbose: u8, format: LogFormat) {
    let default = match verbose {
        0 => "info",
        1 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => builder.json().with_current_span(false).init(),
    }
}

/// A progress bar with a message; hidden when stderr is not a terminal.
pub fn bar(len: u64, message: &'static str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{msg:>12} [{bar:30}] {pos}/{len} {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(message);
    bar
}
