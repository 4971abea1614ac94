//! Logging (tracing) and progress bars (indicatif) for the binary.

use indicatif::{ProgressBar, ProgressStyle};
use tracing_subscriber::EnvFilter;

/// Logs to stderr; `RUST_LOG` overrides the level chosen by `-v`.
pub fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "info",
        1 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();
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
