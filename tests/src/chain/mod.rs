//! A real local chain for end-to-end tests: the anvil harness and the project's contract test
//! doubles.

pub mod anvil;
pub mod contracts;

pub use anvil::{Anvil, AnvilOptions};
