#!/usr/bin/env bash
# `make bench`, section "ingest" (also run alone: `BENCH_ONLY=ingest make bench`).
#
# 1. Settlements from a local node: anvil started with `--load-state` of a pre-built chain (made
#    once by the `bench_chain` example of the tests crate and kept in bench-data/ingest/chain):
#    1,000 blocks, each with 200 EIP-3009 settlements to 100 listed sellers and 100 USDC mints to
#    other wallets (Transfers the sellers' filter skips). Alternately: the node's bare
#    `eth_getLogs` rate (`agentrep bench logs`: same filter, same windows, logs counted and
#    dropped) and `agentrep ingest --source settlements` into an empty lake (logs decoded, the
#    blocks' transactions read, rows written to Parquet). Whole processes, wall time, medians of
#    BENCH_RUNS.
# 2. Probes: 1,000 x402 endpoints on one loopback port (distinct hosts are not possible on
#    loopback, so the per-host limit is raised for the run), `agentrep ingest --source probes`.
#
# BENCH_RUNS (3), BENCH_TRANSFERS (200000, a new count regenerates the chain), BENCH_LOG_WINDOW
# (50 blocks: 10,000 settlement logs a page, the usual provider cap) tune it. BENCH_FORMS_EVERY=N
# (0: none) makes every N-th settlement of the chain one in another form (the Permit2 proxies, an
# escrow charge, a channel's claim and sweep, in turn; `bench_chain --forms-every`), kept in its own
# chain directory, so the ingest's rate with the forms in the mix compares with the EIP-3009 chain's.
# BENCH_RECEIPTS_PER_BATCH sets the ingest's `chain.receipts_per_batch` (default: the config's, 50;
# 1 asks for one receipt a request).
# Every command is bounded by `timeout`; the node and the endpoint server are stopped on exit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AGENTREP_BIN:-$root/target/release/agentrep}"
chain_bin="${BENCH_CHAIN_BIN:-$root/target/release/examples/bench_chain}"
out="${BENCH_DIR:-$root/bench-data}"
results="${BENCH_RESULTS:-$out/results.txt}"
runs="${BENCH_RUNS:-3}"
transfers="${BENCH_TRANSFERS:-200000}"
window="${BENCH_LOG_WINDOW:-50}"
forms_every="${BENCH_FORMS_EVERY:-0}"
receipts_per_batch="${BENCH_RECEIPTS_PER_BATCH:-50}"
endpoints=1000
port=18545
dir="$out/ingest"
chain="$dir/chain"
[ "$forms_every" = 0 ] || chain="$dir/chain-forms-$forms_every"
mkdir -p "$dir"
log() { echo "$*" | tee -a "$results"; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN {printf "%.0f", n / s}'; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.3f", b - a}'; }
pids=()
cleanup() { for p in "${pids[@]:-}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# The chain (cached: rebuilt only when missing or made with another transfer count).
meta="$chain/meta.json"
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$meta" "$1"; }
if [ ! -f "$meta" ] || [ "$(field dense_transfers)" != "$transfers" ]; then
  t0=$(now)
  timeout 1800 "$chain_bin" chain-state --dir "$chain" --transfers "$transfers" --forms-every "$forms_every" \
    >"$dir/chain-state.log" 2>&1 \
    || { tail -n 20 "$dir/chain-state.log"; exit 1; }
  log "ingest chain state: generated in $(since "$t0") s ($(field dense_transfers) settlements in $(field head) blocks, state $(( $(field state_bytes) / 1048576 )) MiB)"
fi
first=$(field dense_first); last=$(field dense_last)
# Rows the ingest writes besides one per settlement: an escrow_events row per escrow charge.
escrow_rows=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("escrow_charges", 0))' "$meta")

# The node, loaded from the state file.
t0=$(now)
"$root/.tools/bin/anvil" --host 127.0.0.1 --port "$port" --chain-id 8453 --no-mining --prune-history \
  --accounts 0 --hardfork cancun --gas-limit 1000000000 --color never --load-state "$chain/state.json" \
  >"$dir/anvil.log" 2>&1 &
pids+=($!)
rpc="http://127.0.0.1:$port"
for _ in $(seq 1 240); do
  curl -sf -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "$rpc" \
    | grep -q "\"0x$(printf '%x' "$last")\"" && break
  sleep 0.5
done
curl -sf -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "$rpc" \
  | grep -q "\"0x$(printf '%x' "$last")\"" || { echo "anvil did not load $chain/state.json"; tail -n 20 "$dir/anvil.log"; exit 1; }
log "ingest: anvil $("$root/.tools/bin/anvil" --version | head -n 1 | awk '{print $3}') loaded the state in $(since "$t0") s"
# One empty block on top: the ingest stops short of the head's second (blocks may still join it).
curl -sf -H 'content-type: application/json' -d '{"jsonrpc":"2.0","id":1,"method":"evm_mine","params":[]}' "$rpc" >/dev/null

cat > "$dir/settlements.toml" <<TOML
[chain]
rpc_urls = ["$rpc"]
use_finalized = false
confirmations = 0
start_block = 0
log_window = $window
receipts_per_batch = $receipts_per_batch
TOML

bare() { # first last → "seconds logs blocks pages"
  local t0 json
  t0=$(now)
  json=$(timeout 600 "$bin" bench logs --rpc "$rpc" --lake "$chain/lake" --from-block "$1" --to-block "$2" --log-window "$window")
  echo "$(since "$t0") $(echo "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["logs"], d["blocks"], d["pages"])')"
}
ingest() { # first last → "seconds logs rows"
  local t0 lake="$dir/run/lake"
  rm -rf "$dir/run"; mkdir -p "$dir/run"; cp -r "$chain/lake" "$lake"
  t0=$(now)
  RUST_LOG="${RUST_LOG:-info,agentrep_ingest::sources=debug}" timeout 600 "$bin" ingest --lake "$lake" --config "$dir/settlements.toml" --source settlements \
    --from-block "$1" --until-block "$2" 2>"$dir/ingest.log" >/dev/null || { tail -n 20 "$dir/ingest.log" >&2; return 1; }
  local s; s=$(since "$t0")
  # The tracing lines carry the counts ("Source ingested.") and the phases' times (debug lines of
  # the settlements source), ANSI colour codes stripped.
  echo "$s $(sed 's/\x1b\[[0-9;]*m//g' "$dir/ingest.log" | awk '
    {for (i = 1; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]}}
    END {print v["logs"], v["rows"], v["scan_ms"], v["transactions_ms"], v["receipts"] "+" v["classify_ms"], v["write_ms"]}')"
}

b_s=(); i_s=(); scan=(); txs=(); receipts=(); write=()
for _ in $(seq 1 "$runs"); do
  read -r s b_logs blocks pages < <(bare "$first" "$last"); b_s+=("$s")
  read -r s i_logs i_rows sc tx re wr < <(ingest "$first" "$last"); i_s+=("$s")
  scan+=("$sc"); txs+=("$tx"); receipts+=("${re#*+}"); routed="${re%+*}"; write+=("$wr")
  # One row per settlement log (a channel's sweep stands for its claim) plus the escrow events; the
  # ingest's log count also holds the escrow's and the channel contract's own logs.
  [ "$i_rows" = "$((b_logs + escrow_rows))" ] && { [ "$forms_every" != 0 ] || [ "$i_logs" = "$b_logs" ]; } \
    || { echo "the ingest read $i_logs logs and wrote $i_rows rows, the bare scan read $b_logs logs"; exit 1; }
done
bm=$(printf '%s\n' "${b_s[@]}" | median); im=$(printf '%s\n' "${i_s[@]}" | median)
# The rate ratio of each (bare, ingest) pair: robust to the machine's speed drifting between pairs.
pairs=(); for i in "${!b_s[@]}"; do pairs+=("$(ratio "${b_s[$i]}" "${i_s[$i]}")"); done
mix="EIP-3009 only"; [ "$forms_every" = 0 ] || mix="every ${forms_every}th settlement in another form, $receipts_per_batch receipts a request"
log "ingest settlements (blocks $first-$last, $b_logs logs to sellers, $mix, $pages pages of $window blocks): ingest $(rate "$b_logs" "$im") logs/s and $(rate "$blocks" "$im") blocks/s (${im} s), bare eth_getLogs $(rate "$b_logs" "$bm") logs/s and $(rate "$blocks" "$bm") blocks/s (${bm} s), ingest/bare $(printf '%s\n' "${pairs[@]}" | median) (median of $runs pairs: ${pairs[*]}; runs: ingest ${i_s[*]} s, bare ${b_s[*]} s)"
m() { printf '%s\n' "$@" | median; }
log "ingest settlements, where the time goes (medians, ms): the eth_getLogs scan (pages decoded) ends at $(m "${scan[@]}"), the blocks with their transactions (eth_getBlockByNumber, full, read as the pages come) at $(m "${txs[@]}"), then the rows (with the receipts of $routed settlements made through contracts) $(m "${receipts[@]}"), merge and Parquet write $(m "${write[@]}")"
kill "${pids[0]}" 2>/dev/null || true

# Probes: 1,000 endpoints on one loopback host.
rm -rf "$dir/probe-lake" "$dir/probe.ready"
timeout 900 "$chain_bin" probe-server --endpoints "$endpoints" --lake "$dir/probe-lake" --ready "$dir/probe.ready" --seconds 600 \
  >"$dir/probe-server.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do [ -f "$dir/probe.ready" ] && break; sleep 0.5; done
[ -f "$dir/probe.ready" ] || { echo "the probe server did not start"; cat "$dir/probe-server.log"; exit 1; }
cat > "$dir/probes.toml" <<TOML
[probes]
# Every endpoint is on 127.0.0.1: one host. The default 5 requests/s per host would spread 1,000
# probes over 200 s; the benchmark measures the probe code, so the host limit is lifted.
allow_private_targets = true
per_host_per_second = 100000
TOML
p_s=()
for _ in $(seq 1 "$runs"); do
  rm -rf "$dir/run"; mkdir -p "$dir/run"; cp -r "$dir/probe-lake" "$dir/run/lake"
  t0=$(now)
  timeout 300 "$bin" ingest --lake "$dir/run/lake" --config "$dir/probes.toml" --source probes >/dev/null 2>"$dir/probes.log" \
    || { tail -n 20 "$dir/probes.log"; exit 1; }
  p_s+=("$(since "$t0")")
  timeout 60 "$chain_bin" check-probes --lake "$dir/run/lake" --endpoints "$endpoints"
done
log "ingest probes: $endpoints endpoints on one loopback host (per_host_per_second = 100000, concurrency 64): wall $(printf '%s\n' "${p_s[@]}" | median) s (median of $runs; runs ${p_s[*]} s)"
rm -rf "$dir/run"
