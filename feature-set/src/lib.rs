//! Nothing to call: this crate exists for its `Cargo.toml`, which pins the features of the
//! dependencies that the workspace's build selections share (see there).
