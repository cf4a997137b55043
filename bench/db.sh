#!/usr/bin/env bash
# Profile db against the plain-Python baseline (examples/db_paddle_pipeline.py, PaddleOCR's chain
# computed as PaddleOCR computes it), side by side on one core, REPS rounds alternating:
#   1. the DB maps alone, on the same SAMPLES random 640x640 crops of WORDS words (the baseline's
#      generator, written to a file): textfeed_targets_bench --db-crops (make_db_targets into the
#      slots of a batch, default and exact threshold distances) and the baseline's border + shrink
#      maps;
#   2. the whole sample from the JPEG: `textfeed bench --profile db --threads 1` (CPU ms per
#      sample) and the baseline's DBDataset[i] in one process.
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
CROPS=$(mktemp)
trap 'rm -f "$CROPS"' EXIT
for r in $(seq "$REPS"); do
  echo "round $r"
  base=$(/usr/bin/python3 - "$ROOT" "$SAMPLES" "$WORDS" "$CROPS" <<'PY'
import importlib.util, sys, time
import numpy as np
root, samples, words, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
spec = importlib.util.spec_from_file_location("dbp", f"{root}/examples/db_paddle_pipeline.py")
base = importlib.util.module_from_spec(spec)
spec.loader.exec_module(base)
rs = np.random.RandomState(1)
crops = [base.random_crop_words(rs, words) for _ in range(samples)]
with open(path, "w") as f:
    for polys, _ in crops:
        f.write(";".join(" ".join(repr(float(v)) for v in p.reshape(-1)) for p in polys) + "\n")
ts = []
for polys, tags in crops:
    start = time.perf_counter()
    base.db_targets(polys, tags, (640, 640))
    ts.append((time.perf_counter() - start) * 1e3)
ts.sort()
print(ts[0], ts[len(ts) // 2])
PY
)
  tf=$("$BUILD/bench/textfeed_targets_bench" --only db --db-crops "$CROPS" --reps "$((SAMPLES * 3))")
  /usr/bin/python3 - "$tf" "$base" "$WORDS" <<'PY'
import re, sys
m = re.search(r"min +([0-9.]+) us +median +([0-9.]+) us .*exact: min +([0-9.]+) us +median +([0-9.]+) us", sys.argv[1])
tmin, tmed, emin, emed = (float(v) / 1e3 for v in m.groups())
bmin, bmed = (float(v) for v in sys.argv[2].split())
print(f"  maps, {sys.argv[3]} words/640x640 crop: textfeed min {tmin:.2f} median {tmed:.2f} ms "
      f"(exact distances: min {emin:.2f} median {emed:.2f}) | baseline min {bmin:.2f} median {bmed:.2f} ms | "
      f"ratio {bmed / tmed:.1f}x")
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
