#!/usr/bin/env bash
# Checks that contracts/artifacts is what contracts/src compiles to with the pinned solc (and that every event
# still has the topic0 onchain.md gives): installs the chain tools if needed, recompiles in memory, compares.
# Exit 0 = up to date; non-zero = stale artifacts, an ABI/topic mismatch, or tools that could not be installed.
# Fix stale artifacts with: node scripts/compile-contracts.mjs (then commit contracts/artifacts).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/fetch-chain-tools.sh"
exec node "$root/scripts/compile-contracts.mjs" --check
