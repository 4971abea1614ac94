#!/usr/bin/env bash
# `BENCH_ONLY=bucket make bench`: what the lake on a bucket costs a rebuild, against the same lake
# in a folder. A local S3 server (BENCH_S3_SERVER, moto_server by default; scripts/bench-s3.sh) holds a world of
# BENCH_BUCKET_SCALE (default small, the `make run` world); the same world is generated into a
# folder. The newest day is rebuilt BENCH_BUCKET_RUNS times (3) each way, in turn: from the folder;
# from the bucket with a warm cache (the machine rebuilt yesterday: only listings); and from the
# bucket with an empty cache (a new machine: every partition downloaded). Each snapshot is compared
# with the folder's, byte for byte. Medians of the wall time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AGENTREP_BIN:-$root/target/release/agentrep}"
out="${BENCH_DIR:-$root/bench-data}/bucket"
results="${BENCH_RESULTS:-$out/results.txt}"
scale="${BENCH_BUCKET_SCALE:-small}"
runs="${BENCH_BUCKET_RUNS:-3}"
export BENCH_S3_SERVER="${BENCH_S3_SERVER:-moto}"
"$root/scripts/install-debian.sh" time
"$root/scripts/fetch-test-clients.sh"
rm -rf "$out" && mkdir -p "$out"
log() { echo "$*" | tee -a "$results"; }

# shellcheck source=bench-s3.sh
. "$root/scripts/bench-s3.sh" bench-lake
export AGENTREP_LAKE_CACHE="$out/cache"
bucket="s3://bench-lake/$scale"

log "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r); $(date -u +%Y-%m-%dT%H:%MZ); $bin"
log "world ($scale) into a folder: $(timed world-folder "$bin" world --lake "$out/folder" --scale "$scale") s; into the bucket: $(timed world-bucket "$bin" world --lake "$bucket" --scale "$scale") s ($(du -sh "$out/folder" | cut -f1), $(find "$out/folder" -name '*.parquet' | wc -l) partitions)"
timed first "$bin" rebuild --lake "$bucket" --snapshots "$out/snap-bucket" >/dev/null
folder="" warm="" cold=""
for _ in $(seq "$runs"); do
  folder+=" $(timed folder "$bin" rebuild --lake "$out/folder" --snapshots "$out/snap-folder")"
  warm+=" $(timed warm "$bin" rebuild --lake "$bucket" --snapshots "$out/snap-bucket")"
  rm -rf "$out/cache"
  cold+=" $(timed cold "$bin" rebuild --lake "$bucket" --snapshots "$out/snap-bucket")"
done
diff -r "$out/snap-folder/current/" "$out/snap-bucket/current/" >/dev/null && same="byte-identical" || same="DIFFERENT"
log "rebuild of the newest day, wall s (median of $runs): folder $(echo "$folder" | median) [$folder ]; bucket, warm cache $(echo "$warm" | median) [$warm ]; bucket, empty cache $(echo "$cold" | median) [$cold ]; snapshots $same"
echo "results in $results"
