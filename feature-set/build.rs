//! Empty: it gives this crate's `[build-dependencies]` (see `Cargo.toml`) a build to resolve in.
fn main() {}
