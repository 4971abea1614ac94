#!/usr/bin/env bash
# Installs s3s-fs 0.14.1 (crates.io, feature `binary`: an S3-compatible server that keeps each
# object as a file under a folder) into .tools/s3s, for the benchmarks whose lake is too large for
# moto's in-memory store (`BENCH_ONLY=cluster` at benchmark scale). Built from source with its
# lock file (`cargo install --locked`): about 3 minutes on 2 cores, once; silent when installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version=0.14.1
dest="$root/.tools/s3s"
[ -x "$dest/bin/s3s-fs" ] && [ "$("$dest/bin/s3s-fs" --version 2>/dev/null)" = "s3s-fs $version" ] && exit 0
"${CARGO:-cargo}" install s3s-fs --version "$version" --features binary --locked --root "$dest" --quiet
echo "fetch-s3s: s3s-fs $version in $dest/bin"
