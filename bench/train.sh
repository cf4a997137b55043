#!/usr/bin/env bash
# examples/train_east.py fed by textfeed and by DataLoader(num_workers=N), side by side on the same
# cores, REPS rounds alternating: samples/s delivered to the training loop and the peak memory of
# the process and its workers (PSS). The torch baseline runs twice: computing as the reference code
# does, and with --fast-baseline (its redundant work skipped).
#   BUILD=build REPS=3 WORKERS=2 THREADS=2 SET=receipt|photo CACHE=|raw|jpeg|jpeg-restart bench/train.sh [DATASET]
# DATASET defaults to 16 synthetic pages of SET (upstage profile, UFO json): `receipt` (clean
# renders, ~1.3 bits per pixel) or `photo` (the same pages photographed, ~2.5 bits per pixel, as
# real phone photos have 1.3-2.7: the decode costs what it costs on real data). CACHE set: textfeed
# reads a training-resolution cache of the same pages (`textfeed cache build --profile upstage`,
# that codec, built first and not timed) while the DataLoader decodes the JPEGs, as a user who
# builds the cache once would compare.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
REPS=${REPS:-3}
WORKERS=${WORKERS:-2}
THREADS=${THREADS:-2}
BATCH=${BATCH:-4}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SET=${SET:-receipt}
DATASET=${1:-}
if [ -z "$DATASET" ]; then
  "$BUILD/tools/textfeed" synth --profile "$SET" --count 16 --seed 1 --out "$WORK/$SET" >/dev/null 2>&1
  DATASET="$WORK/$SET/ufo/train.json"
fi
CACHE=${CACHE:-}
TF_DATASET="$DATASET"
if [ -n "$CACHE" ]; then
  case "$CACHE" in
    raw) codec=(--codec raw) ;;
    jpeg) codec=(--codec jpeg) ;;
    jpeg-restart) codec=(--codec jpeg --restart-rows) ;;
    *) echo "CACHE must be raw, jpeg or jpeg-restart" >&2; exit 2 ;;
  esac
  "$BUILD/tools/textfeed" cache build --dataset "$DATASET" --profile upstage --out "$WORK/train.tfc" "${codec[@]}" >/dev/null
  TF_DATASET="$WORK/train.tfc"
fi
run() {  # run LOADER STEPS WARMUP [flags]
  local data="$DATASET"
  [ "$1" = textfeed ] && data="$TF_DATASET"
  PYTHONPATH="$BUILD/python" /usr/bin/python3 "$ROOT/examples/train_east.py" --loader "$1" --dataset "$data" \
    --batch-size "$BATCH" --steps "$2" --warmup "$3" --workers "$WORKERS" --threads "$THREADS" --json "${@:4}"
}
ROUND=$(( WORKERS > 0 ? WORKERS : 1 ))  # batches per round of the DataLoader's workers (0: the main process)
echo "dataset $DATASET (textfeed: $TF_DATASET), batch $BATCH, textfeed $THREADS threads, DataLoader $WORKERS workers, $REPS rounds"
for r in $(seq "$REPS"); do
  # Warm-up steps take what a loader holds ready before its steady state: for textfeed the 4 batches
  # its Loader keeps in flight, after 2 steps of the model's own first-call costs; for the DataLoader
  # its workers' first batches, which they deliver together, one per worker. The timed steps are a
  # multiple of the workers, so that the clock sees whole rounds of them.
  run textfeed 24 6 | tee -a "$WORK/results"
  run torch $((3 * ROUND)) "$ROUND" | tee -a "$WORK/results"
  run torch $((4 * ROUND)) "$ROUND" --fast-baseline | tee -a "$WORK/results"
done
/usr/bin/python3 - "$WORK/results" <<'EOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
by = {}
for r in rows:
    by.setdefault(r["loader"], []).append(r)
def med(loader, key):
    return statistics.median(r[key] for r in by[loader])
print()
for loader, rs in by.items():
    rates = sorted(r["samples_per_s"] for r in rs)
    print(f"{loader:12s} samples/s min {rates[0]:7.2f} median {med(loader, 'samples_per_s'):7.2f}; "
          f"peak PSS median {med(loader, 'peak_pss_mib'):6.0f} MiB (RSS summed {med(loader, 'peak_rss_mib'):6.0f})")
tf = med("textfeed", "samples_per_s")
for base in ("torch", "torch-fast"):
    if base in by:
        ratios = [a["samples_per_s"] / b["samples_per_s"] for a, b in zip(by["textfeed"], by[base])]
        print(f"textfeed / {base}: per round " + " ".join(f"{r:.1f}x" for r in ratios) +
              f"; min {min(ratios):.1f}x median {statistics.median(ratios):.1f}x")
EOF
