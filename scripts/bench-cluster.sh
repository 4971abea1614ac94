#!/usr/bin/env bash
# `BENCH_ONLY=cluster make bench`: the rebuild's settlement pass on a Ballista cluster on loopback
# against the embedded DuckDB, on one bucket lake. A local S3 server on 127.0.0.1 (BENCH_S3_SERVER:
# s3s-fs by default, objects as files; moto keeps them in memory, enough for the small world)
# holds a world of BENCH_CLUSTER_SCALE (default bench); a scheduler and executors (`agentrep
# cluster`, 2 tasks each) run on 127.0.0.1. The newest day is rebuilt BENCH_CLUSTER_RUNS times (3)
# each way, from a warm lake cache: embedded and on a cluster of two executors, in turn; then on a
# cluster of one. Each cluster snapshot is compared with the embedded one, byte for byte. Medians
# of the wall time, the settlement pass's own time from the run log, and peak resident memory
# (the rebuild's, each executor's).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AGENTREP_BIN:-$root/target/release/agentrep}"
out="${BENCH_DIR:-$root/bench-data}/cluster"
results="${BENCH_RESULTS:-$out/results.txt}"
scale="${BENCH_CLUSTER_SCALE:-bench}"
export BENCH_S3_SERVER="${BENCH_S3_SERVER:-s3s-fs}"
runs="${BENCH_CLUSTER_RUNS:-3}"
"$root/scripts/install-debian.sh" time jq
"$root/scripts/fetch-test-clients.sh"
rm -rf "$out" && mkdir -p "$out"
log() { echo "$*" | tee -a "$results"; }

# shellcheck source=bench-s3.sh
. "$root/scripts/bench-s3.sh" bench-lake
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; kill $s3_server 2>/dev/null || true' EXIT
export AGENTREP_LAKE_CACHE="$out/cache"
bucket="s3://bench-lake/$scale"

cluster_pids=()
start_cluster() { # executors: a scheduler on 127.0.0.1:50450 and that many executors, 2 tasks each
  "$bin" cluster scheduler --bind 127.0.0.1:50450 >"$out/scheduler.log" 2>&1 &
  cluster_pids=($!)
  sleep 1
  for i in $(seq "$1"); do
    mkdir -p "$out/executor-$i"
    "$bin" cluster executor --bind "127.0.0.1:$((50449 + 2 * i))" --scheduler 127.0.0.1:50450 --concurrent-tasks 2 \
      --work-dir "$out/executor-$i" >"$out/executor-$i.log" 2>&1 &
    cluster_pids+=($!)
  done
  pids+=("${cluster_pids[@]}")
  sleep 3
}
hwm_gib() { awk '/VmHWM/ {printf "%.1f", $2 / 1048576}' "/proc/$1/status"; } # a process's peak RSS
stop_cluster() { # logs the processes' peak resident memory, then stops them
  local peaks="scheduler $(hwm_gib "${cluster_pids[0]}") GiB" p
  for p in "${cluster_pids[@]:1}"; do peaks+=", executor $(hwm_gib "$p") GiB"; done
  log "peak resident memory of the cluster of $(( ${#cluster_pids[@]} - 1 )): $peaks"
  kill "${cluster_pids[@]}" 2>/dev/null || true
  wait "${cluster_pids[@]}" 2>/dev/null || true
}

pass_ms() { # snapshots folder: the last run's settlement pass, ms
  tail -n 1 "$1/runs.jsonl" | jq -r '.passes[] | select(.[0] == "settlement pass") | .[1]'
}

log "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r); $(date -u +%Y-%m-%dT%H:%MZ); $bin"
log "world ($scale) into the bucket: $(timed world "$bin" world --lake "$bucket" --scale "$scale") s"
timed first "$bin" rebuild --lake "$bucket" --snapshots "$out/snap-embedded" >/dev/null
cluster=(--engine ballista --scheduler df://127.0.0.1:50450)
embedded="" two="" one="" embedded_pass="" two_pass="" one_pass=""
start_cluster 2
for _ in $(seq "$runs"); do
  embedded+=" $(timed embedded "$bin" rebuild --lake "$bucket" --snapshots "$out/snap-embedded")"
  embedded_pass+=" $(pass_ms "$out/snap-embedded")"
  two+=" $(timed two "$bin" rebuild --lake "$bucket" --snapshots "$out/snap-two" "${cluster[@]}")"
  two_pass+=" $(pass_ms "$out/snap-two")"
done
diff -r "$out/snap-embedded/current/" "$out/snap-two/current/" >/dev/null && same_two="byte-identical" || same_two="DIFFERENT"
stop_cluster
start_cluster 1
for _ in $(seq "$runs"); do
  one+=" $(timed one "$bin" rebuild --lake "$bucket" --snapshots "$out/snap-one" "${cluster[@]}")"
  one_pass+=" $(pass_ms "$out/snap-one")"
done
diff -r "$out/snap-embedded/current/" "$out/snap-one/current/" >/dev/null && same_one="byte-identical" || same_one="DIFFERENT"
stop_cluster
log "rebuild of the newest day, wall s (median of $runs): embedded $(echo "$embedded" | median) [$embedded ]; cluster, 2 executors $(echo "$two" | median) [$two ]; cluster, 1 executor $(echo "$one" | median) [$one ]"
log "settlement pass, ms (median): embedded $(echo "$embedded_pass" | median) [$embedded_pass ]; 2 executors $(echo "$two_pass" | median) [$two_pass ]; 1 executor $(echo "$one_pass" | median) [$one_pass ]"
log "peak resident memory of the rebuild, GiB: embedded $(peak_gib embedded), 2 executors $(peak_gib two), 1 executor $(peak_gib one)"
log "snapshots against the embedded run: 2 executors $same_two, 1 executor $same_one"
echo "results in $results"
