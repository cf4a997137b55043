#!/usr/bin/env bash
# The main job on the ICDAR-2015 sample in data/icdar15-sample (SAMPLE=DIR picks another): read
# it, build a cache, run the full decode + augment + EAST-target pipeline from the JPEGs and from
# the cache, and draw samples; then the same for DB targets (profile db).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TF="$BUILD/tools/textfeed"
SAMPLE=${SAMPLE:-data/icdar15-sample}
OUT=${OUT:-$BUILD/demo}
rm -rf "$OUT"
mkdir -p "$OUT"

echo "== 1. what the dataset holds"
"$TF" inspect "$SAMPLE"

echo
echo "== 2. cache: decoded pixels once, augmentation stays online"
"$TF" cache build --dataset "$SAMPLE" --profile sakura --out "$OUT/icdar15-sakura.tfc"
"$TF" cache verify "$OUT/icdar15-sakura.tfc"

for profile in sakura upstage; do
  echo
  echo "== 3. pipeline throughput, profile $profile, from the JPEGs (2 threads)"
  "$TF" bench --dataset "$SAMPLE" --profile "$profile" --threads 2 --samples 32 --repeat 3
done
echo
echo "== 4. pipeline throughput from the cache (sakura, 2 threads)"
"$TF" bench --dataset "$OUT/icdar15-sakura.tfc" --profile sakura --threads 2 --samples 32 --repeat 3

echo
echo "== 5. the daemon: serve the sample, two ranks pull at once (shared memory), stats, SIGTERM"
ENDPOINT="ipc:///tmp/textfeed-demo-$$.sock"
"$TF" serve --dataset icdar="$SAMPLE" --bind "$ENDPOINT" --threads 2 &
SERVE_PID=$!
trap 'kill -TERM $SERVE_PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -S "${ENDPOINT#ipc://}" ] && break; sleep 0.1; done
"$TF" pull --endpoint "$ENDPOINT" --dataset icdar --profile sakura --batches 8 --rank 0 --world-size 2 &
PULL0=$!
"$TF" pull --endpoint "$ENDPOINT" --dataset icdar --profile sakura --batches 8 --rank 1 --world-size 2
wait $PULL0
"$TF" stats "$ENDPOINT"
echo
echo "-- batches delivered by the daemon to this C++ client (same 2 worker threads as step 3)"
"$TF" bench --endpoint "$ENDPOINT" --dataset icdar --profile sakura --samples 32 --repeat 3
kill -TERM $SERVE_PID
wait $SERVE_PID
trap - EXIT

echo
echo "== 6. Python: a small EAST training loop fed by textfeed.Loader (in process, no daemon)"
PYTHONPATH="$BUILD/python" /usr/bin/python3 examples/train_east.py --loader textfeed --profile sakura \
  --dataset "$SAMPLE" --steps 8 --batch-size 4 --threads 2

echo
echo "== 7. the Boostcamp baselines' layouts: a 6th- and a 7th-generation ROOT from the sample, a baseline-shaped"
echo "      train.py on each (every epoch ends with an evaluation pass: mode=eval), then both as two sources 1:3"
PY="/usr/bin/python3 examples/boostcamp_train.py"
TRAIN_ARGS="--max_epoch 2 --batch_size 4 --image_size 1024 --input_size 256 --num_workers 2 --save_interval 2"
PYTHONPATH="$BUILD/python" $PY --make_sample_root "$OUT/bc6" --layout 6
PYTHONPATH="$BUILD/python" $PY --make_sample_root "$OUT/bc7" --layout 7
"$TF" inspect "$OUT/bc7"
PYTHONPATH="$BUILD/python" $PY --data_dir "$OUT/bc6/ufo/train.json" --model_dir "$OUT/models" $TRAIN_ARGS
PYTHONPATH="$BUILD/python" $PY --data_dir "$OUT/bc7" --profile bc7 --model_dir "$OUT/models" $TRAIN_ARGS
PYTHONPATH="$BUILD/python" $PY --data_dir "$OUT/bc6" --mix "$OUT/bc7" --weights 1 3 --model_dir "$OUT/models" $TRAIN_ARGS

echo
echo "== 8. augmented samples with their targets drawn on"
"$TF" show --dataset "$SAMPLE" --profile sakura --count 3 --out "$OUT/show"

echo
echo "== 9. DB (PaddleOCR's detection chain): throughput from the JPEGs, a Loader batch, the four maps drawn"
"$TF" bench --dataset "$SAMPLE" --profile db --threads 2 --samples 32 --repeat 3
PYTHONPATH="$BUILD/python" /usr/bin/python3 - "$SAMPLE" <<'PY'
import sys
import textfeed
loader = textfeed.Loader(sys.argv[1], 4, profile="db", recipe=textfeed.Recipe(total_epochs=10),
                         sampler=textfeed.SamplerOptions(seed=1))
batch = next(iter(loader))
for name, tensor in zip(batch.names, batch):
    print(f"  {name:15s} {tuple(tensor.shape)} {tensor.dtype} min {float(tensor.min()):.3f} max {float(tensor.max()):.3f}")
print(f"  invalid polygons in this batch: {batch.invalid_polygons}")
loader.close()
PY
"$TF" show --dataset "$SAMPLE" --profile db --count 3 --out "$OUT/show-db"
echo
echo "demo done: PNGs in $OUT/show (EAST) and $OUT/show-db (DB)"
