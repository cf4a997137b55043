#!/usr/bin/env bash
# The main job on the built-in sample: read the ICDAR-2015 sample, decode it, summarize.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
TF="$BUILD/tools/textfeed"
SAMPLE=${SAMPLE:-../shared/data/icdar15-sample}
echo "== textfeed inspect $SAMPLE"
"$TF" inspect "$SAMPLE"
