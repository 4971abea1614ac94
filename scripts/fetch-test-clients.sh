#!/usr/bin/env bash
# Installs the pinned clients the tests (tests/mcp/, tests/clients/) run against the real server, into
# .tools/ (git-ignored):
#   - .tools/clients: npm packages locked by scripts/test-clients/package.json + package-lock.json
#     (@modelcontextprotocol/sdk 1.32.2, the v1 TypeScript SDK; @modelcontextprotocol/client 2.4.0, the v2
#     SDK, which can pin protocol 2026-07-28; mainstreet-oracle 0.9.2, the original service's SDK and CLI),
#     installed with `npm ci --ignore-scripts` (nothing runs at install time; only the locked tarballs are
#     fetched, checked against their integrity hashes)
#   - .tools/py: a Python (>= 3.10) virtual environment with scripts/test-clients/requirements.txt, every
#     version pinned (mcp 2.3.0, the official Python SDK; schemathesis 4.32.5 and openapi-spec-validator
#     0.9.0, the API checkers), wheels only
#   - .tools/s3: a second virtual environment with scripts/test-clients/s3-requirements.txt (moto 5.2.1's
#     S3 server, `moto_server`, which the bucket-lake tests start on loopback), wheels only
# Each part is silent when its stamp matches its pins and re-installed from scratch when they change.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# npm resolves a prefix reached through a symlink as a link to elsewhere and then finds the lock out of
# sync: install into the real folder (a worktree may share .tools with its main checkout).
tools="$(mkdir -p "$root/.tools" && cd "$root/.tools" && pwd -P)"
src="$root/scripts/test-clients"
node_dest="$tools/clients"
py_dest="$tools/py"
s3_dest="$tools/s3"
node_stamp="$(sha256sum "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)"
py_stamp="$(sha256sum "$src/requirements.txt" | sha256sum | cut -d' ' -f1)"
s3_stamp="$(sha256sum "$src/s3-requirements.txt" | sha256sum | cut -d' ' -f1)"
node_ok() { [ -f "$node_dest/STAMP" ] && [ "$(cat "$node_dest/STAMP")" = "$node_stamp" ]; }
venv_ok() { [ -x "$1/bin/python" ] && [ -f "$1/STAMP" ] && [ "$(cat "$1/STAMP")" = "$2" ]; }
py_ok() { venv_ok "$py_dest" "$py_stamp"; }
s3_ok() { venv_ok "$s3_dest" "$s3_stamp"; }
node_ok && py_ok && s3_ok && exit 0
# Concurrent callers (parallel tests, two make targets) wait for one installer, then take the fast path.
if command -v flock >/dev/null; then
  exec 9>"${TMPDIR:-/tmp}/agentrep-test-clients.$(printf '%s' "$root" | sha256sum | cut -c1-16).lock"
  flock 9
fi
if ! node_ok; then
  command -v npm >/dev/null || { echo "fetch-test-clients: npm (Node.js >= 20) is required to install the MCP client SDKs into $node_dest" >&2; exit 1; }
  rm -rf "$node_dest"
  mkdir -p "$node_dest"
  cp "$src/package.json" "$src/package-lock.json" "$node_dest/"
  npm ci --prefix "$node_dest" --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
  echo "$node_stamp" > "$node_dest/STAMP"
  echo "fetch-test-clients: $(cd "$node_dest" && node -p "['@modelcontextprotocol/sdk','@modelcontextprotocol/client','mainstreet-oracle'].map(p => p + ' ' + require('./node_modules/' + p + '/package.json').version).join(', ')") in $node_dest"
fi
# A fresh venv at $1 with the pinned requirements file $2, stamped $3 once complete.
install_venv() {
  local dest="$1" requirements="$2" stamp="$3" python="${PYTHON:-python3}"
  command -v "$python" >/dev/null || { echo "fetch-test-clients: $python (>= 3.10) is required to install $requirements into $dest" >&2; exit 1; }
  "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "fetch-test-clients: $requirements needs Python >= 3.10 ($python is $("$python" --version 2>&1))" >&2; exit 1; }
  # Debian's python3 creates venvs only with python3-venv (ensurepip).
  if ! "$python" -c 'import ensurepip' 2>/dev/null && command -v apt-get >/dev/null; then
    "$root/scripts/install-debian.sh" python3-venv
  fi
  rm -rf "$dest"
  "$python" -m venv "$dest"
  "$dest/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --only-binary=:all: -r "$requirements"
  echo "$stamp" > "$dest/STAMP"
}
if ! py_ok; then
  install_venv "$py_dest" "$src/requirements.txt" "$py_stamp"
  echo "fetch-test-clients: $("$py_dest/bin/python" -c 'import importlib.metadata as m; print(", ".join(p + " " + m.version(p) for p in ("mcp", "schemathesis", "openapi-spec-validator", "duckdb", "polars")))') in $py_dest"
fi
if ! s3_ok; then
  install_venv "$s3_dest" "$src/s3-requirements.txt" "$s3_stamp"
  echo "fetch-test-clients: moto $("$s3_dest/bin/python" -c 'import importlib.metadata as m; print(m.version("moto"))') (moto_server) in $s3_dest"
fi
