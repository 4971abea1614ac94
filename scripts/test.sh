#!/usr/bin/env bash
# Runs every test and closes with one summary line over all test binaries
# ("tests: N passed, N failed, N skipped"), keeping cargo's exit status.
set -uo pipefail
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# The ingest tests run the `agentrep` binary as a process (killed and restarted, scheduled):
# `cargo test` builds a package's binaries only for that package's own tests.
"${CARGO:-cargo}" build -p agentrep-jobs --bin agentrep || exit $?
"${CARGO:-cargo}" test --workspace --no-fail-fast "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
awk '/^test result:/ {
  for (i = 2; i <= NF; i++) {
    if ($i ~ /^passed;?$/) p += $(i - 1)
    if ($i ~ /^failed;?$/) f += $(i - 1)
    if ($i ~ /^ignored;?$/) s += $(i - 1)
  }
} END { printf "tests: %d passed, %d failed, %d skipped\n", p, f, s }' "$log"
exit "$status"
