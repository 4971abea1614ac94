#!/usr/bin/env bash
# `make bench`: rebuild + publish at benchmark scale (wall time, peak RSS, ratio to DuckDB's bare
# GROUP BY), then the server against nginx serving the same snapshot files, on loopback, the
# computed reads (search, match, batch scores) at a fixed rate, then the
# ingest (`scripts/bench-ingest.sh`: settlements from a local node against its bare eth_getLogs
# rate, and probes of 1,000 loopback endpoints), and local x402 payment verification against bare
# signer recovery, the payment ledger's durable commits against bare fsyncs, and the live re-score's
# latency against anvil against its bare I/O, and the writes (signed receipts against SQLite's commit
# floor, the subscription diff, webhook deliveries to a loopback receiver) (BENCH_ONLY=payments runs
# those alone). BENCH_ONLY=history runs `scripts/bench-history.sh` (steady days after 30, 90 and
# 180 days of history, and a news day) alone. BENCH_ONLY=scale runs `scripts/bench-scale.sh` (a day
# at benchmark scale against a day at ten times it: 1M sellers, 100M settlements).
# Every load run is bounded in time; servers started here are stopped on exit.
# BENCH_RUNS (3), BENCH_SECONDS (10), BENCH_SKIP_REBUILD=1 (serve existing snapshots),
# BENCH_ONLY=preflight runs `scripts/bench-preflight.sh` (the URL preflight at 1k req/s against
# /preflight/{addr}, and the overlay's publication) alone. BENCH_ONLY=bucket runs `scripts/bench-bucket.sh` (a rebuild from a bucket lake on a local S3
# server against the same lake in a folder). BENCH_ONLY=cluster runs `scripts/bench-cluster.sh`
# (the settlement pass on a Ballista cluster on loopback, two executors and one, against the
# embedded DuckDB). BENCH_SKIP_INGEST=1 (leave the ingest out) and BENCH_ONLY=ingest (the ingest section alone) tune it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AGENTREP_BIN:-$root/target/release/agentrep}"
out="${BENCH_DIR:-$root/bench-data}"
runs="${BENCH_RUNS:-3}"
duration="${BENCH_SECONDS:-10}"
mkdir -p "$out"
results="$out/results.txt"
: > "$results"
log() { echo "$*" | tee -a "$results"; }
pids=()
cleanup() { for p in "${pids[@]:-}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

payments_bench() { # local payment verification: decode + checks + recovery, against bare recovery
  log "payment verification (50,000 v2 payments, 5 runs, both cores): $("${BENCH_VERIFY_BIN:-$root/target/release/examples/bench_verify}" 50000 5)"
  log "payment ledger (2,000 durable payment lifecycles, 4 commits each, 5 runs, in bench-data): $("${BENCH_LEDGER_BIN:-$root/target/release/examples/bench_ledger}" 2000 5 "$root/bench-data")"
  log "live re-score against anvil, settlement excluded: $("${BENCH_LIVE_BIN:-$root/target/release/examples/bench_live}" 100 300)"
  log "writes (2,000 signed receipts over HTTP against SQLite's commit floor, 5 runs; 1M subscriptions diffed; deliveries to a loopback receiver): $("${BENCH_WRITES_BIN:-$root/target/release/examples/bench_writes}" 2000 5 "$root/bench-data" 1000000)"
}
if [ "${BENCH_ONLY:-}" = payments ]; then
  payments_bench
  echo "results in $results"
  exit 0
fi

if [ "${BENCH_ONLY:-}" = history ]; then
  AGENTREP_BIN="$bin" BENCH_DIR="$out" BENCH_RESULTS="$results" "$root/scripts/bench-history.sh"
  echo "results in $results"
  exit 0
fi

if [ "${BENCH_ONLY:-}" = scale ]; then
  AGENTREP_BIN="$bin" BENCH_DIR="$out" BENCH_RESULTS="$results" "$root/scripts/bench-scale.sh"
  echo "results in $results"
  exit 0
fi

if [ "${BENCH_ONLY:-}" = bucket ]; then
  AGENTREP_BIN="$bin" BENCH_DIR="$out" BENCH_RESULTS="$results" "$root/scripts/bench-bucket.sh"
  echo "results in $results"
  exit 0
fi

if [ "${BENCH_ONLY:-}" = preflight ]; then
  log "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r); $(date -u +%Y-%m-%dT%H:%MZ)"
  AGENTREP_BIN="$bin" BENCH_DIR="$out" BENCH_RESULTS="$results" "$root/scripts/bench-preflight.sh"
  echo "results in $results"
  exit 0
fi

if [ "${BENCH_ONLY:-}" = cluster ]; then
  AGENTREP_BIN="$bin" BENCH_DIR="$out" BENCH_RESULTS="$results" "$root/scripts/bench-cluster.sh"
  echo "results in $results"
  exit 0
fi

if [ "${BENCH_ONLY:-}" = ingest ]; then
  log "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r); $(date -u +%Y-%m-%dT%H:%MZ)"
  AGENTREP_BIN="$bin" BENCH_DIR="$out" BENCH_RESULTS="$results" "$root/scripts/bench-ingest.sh"
  echo "results in $results"
  exit 0
fi

"$root/scripts/install-debian.sh" time wrk nginx
oha="$out/tools/bin/oha"
if [ ! -x "$oha" ]; then
  cargo install oha --version 1.16.0 --locked --root "$out/tools" >/dev/null
fi

timed() { # label, command...: wall seconds and peak RSS (GNU time)
  local label="$1"; shift
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/$label.log"
  read -r wall rss < "$out/time.txt"
  log "$label: wall ${wall}s, peak RSS $((rss / 1024)) MiB"
}

log "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r); $(date -u +%Y-%m-%dT%H:%MZ)"

# 1. The benchmark world.
lake="$out/lake"
if [ ! -f "$lake/labels.json" ]; then
  rm -rf "$lake" "$out/snapshots"
  timed world "$bin" world --lake "$lake" --scale bench
fi

# 2. Rebuild + publish: two cold days (every file created), then two steady-state days (retention
#    recycles the oldest snapshot's files), each timed separately.
snap="$out/snapshots"
if [ "${BENCH_SKIP_REBUILD:-0}" = 1 ] && [ -e "$snap/current" ]; then
  log "rebuild: skipped (BENCH_SKIP_REBUILD=1), serving the existing snapshots"
else
rm -rf "$snap" "$lake/daily_scores" "$lake/_carried"
days=$(ls "$lake/settlements" | sed 's/date=//' | awk '{d[NR]=$0} END {for (i = NR - 3; i <= NR; i++) print d[i]}')
i=0
for day in $days; do
  i=$((i + 1))
  kind=$([ "$i" -lt 3 ] && echo cold || echo steady)
  # Each stage's memory after it (`pipeline::memory`, JSON lines) beside its time in runs.jsonl.
  AGENTREP_LOG_FORMAT=json RUST_LOG="info,pipeline::memory=debug" \
    timed "rebuild-$day-$kind" "$bin" rebuild --lake "$lake" --snapshots "$snap" --date "$day" --retain 2
done
last_day=$(echo "$days" | tail -n 1)
# The last (steady) day, stage by stage: the stage table of `pipeline/src/stages.rs` as it ran.
python3 - "$snap/runs.jsonl" "$out/rebuild-$last_day-steady.log" <<'PY' | tee -a "$results"
import json, sys
run = json.loads(open(sys.argv[1]).readlines()[-1])
memory = {}
for line in open(sys.argv[2]):
    try:
        fields = json.loads(line).get("fields", {})
    except ValueError:
        continue
    if fields.get("message") == "Memory after pass.":
        memory[fields["pass"]] = (fields["resident_mib"], fields["duckdb_mib"], fields["spilled_mib"])
print(f"steady day {run['date']}, stage by stage (ms; resident, DuckDB and spilled MiB after the stage):")
for name, ms in run["passes"]:
    resident, duckdb, spilled = memory.get(name, ("", "", ""))
    print(f"  {name:>16} {ms:>8} ms  {resident:>6} {duckdb:>6} {spilled:>6}")
print(f"  {'day':>16} {run['durationMs']:>8} ms")
PY
floor=$("$bin" bench floor --lake "$lake" --date "$last_day" --runs 5)
log "duckdb floor (GROUP BY pay_to over the same settlements): $floor"
log "live bases (file size, indexing at load, one seller decoded as a paid re-score does, every 10th seller): $("$bin" bench live-basis --snapshot "$snap/current" --step 10)"
# What each day's publication wrote, and its digest pass (from the run log).
python3 - "$snap/runs.jsonl" <<'PY' | tee -a "$results"
import json, sys
for line in open(sys.argv[1]):
    run = json.loads(line)
    w, passes = run.get("written") or {}, dict(run["passes"])
    print(f"publication {run['date']}: {w.get('filesWritten')} files written ({w.get('bytesWritten', 0) / 1e6:.0f} MB), "
          f"{w.get('filesKept')} kept; digest pass {passes.get('digest')} ms, publish {passes.get('publish')} ms")
PY
# The input digest from the partitions' sidecars against hashing every file (the sidecars removed:
# what every rebuild did before them), the same day rebuilt twice, alternating.
for round in 1 2 3; do
  find "$lake" -name 'part-0.parquet.sha256' -delete
  "$bin" rebuild --lake "$lake" --snapshots "$snap" --date "$last_day" --retain 2 >/dev/null 2>&1
  "$bin" rebuild --lake "$lake" --snapshots "$snap" --date "$last_day" --retain 2 >/dev/null 2>&1
done
python3 - "$snap/runs.jsonl" <<'PY' | tee -a "$results"
import json, statistics, sys
runs = [dict(json.loads(l)["passes"])["digest"] for l in open(sys.argv[1]).readlines()[-6:]]
hashed, sidecars = runs[0::2], runs[1::2]
print(f"input digest: every file hashed {statistics.median(hashed)} ms, from sidecars {statistics.median(sidecars)} ms "
      f"(medians of 3; ratio {statistics.median(sidecars) / max(statistics.median(hashed), 1):.3f})")
PY
# The carried folds (first fundings, token deployers, token buys): the last day rebuilt from every
# partition (`--from-scratch`) against folding its one new day of partitions onto the day before's
# states (its own states removed first), alternating, three rounds each.
for round in 1 2 3; do
  "$bin" rebuild --lake "$lake" --snapshots "$snap" --date "$last_day" --retain 2 --from-scratch >/dev/null 2>&1
  find "$lake/_carried" -maxdepth 2 -name "date=$last_day" -exec rm -rf {} +
  "$bin" rebuild --lake "$lake" --snapshots "$snap" --date "$last_day" --retain 2 >/dev/null 2>&1
done
python3 - "$snap/runs.jsonl" <<'PY' | tee -a "$results"
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1]).readlines()[-6:]]
def fig(rs, f):
    return statistics.median(f(r) for r in rs)
passes = lambda name: lambda r: dict(r["passes"]).get(name, 0)
scratch, carried = runs[0::2], runs[1::2]
for label, f in [("first fundings", passes("first fundings")), ("buyer trust (incl. token folds)", passes("buyer trust")),
                 ("whole rebuild + publish", lambda r: r["durationMs"])]:
    a, b = fig(scratch, f), fig(carried, f)
    print(f"carried folds, {label}: from scratch {a} ms, carried {b} ms (medians of 3; ratio {b / max(a, 1):.2f})")
PY
fi

# 3. Servers: agentrep over the current snapshot, nginx over its static export (`export-static`:
# the file tree a deployment that serves snapshots with nginx or a CDN writes).
static="$out/static"
rm -rf "$static"
log "export-static: $("$bin" export-static --snapshots "$snap" --to "$static")"
log "export-static: $(du -sm "$static" | cut -f1) MB on disk, $(find "$static" -type f | wc -l) files"
addrs="$out/addresses.txt"
awk -F, 'NR > 1 && NR <= 1001 {print $2}' "$static/scores.csv" > "$addrs"
first=$(head -n 1 "$addrs")
cat > "$out/nginx.conf" <<NGINX
worker_processes 2;
pid $out/nginx.pid;
error_log $out/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  open_file_cache max=200000 inactive=60s;
  server {
    listen 127.0.0.1:18403;
    location = /api/agent/leaderboard { default_type application/json; alias $static/leaderboard.json; }
    location ~ "^/api/agent/score/(0x[0-9a-f]{40})\$" { default_type application/json; alias $static/score/\$1.json; }
  }
}
NGINX
nginx -c "$out/nginx.conf" -p "$out"
pids+=("$(cat "$out/nginx.pid" 2>/dev/null || true)")
AGENTREP_TRUST_SIGNING_KEY="$(printf '%064d' 7)" "$bin" serve --snapshots "$snap" --addr 127.0.0.1:18402 >"$out/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:18402/api/agent/health" >/dev/null && break; sleep 1; done
serve_pid="${pids[-1]}"
rss_mib() { awk '/^VmRSS/ {printf "%d", $2 / 1024}' "/proc/$serve_pid/status"; }
rss_loaded=$(rss_mib)
curl -sf "http://127.0.0.1:18403/api/agent/score/$first" >/dev/null

cat > "$out/rotate.lua" <<LUA
local addrs = {}
for line in io.lines("$addrs") do addrs[#addrs + 1] = line end
local i = 0
request = function()
  i = i % #addrs + 1
  return wrk.format("GET", "/api/agent/score/" .. addrs[i])
end
LUA

wrk_run() { # port, path-or-script → "rps p99ms"
  local port="$1" target="$2" outp
  if [ "$target" = rotate ]; then
    outp=$(wrk -t1 -c32 -d"${duration}s" --latency -s "$out/rotate.lua" "http://127.0.0.1:$port")
  else
    outp=$(wrk -t1 -c32 -d"${duration}s" --latency "http://127.0.0.1:$port$target")
  fi
  local rps p99
  rps=$(echo "$outp" | awk '/Requests\/sec/ {print $2}')
  p99=$(echo "$outp" | awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us/,"",v); v=v/1000} else if (v ~ /ms$/) {sub(/ms/,"",v)} else if (v ~ /s$/) {sub(/s/,"",v); v=v*1000}; print v}')
  echo "$rps $p99"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for target in rotate /api/agent/leaderboard; do
  name=$([ "$target" = rotate ] && echo "/score/{addr}" || echo "/leaderboard")
  ours=(); theirs=(); ours99=(); theirs99=()
  for _ in $(seq 1 "$runs"); do
    read -r r p < <(wrk_run 18402 "$target"); ours+=("$r"); ours99+=("$p")
    read -r r p < <(wrk_run 18403 "$target"); theirs+=("$r"); theirs99+=("$p")
  done
  o=$(printf '%s\n' "${ours[@]}" | median); t=$(printf '%s\n' "${theirs[@]}" | median)
  o99=$(printf '%s\n' "${ours99[@]}" | median); t99=$(printf '%s\n' "${theirs99[@]}" | median)
  log "$name: agentrep ${o} req/s (p99 ${o99} ms), nginx ${t} req/s (p99 ${t99} ms), ratio $(awk -v a="$o" -v b="$t" 'BEGIN {printf "%.2f", a / b}')x (median of $runs, wrk -t1 -c32 ${duration}s)"
done

# 4. Preflight latency at a fixed 10k req/s (open loop).
p99s=()
for _ in $(seq 1 "$runs"); do
  json=$("$oha" --no-tui --output-format json --latency-correction -z "${duration}s" -q 10000 -c 32 "http://127.0.0.1:18402/api/agent/preflight/$first")
  p99s+=("$(echo "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(round(d["latencyPercentiles"]["p99"]*1000, 3), round(d["summary"]["requestsPerSec"]))')")
done
log "/preflight/{addr} at 10k req/s (oha -q 10000 -c 32, ${duration}s): p99 ms and achieved req/s per run: ${p99s[*]}"

# 4b. The computed reads at a fixed 1,000 req/s (open loop): search, intent match, and a batch of
#     200 addresses. Each request is answered from the in-memory index (nothing is cached per query).
word=$(curl -sf "http://127.0.0.1:18402/api/agent/leaderboard?limit=1" | python3 -c 'import json,sys,re; d=json.load(sys.stdin)["results"][0]["description"] or "data"; print(max(re.findall(r"[a-z]{4,}", d.lower()) or ["data"], key=len))')
intent=$(curl -sf "http://127.0.0.1:18402/api/agent/leaderboard?limit=1" | python3 -c 'import json,sys; d=json.load(sys.stdin)["results"][0]; print(json.dumps({"intent": d["description"] or "data feed", "limit": 5}))')
echo "$intent" > "$out/match.json"
head -n 200 "$addrs" | python3 -c 'import json,sys; print(json.dumps({"addresses": [l.strip() for l in sys.stdin if l.strip()]}))' > "$out/scores.json"
computed_run() { # label, oha args... → "p99ms rps" per run
  local label="$1"; shift
  # Not `results`: that names the results file `log` appends to.
  local per_run=()
  for _ in $(seq 1 "$runs"); do
    json=$("$oha" --no-tui --output-format json --latency-correction -z "${duration}s" -q 1000 -c 16 "$@")
    per_run+=("$(echo "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["statusCodeDistribution"]; print(round(d["latencyPercentiles"]["p99"]*1000, 3), round(d["summary"]["requestsPerSec"]), "ok" if list(s) == ["200"] else s)')")
  done
  log "$label at 1k req/s (oha -q 1000 -c 16, ${duration}s): p99 ms, achieved req/s, statuses per run: ${per_run[*]}"
}
computed_run "/search?q=$word" "http://127.0.0.1:18402/api/agent/search?q=$word"
computed_run "POST /match" -m POST -T application/json -D "$out/match.json" "http://127.0.0.1:18402/api/agent/match"
computed_run "POST /scores (200 addresses)" -m POST -T application/json -D "$out/scores.json" "http://127.0.0.1:18402/api/agent/scores"

# 4c. The URL preflight at a fixed rate against /preflight/{addr}, and the overlay's publication.
AGENTREP_BIN="$bin" BENCH_DIR="$out" BENCH_RESULTS="$results" OHA="$oha" BENCH_PORT=18402 "$root/scripts/bench-preflight.sh"

log "agentrep serve resident memory (VmRSS): ${rss_loaded} MiB with the snapshot loaded, $(rss_mib) MiB after the load runs above"

# 5. Payments.
payments_bench

# 6. Ingest.
cleanup
if [ "${BENCH_SKIP_INGEST:-0}" = 1 ]; then
  log "ingest: skipped (BENCH_SKIP_INGEST=1)"
else
  AGENTREP_BIN="$bin" BENCH_DIR="$out" BENCH_RESULTS="$results" "$root/scripts/bench-ingest.sh"
fi
echo "results in $results"
