#!/usr/bin/env bash
# The daemon side by side with the in-process pipeline, on the same worker threads:
#   1. batches/s a C++ client gets from `textfeed serve` (shared memory) vs the embedded feed in
#      one process, alternating, REPS pairs; the ratio of each pair, min / median;
#   2. payload GB/s delivered over shared memory and over tcp loopback (frames), pipeline included
#      (the protocol's transport benchmark mode, one batch repeated, was retired: a figure of the
#      transport alone needs a bench that drives transport::Connection and shared memory directly).
#   BUILD=build THREADS=2 REPS=5 bench/serve.sh [DATASET [PROFILE]]
# DATASET defaults to 16 synthetic receipt pages (textfeed synth), PROFILE to upstage.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
TF="$BUILD/tools/textfeed"
THREADS=${THREADS:-2}
REPS=${REPS:-5}
SAMPLES=${SAMPLES:-48}
WORK=$(mktemp -d)
SERVE_PID=""
cleanup() {
  [ -n "$SERVE_PID" ] && kill -TERM "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
DATASET=${1:-}
PROFILE=${2:-upstage}
if [ -z "$DATASET" ]; then
  "$TF" synth --profile receipt --count 16 --seed 1 --out "$WORK/receipts" >/dev/null
  DATASET="$WORK/receipts"
fi

serve() {  # serve ENDPOINT [extra flags]
  local endpoint=$1
  shift
  "$TF" serve --dataset "d=$DATASET" --bind "$endpoint" --threads "$THREADS" "$@" 2>"$WORK/serve.log" &
  SERVE_PID=$!
  for _ in $(seq 200); do
    grep -q "listening" "$WORK/serve.log" 2>/dev/null && return
    sleep 0.05
  done
  echo "serve did not start:" >&2
  cat "$WORK/serve.log" >&2
  exit 1
}
stop() {
  kill -TERM "$SERVE_PID"
  wait "$SERVE_PID" || true
  SERVE_PID=""
}
median_of() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
min_of() { sort -g | head -1; }
rate() { /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]]["median"])' "$1"; }

echo "dataset $DATASET, profile $PROFILE, $THREADS worker threads, $REPS pairs of runs of >= $SAMPLES samples"
echo
echo "== 1. samples/s delivered to a C++ client: daemon (shared memory) vs in process"
IPC="ipc://$WORK/tf.sock"
serve "$IPC"
: >"$WORK/ratios"
for r in $(seq "$REPS"); do
  local_rate=$("$TF" bench --dataset "$DATASET" --profile "$PROFILE" --threads "$THREADS" --prefetch 4 \
    --samples "$SAMPLES" --repeat 1 --json 2>/dev/null | rate samples_per_s)
  remote_rate=$("$TF" bench --endpoint "$IPC" --dataset d --profile "$PROFILE" --prefetch 4 \
    --samples "$SAMPLES" --repeat 1 --json 2>/dev/null | rate samples_per_s)
  ratio=$(/usr/bin/python3 -c "print(f'{$remote_rate / $local_rate:.3f}')")
  echo "pair $r: in process $local_rate, daemon $remote_rate samples/s: ratio $ratio"
  echo "$ratio" >>"$WORK/ratios"
done
echo "daemon / in process: min $(min_of <"$WORK/ratios"), median $(median_of <"$WORK/ratios")"
stop

echo
echo "== 2. payload throughput per transport (pipeline included)"
serve "$IPC"
"$TF" bench --endpoint "$IPC" --dataset d --profile "$PROFILE" --transport shm --samples "$SAMPLES" \
  --repeat "$REPS" 2>/dev/null | grep -E "via|GB/s"
stop
PORT=$((20000 + RANDOM % 20000))
serve "tcp://127.0.0.1:$PORT" --insecure-tcp
"$TF" bench --endpoint "tcp://127.0.0.1:$PORT" --dataset d --profile "$PROFILE" --transport frames \
  --samples "$SAMPLES" --repeat "$REPS" 2>/dev/null | grep -E "via|GB/s"
stop

