#!/usr/bin/env bash
# Installs the pinned local-chain tools used by the contract tests into .tools/ (git-ignored):
#   - anvil 1.7.1 (Foundry's local Ethereum node), from npm @foundry-rs/anvil; the real binary ships in the
#     per-platform optional dependency @foundry-rs/anvil-linux-amd64 and is linked as .tools/bin/anvil
#   - solc 0.8.37 (npm `solc`, the official soljson WebAssembly compiler), used by scripts/compile-contracts.mjs,
#     and solc 0.8.17 (npm `solc@0.8.17` as `solc-0.8.17`), the exact compiler Uniswap Permit2's pragma pins
#   - @noble/curves 2.4.0 + @noble/hashes 2.4.0 (secp256k1 signing, keccak256) for scripts/chain-smoke.mjs
# Versions are locked by scripts/chain-tools/package.json + package-lock.json and installed with `npm ci`
# (install scripts disabled: nothing is downloaded except the locked tarballs from the npm registry).
# Silent when the installed tree matches the lock file; re-installs from scratch when the lock file changes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$root/scripts/chain-tools"
dest="$root/.tools"
stamp="$(sha256sum "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)"
installed() { [ -x "$dest/bin/anvil" ] && [ -f "$dest/STAMP" ] && [ "$(cat "$dest/STAMP")" = "$stamp" ]; }
installed && exit 0
# Concurrent callers (parallel tests) wait for one installer, then take the fast path.
if command -v flock >/dev/null; then
  exec 9>"${TMPDIR:-/tmp}/agentrep-chain-tools.$(printf '%s' "$root" | sha256sum | cut -c1-16).lock"
  flock 9
  installed && exit 0
fi
command -v npm >/dev/null || { echo "fetch-chain-tools: npm (Node.js >= 20.19) is required to install anvil and solc into $dest" >&2; exit 1; }
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform_pkg="@foundry-rs/anvil-linux-amd64" ;;
  *) echo "fetch-chain-tools: only linux-x64 is locked in scripts/chain-tools/package-lock.json (this is $(uname -s)-$(uname -m))" >&2; exit 1 ;;
esac
# Only this script's part of .tools: the MCP test clients (scripts/fetch-test-clients.sh) live beside it.
rm -rf "$dest/node_modules" "$dest/bin" "$dest/STAMP" "$dest/package.json" "$dest/package-lock.json"
mkdir -p "$dest/bin"
cp "$src/package.json" "$src/package-lock.json" "$dest/"
npm ci --prefix "$dest" --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
real="$dest/node_modules/$platform_pkg/bin/anvil"
[ -f "$real" ] || { echo "fetch-chain-tools: npm did not install $platform_pkg (the binary $real is missing)" >&2; exit 1; }
chmod +x "$real"
ln -sfn "../node_modules/$platform_pkg/bin/anvil" "$dest/bin/anvil"
version="$("$dest/bin/anvil" --version 2>&1 | head -n1)" || { echo "fetch-chain-tools: $dest/bin/anvil does not run: $version" >&2; exit 1; }
echo "$stamp" > "$dest/STAMP"
echo "fetch-chain-tools: $version; solc $(node -p "require('$dest/node_modules/solc/package.json').version") in $dest"
