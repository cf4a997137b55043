"""Samples/s of `textfeed bench` over worker thread counts, and the speed-up over one thread.

  python3 bench/scaling.py --dataset DIR_OR_CACHE [--dataset ...] [--threads 1,2,4,8,16]
      [--samples-per-thread 8] [--repeat 3] [--rounds 2] [--profile upstage] [--prefetch 0]

Any python3 will do: it only runs the textfeed binary (TEXTFEED_BIN, else build/tools/textfeed).
Each run measures `--samples-per-thread x threads` samples per repeat, so every thread count gets
about the same wall time. Rounds alternate the thread counts; per dataset and thread count it
prints the median samples/s over rounds of each run's median, the speed-up over the first count
(one thread by default) and the efficiency (speed-up per added thread multiple).
"""
import argparse
import json
import os
import statistics
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEXTFEED = os.path.abspath(os.environ.get("TEXTFEED_BIN", str(HERE.parent / "build" / "tools" / "textfeed")))


def bench(dataset, threads, args):
    cmd = [TEXTFEED, "bench", "--dataset", dataset, "--profile", args.profile, "--threads", str(threads),
           "--samples", str(args.samples_per_thread * threads), "--repeat", str(args.repeat), "--json"]
    if args.prefetch:
        cmd += ["--prefetch", str(args.prefetch)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", action="append", required=True)
    parser.add_argument("--threads", default="1,2,4,8,16")
    parser.add_argument("--samples-per-thread", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", default="upstage")
    parser.add_argument("--prefetch", type=int, default=0)
    args = parser.parse_args()
    counts = [int(x) for x in args.threads.split(",")]
    if min(counts) < 1 or args.samples_per_thread < 1 or args.repeat < 1 or args.rounds < 1:
        parser.error("thread counts, --samples-per-thread, --repeat and --rounds must be at least 1")
    for dataset in args.dataset:
        rates = {n: [] for n in counts}
        cpu = {n: [] for n in counts}
        for _ in range(args.rounds):
            for n in counts:
                got = bench(dataset, n, args)
                rates[n].append(got["samples_per_s"]["median"])
                # with batches in flight the feed reports its process's CPU as client CPU
                cpu[n].append(got.get("cpu_ms_per_sample", got.get("client_cpu_ms_per_sample"))["median"])
        print(f"{dataset} ({args.profile}, {args.rounds} rounds of {args.repeat} repeats)")
        print("threads  samples/s (min-median)  CPU ms/sample  speed-up  efficiency")
        base = statistics.median(rates[counts[0]])
        for n in counts:
            med = statistics.median(rates[n])
            speedup = med / base
            print(f"{n:7d}  {min(rates[n]):8.1f}-{med:<8.1f}        {statistics.median(cpu[n]):8.1f}  "
                  f"{speedup:8.2f}  {speedup * counts[0] / n:9.2f}")


if __name__ == "__main__":
    main()
