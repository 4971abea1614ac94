#!/usr/bin/env bash
# `BENCH_ONLY=history make bench`: what a steady day costs against the length of the lake's
# history, and on a news day.
#
# Worlds of BENCH_HISTORY_SCALE (default bench) with 30, 90 and 180 days of history at the 30-day
# world's daily rate (`agentrep world --days N`: the longer ones hold proportionally more
# settlements), and the 30-day world again with ten times the usual new settlements on its last
# day (`--last-day-surge 10`; the same seed, so every other day is the same). In each, the day
# before the last is rebuilt from scratch (its carried states stored), then the last day is rebuilt
# as a steady day (folding one day onto the day before's states) BENCH_HISTORY_RUNS times (2), its
# own states removed before each run. Every world is removed once measured.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AGENTREP_BIN:-$root/target/release/agentrep}"
out="${BENCH_DIR:-$root/bench-data}/history"
results="${BENCH_RESULTS:-$out/results.txt}"
scale="${BENCH_HISTORY_SCALE:-bench}"
runs="${BENCH_HISTORY_RUNS:-2}"
lengths="${BENCH_HISTORY_DAYS:-30 90 180}"
mkdir -p "$out"
"$root/scripts/install-debian.sh" time
log() { echo "$*" | tee -a "$results"; }

timed() { # label, command...: prints "wall_s peak_MiB"
  local label="$1"; shift
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/$label.log"
  awk '{printf "%s %d\n", $1, $2 / 1024}' "$out/time.txt"
}

# One world: generate it, rebuild the day before the last, time the last day `runs` times.
measure() { # name, world flags...
  local name="$1"; shift
  local lake="$out/$name/lake" snap="$out/$name/snapshots"
  rm -rf "$out/$name"
  read -r gwall grss < <(timed "$name-world" "$bin" world --lake "$lake" --scale "$scale" "$@")
  local settlements
  settlements=$(grep -o 'settlements=[0-9]*' "$out/$name-world.log" | head -n 1 | cut -d= -f2)
  local last before
  last=$(ls "$lake/settlements" | sed 's/date=//' | tail -n 1)
  before=$(ls "$lake/settlements" | sed 's/date=//' | tail -n 2 | head -n 1)
  read -r cwall crss < <(timed "$name-scratch" "$bin" rebuild --lake "$lake" --snapshots "$snap" --date "$before" --retain 2 --from-scratch)
  log "history $name: $settlements settlements; world ${gwall}s ${grss} MiB; day $before from scratch ${cwall}s ${crss} MiB"
  for run in $(seq 1 "$runs"); do
    find "$lake/_carried" -maxdepth 2 -name "date=$last" -exec rm -rf {} +
    read -r wall rss < <(timed "$name-steady-$run" "$bin" rebuild --lake "$lake" --snapshots "$snap" --date "$last" --retain 2)
    passes=$(tail -n 1 "$snap/runs.jsonl" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(" ".join(f"{k}={v}" for k, v in r["passes"]))')
    log "history $name: steady day $last run $run: wall ${wall}s, peak RSS ${rss} MiB; passes (ms): $passes"
  done
  rm -rf "$out/$name"
}

log "history benchmark: scale $scale, $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(date -u +%Y-%m-%dT%H:%MZ)"
for days in $lengths; do
  measure "days-$days" --days "$days"
done
measure "news-day" --days 30 --last-day-surge 10
