#!/usr/bin/env bash
# Decode Mpixel/s on one core: synth receipt pages (~3000x4000; ~1.3 bits per pixel), the same
# pages photographed (synth --profile photo, ~2.5 bits per pixel, as phone photos have) and the
# ICDAR-2015 sample (1280x720), full and 1/2 scale, textfeed's Decoder next to a bare
# tjDecompress2 loop.
#   BUILD=build-decode bench/decode.sh [--json | --windows]   (BUILD defaults to build; REPS to 5;
#   --windows: what a window of each image costs against its whole decode)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
REPS=${REPS:-5}
SAMPLE=${SAMPLE:-$ROOT/data/icdar15-sample}
for exe in "$BUILD/tools/textfeed" "$BUILD/bench/textfeed_decode_bench"; do
  [[ -x "$exe" ]] || { echo "missing $exe (build targets textfeed and textfeed_decode_bench)" >&2; exit 1; }
done
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT
"$BUILD/tools/textfeed" synth --profile receipt --count 8 --seed 1 --out "$DATA/receipt" >/dev/null
"$BUILD/tools/textfeed" synth --profile photo --count 8 --seed 1 --out "$DATA/photo" >/dev/null
"$BUILD/bench/textfeed_decode_bench" "$DATA/receipt/images" --reps "$REPS" "$@"
"$BUILD/bench/textfeed_decode_bench" "$DATA/photo/images" --reps "$REPS" "$@"
"$BUILD/bench/textfeed_decode_bench" "$SAMPLE/images" --reps "$REPS" "$@"
