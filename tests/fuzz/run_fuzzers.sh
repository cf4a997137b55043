#!/usr/bin/env bash
# Runs each libFuzzer target of a TEXTFEED_BUILD_FUZZ build for SECONDS, one after the other, and
# prints executions per target. New corpus entries go to BUILD/fuzz/<target>/corpus (the seeds in
# tests/fuzz/corpus/ are read, never written); a finding is saved in BUILD/fuzz/<target>/ as
# crash-*, leak-*, timeout-* or oom-*, and makes the script exit 1 after the other targets ran.
# FUZZ_RUNS=N also stops each target after N executions (whichever limit comes first).
# Usage: tests/fuzz/run_fuzzers.sh BUILD SECONDS [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: run_fuzzers.sh BUILD SECONDS [TARGET...]"
build=${1:?$usage}
seconds=${2:?$usage}
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(icdar15 ufo poly decode cache wire db manifest mmocr mmocr_chain)

# Longest input per target: a few times the largest seed, so mutations stay fast.
declare -A max_len=([icdar15]=8192 [ufo]=16384 [poly]=16384 [decode]=32768 [cache]=16384 [wire]=8192 [db]=4096 [manifest]=8192 [mmocr]=4096 [mmocr_chain]=8192)

# UBSan reports abort (the build also says -fno-sanitize-recover); leaks are findings.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
# Leaks inside the libraries (GEOS), each with its reproducer, are not textfeed's findings.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp}
# OpenCV's codecs log every damaged file they see; at thousands of inputs a second that is noise.
export OPENCV_LOG_LEVEL=${OPENCV_LOG_LEVEL:-FATAL}

failed=()
for t in "${targets[@]}"; do
  exe=$build/tests/fuzz/textfeed_fuzz_$t
  if [ ! -x "$exe" ]; then
    echo "fuzz $t: no fuzzer at $exe (build the target textfeed_fuzzers)" >&2
    exit 2
  fi
  work=$build/fuzz/$t
  mkdir -p "$work/corpus"
  dict=()
  runs_limit=()
  [ -n "${FUZZ_RUNS:-}" ] && runs_limit=("-runs=$FUZZ_RUNS")
  [ -f "tests/fuzz/dict/$t.dict" ] && dict=("-dict=tests/fuzz/dict/$t.dict")
  status=0
  "$exe" "$work/corpus" "tests/fuzz/corpus/$t" "${dict[@]}" -max_total_time="$seconds" \
    "${runs_limit[@]}" \
    -max_len="${max_len[$t]:-8192}" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$work/" >"$work/log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$work/log" | tail -1)
  found=$(find "$work/corpus" -type f | wc -l)
  if [ "$status" -eq 0 ]; then
    echo "fuzz $t: ${runs:-?} executions in ${secs:-$seconds} s ($found corpus inputs), no finding"
  else
    failed+=("$t")
    echo "fuzz $t: FINDING (exit $status) after ${runs:-?} executions; full log: $work/log"
    grep -a -E "==ERROR|SUMMARY|runtime error|textfeed fatal|Test unit written" "$work/log" |
      tail -8 || true
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}. Reproduce: $build/tests/fuzz/textfeed_fuzz_<target> FILE;" \
    "once fixed, save FILE under tests/fuzz/regressions/<target>/" >&2
  exit 1
fi
