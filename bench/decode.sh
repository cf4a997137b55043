#!/usr/bin/env bash
# Decode Mpixel/s per core on synth receipt pages and on the ICDAR-2015 sample, full and 1/2,
# next to a bare tjDecompress2 loop on the same files.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT
"$BUILD/tools/textfeed" synth --profile receipt --count 8 --seed 1 --out "$DATA/receipt" >/dev/null 2>&1
"$BUILD/bench/textfeed_decode_bench" "$DATA/receipt/images" --reps 5
"$BUILD/bench/textfeed_decode_bench" ../shared/data/icdar15-sample/images --reps 5
