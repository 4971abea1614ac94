#!/usr/bin/env bash
# Installs what only the tests run (each part is silent when already installed):
#   - anvil and solc (npm), for the contract and ingest tests;
#   - the clients the tests drive: MCP SDKs, x402 buyers, the original service's SDK, schemathesis,
#     DuckDB and polars for Python, the local S3 server (npm, PyPI);
#   - headless Chromium and a font (Debian), for the page tests.
# `make setup` runs it; `make test` runs it while the workspace compiles (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/fetch-chain-tools.sh
./scripts/fetch-test-clients.sh
./scripts/install-debian.sh chromium fonts-dejavu-core
