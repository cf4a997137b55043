"""Cache build time: one `textfeed cache build` against textfeed.dask.build_cache on a LocalCluster of
this machine, alternately, several rounds (the Dask figure includes starting each shard's command and
the merge; the cluster starts once, before the rounds).

  /usr/bin/python3 bench/dask_build.py --dataset /tmp/photo16 [--shards 4] [--workers 2] [--rounds 3] \\
      [--profile upstage] [--codec raw]

Prints per round both wall times and their ratio, then min/median; checks that the two caches give
the same samples (cache inspect: samples, words, pixel bytes).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEXTFEED = os.path.abspath(os.environ.get("TEXTFEED_BIN", str(HERE.parent / "build" / "tools" / "textfeed")))


def inspect(path):
    out = subprocess.run([TEXTFEED, "cache", "inspect", str(path), "--json"], capture_output=True, text=True,
                         check=True)
    j = json.loads(out.stdout)
    return {k: j[k] for k in ("samples", "words", "ignored_words", "pixel_bytes")}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", required=True)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes, 1 thread each")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--profile", default="upstage")
    p.add_argument("--codec", default="raw")
    a = p.parse_args(argv)
    os.environ["TEXTFEED_BIN"] = TEXTFEED
    import distributed
    import textfeed.dask as tfdask

    cluster = distributed.LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=50)
    client = distributed.Client(cluster)
    single_s, dask_s = [], []
    try:
        with tempfile.TemporaryDirectory(prefix="tf-dask-bench-") as tmp:
            for r in range(a.rounds):
                single = Path(tmp) / f"single{r}.tfc"
                t0 = time.monotonic()
                subprocess.run([TEXTFEED, "cache", "build", "--dataset", a.dataset, "--out", str(single), "--profile",
                                a.profile, "--codec", a.codec, "--threads", str(a.workers)], check=True,
                               capture_output=True)
                single_s.append(time.monotonic() - t0)
                t0 = time.monotonic()
                res = tfdask.build_cache(client, a.dataset, Path(tmp) / f"sharded{r}.tfmanifest", a.shards,
                                         profile=a.profile, codec=a.codec, threads=1, progress=False)
                dask_s.append(time.monotonic() - t0)
                if inspect(single) != inspect(res["manifest"]):
                    sys.exit(f"the two caches differ: {inspect(single)} vs {inspect(res['manifest'])}")
                print(f"round {r + 1}: one build ({a.workers} threads) {single_s[-1]:.2f} s, Dask {a.shards} shards on "
                      f"{a.workers} workers {dask_s[-1]:.2f} s, ratio {dask_s[-1] / single_s[-1]:.2f}")
                single.unlink()
    finally:
        client.close()
        cluster.close()
    ratios = [d / s for d, s in zip(dask_s, single_s)]
    print(f"one build: min {min(single_s):.2f} s, median {statistics.median(single_s):.2f} s; "
          f"Dask: min {min(dask_s):.2f} s, median {statistics.median(dask_s):.2f} s; "
          f"ratio Dask/one: min {min(ratios):.2f}, median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
