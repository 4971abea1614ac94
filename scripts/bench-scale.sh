#!/usr/bin/env bash
# `BENCH_ONLY=scale make bench`: a day at benchmark scale against a day at ten times that scale
# (issue 21 § 3: 1M sellers and 100M settlements must fit one machine of 24 GiB).
#
# For each scale of BENCH_SCALES (default `bench bench10`), a 30-day world is generated, the DuckDB
# floor (a bare `GROUP BY pay_to` over its settlements) measured, the day before the last rebuilt
# from scratch (the first rebuild: every fold over every partition, every snapshot file created),
# and then the last day rebuilt as a steady day (one day folded onto the carried states). The steady
# day recycles the first day's snapshot folder as a deployment's steady day recycles its oldest
# retained one (`--retain 1` with `current` unlinked in between, so the machine holds one snapshot
# of the large world at a time: at ten times the scale a snapshot is 25 GB, and the steady day needs
# about 70 GB free for the lake, that snapshot and DuckDB's spill folder; BENCHMARKS.md § 4n).
#
# Every command runs under a memory watchdog: above BENCH_SCALE_CAP_MIB (default 22,528 MiB of
# resident memory, leaving the machine room) it is stopped and recorded as over the cap, so a world
# that does not fit never drives the machine into the kernel's OOM killer. Each world is removed once
# measured.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AGENTREP_BIN:-$root/target/release/agentrep}"
out="${BENCH_DIR:-$root/bench-data}/scale"
results="${BENCH_RESULTS:-$out/results.txt}"
scales="${BENCH_SCALES:-bench bench10}"
cap_mib="${BENCH_SCALE_CAP_MIB:-22528}"
mkdir -p "$out"
"$root/scripts/install-debian.sh" time
log() { echo "$*" | tee -a "$results"; }

# Runs a command under GNU time and the watchdog. Prints "wall_s peak_MiB" or "over-cap peak_MiB".
timed() { # label, command...
  local label="$1"; shift
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/$label.log" &
  local timer=$! peak=0 over=0
  while kill -0 "$timer" 2>/dev/null; do
    local rss=0 pid kib
    for pid in $(pgrep -P "$timer" || true); do
      kib=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
      rss=$((rss + ${kib:-0}))
    done
    rss=$((rss / 1024))
    [ "$rss" -gt "$peak" ] && peak=$rss
    if [ "$rss" -gt "$cap_mib" ]; then
      over=1
      pkill -KILL -P "$timer" || true
    fi
    sleep 1
  done
  wait "$timer" || true
  if [ "$over" = 1 ]; then
    echo "over-cap $peak"
  else
    awk '{printf "%s %d\n", $1, $2 / 1024}' "$out/time.txt"
  fi
}

passes() { # runs.jsonl: the last run's passes and what its publication wrote
  tail -n 1 "$1" | python3 -c '
import json, sys
r = json.load(sys.stdin)
w = r.get("written") or {}
passes = " ".join("%s=%s" % (k, v) for k, v in r["passes"])
print("%s | written %s files, %.0f MB, kept %s" % (passes, w.get("filesWritten"), w.get("bytesWritten", 0) / 1e6, w.get("filesKept")))'
}

log "scale benchmark: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, cap ${cap_mib} MiB, $(date -u +%Y-%m-%dT%H:%MZ)"
for scale in $scales; do
  lake="$out/$scale/lake" snap="$out/$scale/snapshots"
  rm -rf "$out/$scale"
  read -r gwall grss < <(timed "$scale-world" "$bin" world --lake "$lake" --scale "$scale")
  if [ "$gwall" = over-cap ]; then
    log "scale $scale: world generation over the cap (${grss} MiB resident when stopped)"
    rm -rf "$out/$scale"
    continue
  fi
  settlements=$(grep -o 'settlements=[0-9]*' "$out/$scale-world.log" | head -n 1 | cut -d= -f2)
  log "scale $scale: $settlements settlements; world ${gwall}s ${grss} MiB; lake $(du -sh "$lake" | cut -f1)"
  last=$(ls "$lake/settlements" | sed 's/date=//' | tail -n 1)
  before=$(ls "$lake/settlements" | sed 's/date=//' | tail -n 2 | head -n 1)
  log "scale $scale: duckdb floor $("$bin" bench floor --lake "$lake" --date "$last" --runs 5)"
  read -r wall rss < <(timed "$scale-scratch" "$bin" rebuild --lake "$lake" --snapshots "$snap" --date "$before" --retain 1 --from-scratch)
  if [ "$wall" = over-cap ]; then
    log "scale $scale: first rebuild ($before, from scratch) over the cap (${rss} MiB resident when stopped)"
    rm -rf "$out/$scale"
    continue
  fi
  log "scale $scale: first rebuild $before from scratch: wall ${wall}s, peak RSS ${rss} MiB; snapshot $(du -sh "$snap/current/" | cut -f1); passes (ms): $(passes "$snap/runs.jsonl")"
  rm "$snap/current"
  read -r wall rss < <(timed "$scale-steady" "$bin" rebuild --lake "$lake" --snapshots "$snap" --date "$last" --retain 1)
  if [ "$wall" = over-cap ]; then
    log "scale $scale: steady day $last over the cap (${rss} MiB resident when stopped)"
  else
    log "scale $scale: steady day $last: wall ${wall}s, peak RSS ${rss} MiB; passes (ms): $(passes "$snap/runs.jsonl")"
  fi
  rm -rf "$out/$scale"
done
