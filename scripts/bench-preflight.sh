#!/usr/bin/env bash
# The URL preflight and the overlay (issue 44), at benchmark scale: `make bench` runs it against
# its own server after the computed reads; `BENCH_ONLY=preflight make bench` runs it alone (the
# benchmark world and its newest day's snapshot are made first when absent, then served).
#
# - The URL preflight and the signed trust-provider answer (issue 54, both directions) at a fixed
#   1,000 req/s (oha, open loop, --latency-correction), against the
#   baseline of the same run: /preflight/{addr}, a published document served from memory, at the
#   same rate. A listed URL by GET, and by POST with its honest 402 and with a decoy's.
# - `agentrep overlay` on a snapshot of the day before the lake's newest (so a whole day of probes,
#   paid calls and denylist entries is newer than it): reading its live basis and index and that
#   evidence, folding, judging and publishing (wall time and peak RSS, BENCH_RUNS times).
#
# Needs: AGENTREP_BIN, BENCH_DIR, BENCH_RESULTS, OHA, BENCH_PORT (a server on 127.0.0.1 serving
# BENCH_DIR/snapshots; started here when absent), BENCH_RUNS (3), BENCH_SECONDS (10).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AGENTREP_BIN:-$root/target/release/agentrep}"
out="${BENCH_DIR:-$root/bench-data}"
results="${BENCH_RESULTS:-$out/results.txt}"
oha="${OHA:-$out/tools/bin/oha}"
port="${BENCH_PORT:-18402}"
runs="${BENCH_RUNS:-3}"
duration="${BENCH_SECONDS:-10}"
lake="$out/lake" snap="$out/snapshots"
log() { echo "$*" | tee -a "$results"; }
pids=()
trap 'for p in "${pids[@]:-}"; do kill "$p" 2>/dev/null || true; done' EXIT

"$root/scripts/install-debian.sh" time
[ -x "$oha" ] || cargo install oha --version 1.16.0 --locked --root "$out/tools" >/dev/null
[ -f "$lake/labels.json" ] || "$bin" world --lake "$lake" --scale bench >/dev/null
[ -e "$snap/current" ] || "$bin" rebuild --lake "$lake" --snapshots "$snap" --retain 2 >/dev/null 2>"$out/rebuild-preflight.log"
base="http://127.0.0.1:$port/api/agent"
if ! curl -sf "$base/health" >/dev/null; then
  AGENTREP_TRUST_SIGNING_KEY="${AGENTREP_TRUST_SIGNING_KEY:-$(printf '%064d' 7)}" \
    "$bin" serve --snapshots "$snap" --addr "127.0.0.1:$port" >"$out/serve-preflight.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 120); do curl -sf "$base/health" >/dev/null && break; sleep 1; done
fi
first=$(awk -F, 'NR == 2 {print $2}' "$snap/current/scores.csv")

python3 - "$snap/current/index/listings.jsonl" "$out" <<'PY'
import json, sys, urllib.parse
listing = json.loads(open(sys.argv[1]).readline())
out = sys.argv[2]
def required(pay_to):
    return {"x402Version": 2, "resource": {"url": listing["resource"]}, "accepts": [{"scheme": "exact",
        "network": listing["network"], "amount": listing["price"], "asset": listing["asset"], "payTo": pay_to,
        "maxTimeoutSeconds": 60}]}
open(f"{out}/url-get.txt", "w").write(urllib.parse.quote(listing["resource"], safe=""))
json.dump({"url": listing["resource"], "paymentRequired": required(listing["payTo"])}, open(f"{out}/url-honest.json", "w"))
json.dump({"url": listing["resource"], "paymentRequired": required("0x" + "de" * 20)}, open(f"{out}/url-decoy.json", "w"))
json.dump({"schema": "x402-trust-query-v0.1", "direction": "seller", "subject": {"wallet": listing["payTo"], "chain": "base"},
    "resource": {"amount": {"value": "0.01", "currency": "USDC", "chain": "base"}}}, open(f"{out}/trust-seller.json", "w"))
PY

fixed_rate() { # label, oha args... → per run: p99 ms, achieved req/s, statuses
  local label="$1"; shift
  local per_run=()
  for _ in $(seq 1 "$runs"); do
    json=$("$oha" --no-tui --output-format json --latency-correction -z "${duration}s" -q 1000 -c 16 "$@")
    per_run+=("$(echo "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); s=d["statusCodeDistribution"]; print(round(d["latencyPercentiles"]["p99"]*1000, 3), round(d["summary"]["requestsPerSec"]), "ok" if list(s) == ["200"] else s)')")
  done
  log "$label at 1k req/s (oha -q 1000 -c 16, ${duration}s): p99 ms, achieved req/s, statuses per run: ${per_run[*]}"
}
fixed_rate "/preflight/{addr} (baseline)" "$base/preflight/$first"
fixed_rate "GET /preflight?url=" "$base/preflight?url=$(cat "$out/url-get.txt")"
fixed_rate "POST /preflight (honest 402)" -m POST -T application/json -D "$out/url-honest.json" "$base/preflight"
fixed_rate "POST /preflight (decoy 402)" -m POST -T application/json -D "$out/url-decoy.json" "$base/preflight"
# The trust-provider answer (issue 54), signed by the AGENTREP_TRUST_SIGNING_KEY the benchmark's
# server is started with.
payer=$(curl -sf "$base/top-buyers?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["buyers"][0]["address"])')
printf '{"schema":"x402-trust-query-v0.1","payer":{"wallet":"%s"},"resource":{"url":"https://x.example/","amount":{"value":"0.01","currency":"USDC","chain":"base"}}}' "$payer" >"$out/trust-payer.json"
fixed_rate "POST /trust/evaluate (seller)" -m POST -T application/json -D "$out/trust-seller.json" "$base/trust/evaluate"
fixed_rate "POST /trust/evaluate (payer)" -m POST -T application/json -D "$out/trust-payer.json" "$base/trust/evaluate"

# The overlay of the day before the newest: the newest day's probes, paid calls and denylist
# entries are its evidence (a whole day of it, where the scheduler folds in a probe cycle's).
prev=$(ls "$lake/probes" | sed 's/date=//' | sort | tail -n 2 | head -n 1)
ov="$out/snapshots-overlay"
[ -e "$ov/current" ] || "$bin" rebuild --lake "$lake" --snapshots "$ov" --date "$prev" --retain 1 >/dev/null 2>"$out/rebuild-overlay.log"
for i in $(seq 1 "$runs"); do
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$bin" overlay --lake "$lake" --snapshots "$ov" >"$out/overlay.txt" 2>"$out/overlay.log"
  read -r wall rss < "$out/time.txt"
  log "agentrep overlay run $i: wall ${wall}s, peak RSS $((rss / 1024)) MiB ($(cat "$out/overlay.txt"))"
done
