#!/usr/bin/env bash
# Runs every test and closes with one summary line over all test binaries
# ("tests: N passed, N failed, N skipped"), keeping cargo's exit status.
set -uo pipefail
log="$(mktemp)"
tools_log="$(mktemp)"
trap 'rm -f "$log" "$tools_log"' EXIT
# The tools only the tests run install meanwhile (network and disk; the build has the cores).
"$(dirname "$0")/setup-test-tools.sh" >"$tools_log" 2>&1 &
tools=$!
# The ingest tests run the `agentrep` binary as a process (killed and restarted, scheduled):
# `cargo test` builds a package's binaries only for that package's own tests. The binary is built
# with the selection `make build` uses (the whole workspace, every target), so it shares every
# compiled dependency with `make build` and `cargo test` (building one package alone resolves
# other features and rebuilds part of the dependency tree). The tests need the binary with the
# Ballista engine and `agentrep cluster` (feature `cluster`, as `make build-cluster` builds it).
features=(--features agentrep-jobs/cluster)
"${CARGO:-cargo}" build --workspace --all-targets "${features[@]}"
built=$?
wait "$tools"
tools_status=$?
cat "$tools_log"
[ "$tools_status" -eq 0 ] || { echo "test: installing the test tools failed (exit $tools_status)" >&2; exit "$tools_status"; }
[ "$built" -eq 0 ] || exit "$built"
# Three test threads on two cores: many tests wait (on anvil's one busy core, on a child
# process, on a timer), and the integration binary's first test holds one thread while it builds
# the fixtures later areas share (tests/integration.rs; BENCHMARKS.md § 4p).
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-3}"
"${CARGO:-cargo}" test --workspace --no-fail-fast "${features[@]}" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
awk '/^test result:/ {
  for (i = 2; i <= NF; i++) {
    if ($i ~ /^passed;?$/) p += $(i - 1)
    if ($i ~ /^failed;?$/) f += $(i - 1)
    if ($i ~ /^ignored;?$/) s += $(i - 1)
  }
} END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }' "$log"
exit "$status"
