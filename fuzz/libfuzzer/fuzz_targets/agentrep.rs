//! The libFuzzer entry point: the target `AGENTREP_FUZZ_TARGET` names, from `agentrep_fuzz::TARGETS`.
#![no_main]

use std::sync::LazyLock;

static TARGET: LazyLock<&'static agentrep_fuzz::Target> = LazyLock::new(|| {
    let name = std::env::var("AGENTREP_FUZZ_TARGET").expect("AGENTREP_FUZZ_TARGET names the target");
    agentrep_fuzz::target(&name).unwrap_or_else(|| panic!("no fuzz target {name:?}"))
});

libfuzzer_sys::fuzz_target!(|data: &[u8]| (TARGET.run)(data));
