#!/usr/bin/env bash
# `make fuzz`: every target of `agentrep_fuzz::TARGETS` (fuzz/src/lib.rs) under libFuzzer's
# coverage guidance, FUZZ_RUNS executions each (10 million by default), one after the other.
#
# The committed corpus (fuzz/corpus/<target>/) seeds each run; what libFuzzer adds goes to a work
# corpus under FUZZ_WORK, so the repository's stays small. A crash or a broken property leaves its
# input in FUZZ_WORK/artifacts/<target>/ and fails the run; reproduce it with
# `cargo run -p agentrep-fuzz -- run <target> <file>`, fix it, and commit the input to the
# target's corpus as `regression-*` (the short run inside `make test` replays it from then on).
#
# Builds with cargo-fuzz (installed from crates.io into the tools folder) on the stable toolchain,
# without a sanitizer (`-s none`: AddressSanitizer needs nightly; safe Rust has no memory errors
# for it to find, and the crate forbids `unsafe`).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${FUZZ_RUNS:-10000000}
work=${FUZZ_WORK:-${XDG_CACHE_HOME:-$HOME/.cache}/agentrep/fuzz}
tools=${AGENTREP_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/agentrep/tools}
export CARGO_TARGET_DIR=${FUZZ_TARGET_DIR:-$work/target}
export PATH="$tools/bin:$PATH"
cargo=${CARGO:-cargo}
if ! "$cargo" fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz 0.13.2 into $tools"
  "$cargo" install cargo-fuzz --version 0.13.2 --locked --root "$tools"
fi
# One folder per target (the short run in `make test` holds the folders to `TARGETS`).
targets=${FUZZ_TARGETS:-$(ls fuzz/corpus)}
(cd fuzz/libfuzzer && "$cargo" fuzz build --fuzz-dir . -s none -O agentrep)
bin="$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release/agentrep"
mkdir -p "$work"
report="$work/report.tsv"
printf 'target\texecutions\tseconds\tcorpus\tresult\n' >"$report"
failed=0
for target in $targets; do
  mkdir -p "$work/corpus/$target" "$work/artifacts/$target"
  log="$work/$target.log"
  start=$(date +%s)
  set +e
  AGENTREP_FUZZ_TARGET=$target "$bin" "$work/corpus/$target" "fuzz/corpus/$target" \
    -runs="$runs" -max_len=8192 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$target/" >"$log" 2>&1
  status=$?
  set -e
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus=$(ls "$work/corpus/$target" | wc -l)
  result=ok
  if [ "$status" -ne 0 ]; then result="failed: $(ls "$work/artifacts/$target" | head -1)"; failed=1; fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$target" "${executed:-0}" "$(($(date +%s) - start))" "$corpus" "$result" | tee -a "$report"
done
# The API's own fuzzer: schemathesis against the server, unseeded (new requests every run) and
# longer than the seeded pass inside `make test` (SCHEMATHESIS_EXAMPLES per operation, 500 by
# default; FUZZ_SCHEMATHESIS=0 skips it). It runs in the test target dir `make test` uses.
if [ "${FUZZ_SCHEMATHESIS:-1}" != 0 ]; then
  start=$(date +%s)
  set +e
  CARGO_TARGET_DIR=${TEST_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agentrep/target} \
    AGENTREP_SCHEMATHESIS_SEED=random AGENTREP_SCHEMATHESIS_EXAMPLES=${SCHEMATHESIS_EXAMPLES:-500} \
    AGENTREP_SCHEMATHESIS_TIMEOUT_SECS=${SCHEMATHESIS_TIMEOUT_SECS:-7200} \
    "$cargo" test --workspace --features agentrep-jobs/cluster --test integration -- \
    clients::schemathesis::the_openapi_document_is_valid_and_the_server_keeps_it --exact --nocapture >"$work/schemathesis.log" 2>&1
  status=$?
  set -e
  result=ok
  if [ "$status" -ne 0 ]; then result="failed: see $work/schemathesis.log"; failed=1; fi
  printf '%s\t%s\t%s\t%s\t%s\n' schemathesis "${SCHEMATHESIS_EXAMPLES:-500}/operation" "$(($(date +%s) - start))" - "$result" | tee -a "$report"
fi
echo "fuzz: report in $report"
exit $failed
