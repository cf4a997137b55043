#!/usr/bin/env bash
# Profile db against the plain-Python baseline (examples/db_paddle_pipeline.py, PaddleOCR's chain
# computed as PaddleOCR computes it), side by side on one core, REPS rounds alternating:
#   1. the DB maps alone: textfeed.reference.db_targets (the C++ builder, plus the Python call and its
#      four fresh 640x640 arrays) and the baseline's border + shrink maps, on the same random crops of
#      WORDS words;
#   2. the whole sample from the JPEG: `textfeed bench --profile db --threads 1` and the baseline's
#      DBDataset[i] in one process.
# Prints min and median ms per item of each, and the ratio of the medians (baseline / textfeed).
#   BUILD=build REPS=3 SAMPLES=40 WORDS=15 bench/db.sh [ICDAR15_DATASET]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
REPS=${REPS:-3}
SAMPLES=${SAMPLES:-40}
WORDS=${WORDS:-15}
DATASET=${1:-$ROOT/data/icdar15-sample}
export PYTHONPATH="$BUILD/python"
for r in $(seq "$REPS"); do
  echo "round $r"
  /usr/bin/python3 - "$ROOT" "$SAMPLES" "$WORDS" <<'PY'
import importlib.util, sys, time
import numpy as np
import textfeed.reference as ref
root, samples, words = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spec = importlib.util.spec_from_file_location("dbp", f"{root}/examples/db_paddle_pipeline.py")
base = importlib.util.module_from_spec(spec)
spec.loader.exec_module(base)
rs = np.random.RandomState(1)
crops = [base.random_crop_words(rs, words) for _ in range(samples)]
def timed(f):
    ts = []
    for polys, tags in crops:
        start = time.perf_counter()
        f(polys, tags)
        ts.append((time.perf_counter() - start) * 1e3)
    ts.sort()
    return ts[0], ts[len(ts) // 2]
tf = timed(lambda p, t: ref.db_targets(p, t, (640, 640)))
bl = timed(lambda p, t: base.db_targets(p, t, (640, 640)))
print(f"  maps, {words} words/640x640 crop: textfeed min {tf[0]:.2f} median {tf[1]:.2f} ms | "
      f"baseline min {bl[0]:.2f} median {bl[1]:.2f} ms | ratio {bl[1] / tf[1]:.1f}x")
PY
  tf=$("$BUILD/tools/textfeed" bench --dataset "$DATASET" --profile db --threads 1 --samples "$SAMPLES" --repeat 3 --json)
  bl=$(/usr/bin/python3 "$ROOT/examples/db_paddle_pipeline.py" "$DATASET" --samples "$SAMPLES")
  /usr/bin/python3 - "$tf" "$bl" <<'PY'
import json, re, sys
tf = json.loads(sys.argv[1])
cpu = tf["cpu_ms_per_sample"]
m = re.search(r"min ([0-9.]+) ms, median ([0-9.]+) ms", sys.argv[2])
bmin, bmed = float(m.group(1)), float(m.group(2))
print(f"  sample from JPEG: textfeed min {cpu['min']:.2f} median {cpu['median']:.2f} CPU-ms | "
      f"baseline min {bmin:.2f} median {bmed:.2f} ms | ratio {bmed / cpu['median']:.1f}x")
PY
done
