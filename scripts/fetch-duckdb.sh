#!/usr/bin/env bash
# Places the official prebuilt libduckdb.so (DuckDB 1.5.6) in .duckdb/lib without compiling DuckDB.
# The library ships inside the npm package @duckdb/node-bindings-linux-x64; `npm pack` only downloads it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.duckdb/lib"
version="1.5.6-r.1"
sha512="IXcrZJE6kEqM0Z4wwdVnGBHX/frOS33VPNAwDXQ/Q+Fs84b058Qe94chrCCIcNJlG8Y3UHIUU4eBeCQxW5mN1Q=="   # the registry's sha512 integrity of the tarball
[ -f "$dest/libduckdb.so" ] && [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$version" ] && exit 0
command -v npm >/dev/null || { echo "fetch-duckdb: npm is required to fetch libduckdb" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cache="${XDG_CACHE_HOME:-$HOME/.cache}/agentrep"
tarball="$cache/duckdb-node-bindings-linux-x64-$version.tgz"
if [ ! -f "$tarball" ]; then
  (cd "$work" && npm pack --silent "@duckdb/node-bindings-linux-x64@$version" >/dev/null)
  mkdir -p "$cache"
  mv "$work"/*.tgz "$tarball"
fi
actual="$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)"
case "$actual" in
  "$sha512") ;;
  *) echo "fetch-duckdb: integrity mismatch for $tarball" >&2; exit 1 ;;
esac
tar -xzf "$tarball" -C "$work" package/libduckdb.so
mkdir -p "$dest"
mv "$work/package/libduckdb.so" "$dest/libduckdb.so.tmp"
mv "$dest/libduckdb.so.tmp" "$dest/libduckdb.so"
echo "$version" > "$dest/VERSION"
echo "fetch-duckdb: libduckdb $version in $dest"
