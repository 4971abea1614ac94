# Sourced by the bench scripts that need a bucket: starts a local S3 server on 127.0.0.1, creates
# the bucket $1, exports the AWS_* variables a bucket lake reads, and stops the server on exit
# (its log in $out/s3.log). Also the helpers they share. The server is $BENCH_S3_SERVER:
#   - moto: moto_server from .tools/s3, objects in memory (small worlds);
#   - s3s-fs: s3s-fs from .tools/s3s, each object a file under $out/s3 (benchmark scale). Its
#     listings walk the whole bucket and carry no ETag, so a bucket lake re-hashes its cached
#     copies each day there (the digest step costs more than on S3, equally for every engine).
case "${BENCH_S3_SERVER:?set by the calling script}" in
moto)
  "$root/.tools/s3/bin/moto_server" -H 127.0.0.1 -p 0 >"$out/s3.log" 2>&1 &
  s3_server=$!
  for _ in $(seq 100); do grep -q 'Running on http://127.0.0.1:' "$out/s3.log" && break; sleep 0.1; done
  endpoint=$(grep -o 'http://127.0.0.1:[0-9]*' "$out/s3.log" | head -n 1)
  curl -sf -X PUT "$endpoint/$1" -o /dev/null
  ;;
s3s-fs)
  "$root/scripts/fetch-s3s.sh"
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$out/s3/$1" # a bucket is a folder
  "$root/.tools/s3s/bin/s3s-fs" --host 127.0.0.1 --port "$port" --access-key bench --secret-key bench "$out/s3" >"$out/s3.log" 2>&1 &
  s3_server=$!
  endpoint="http://127.0.0.1:$port"
  for _ in $(seq 100); do curl -s -o /dev/null "$endpoint/" && break; sleep 0.1; done
  ;;
*) echo "BENCH_S3_SERVER: moto or s3s-fs, not $BENCH_S3_SERVER" >&2; exit 2 ;;
esac
trap 'kill $s3_server 2>/dev/null || true' EXIT
export AWS_ENDPOINT_URL="$endpoint" AWS_ALLOW_HTTP=true AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench

timed() { # label, command...: prints the wall seconds (its output and log go to $out/<label>.log,
  # its peak resident memory in KiB is appended to $out/<label>.rss)
  local label="$1"; shift
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/$label.log"
  cut -d' ' -f2 "$out/time.txt" >>"$out/$label.rss"
  cut -d' ' -f1 "$out/time.txt"
}
peak_gib() { sort -n "$out/$1.rss" | tail -n 1 | awk '{printf "%.1f", $1 / 1048576}'; } # label: its runs' peak RSS
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
