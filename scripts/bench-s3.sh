# Sourced by the bench scripts that need a bucket: starts a local S3 server (moto_server from
# .tools/s3, on 127.0.0.1, logging to $out/moto.log), creates the bucket $1, exports the AWS_*
# variables a bucket lake reads, and stops the server on exit. Also the helpers they share.
"$root/.tools/s3/bin/moto_server" -H 127.0.0.1 -p 0 >"$out/moto.log" 2>&1 &
moto=$!
trap 'kill $moto 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q 'Running on http://127.0.0.1:' "$out/moto.log" && break; sleep 0.1; done
endpoint=$(grep -o 'http://127.0.0.1:[0-9]*' "$out/moto.log" | head -n 1)
curl -sf -X PUT "$endpoint/$1" -o /dev/null
export AWS_ENDPOINT_URL="$endpoint" AWS_ALLOW_HTTP=true AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench

timed() { # label, command...: prints the wall seconds (its output and log go to $out/<label>.log)
  local label="$1"; shift
  /usr/bin/time -f "%e" -o "$out/time.txt" "$@" >/dev/null 2>"$out/$label.log"
  cat "$out/time.txt"
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
