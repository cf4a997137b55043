"""Per-stage cost table of `textfeed bench`, one thread, for several sources and one or more builds
of textfeed run alternately (round by round), so that a before/after table comes from one run on a
noisy machine.

  /usr/bin/python3 bench/stages.py --source photo=/tmp/photo16 --source photo-cache=/tmp/p.tfc \\
      [--bin new=build/tools/textfeed --bin old=/tmp/old/build/tools/textfeed] [--rounds 3] \\
      [--samples 16] [--repeat 3] [--profile upstage] [--threads 1]

A source path may hold `{build}`, replaced by each build's name: a build then reads a cache of its
own (`--source raw=/tmp/{build}-raw.tfc` with `--bin before=... --bin after=...`), for builds whose
cache files differ.

Prints, per source and build, CPU ms per sample (min and median over rounds of the per-round
minimum), each stage's median ms, and minor page faults per sample in each round's last repeat.
"""
import argparse
import json
import statistics
import subprocess
import sys

STAGES = ["read", "decode", "warp", "photometric", "targets"]


def run(binary, source, a):
    cmd = [binary, "bench", "--dataset", source, "--profile", a.profile, "--threads", str(a.threads),
           "--samples", str(a.samples), "--repeat", str(a.repeat), "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", action="append", required=True, help="NAME=PATH (dataset or cache; {build} in PATH: each build's name)")
    p.add_argument("--bin", action="append", help="NAME=PATH of a textfeed command (default: build/tools/textfeed)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--profile", default="upstage")
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args(argv)
    sources = [s.split("=", 1) for s in a.source]
    bins = [b.split("=", 1) for b in (a.bin or ["textfeed=build/tools/textfeed"])]
    runs = {}
    for r in range(a.rounds):
        for sname, spath in sources:
            for bname, bpath in bins:
                runs.setdefault((sname, bname), []).append(run(bpath, spath.replace("{build}", bname), a))
        print(f"round {r + 1} of {a.rounds} done", file=sys.stderr)
    print(f"{a.profile}, {a.threads} thread(s), `textfeed bench --samples {a.samples} --repeat {a.repeat}`, "
          f"{a.rounds} rounds alternating; ms per sample")
    print("| source | build | CPU ms min | CPU ms median | " + " | ".join(STAGES) + " | minor faults (last repeat) |")
    print("|---" * (5 + len(STAGES)) + "|")
    for sname, _ in sources:
        for bname, _ in bins:
            rs = runs[(sname, bname)]
            cpu = [r["cpu_ms_per_sample"]["min"] for r in rs]
            stages = [statistics.median(r["stage_ms_per_sample"][s] for r in rs) for s in STAGES]
            faults = ("—" if not any("minor_faults_per_sample" in r for r in rs)  # builds that do not count them
                      else "/".join(f"{r['minor_faults_per_sample']['last_repeat']:.1f}" for r in rs))
            print(f"| {sname} | {bname} | {min(cpu):.1f} | {statistics.median(cpu):.1f} | "
                  + " | ".join("—" if v < 0.05 else f"{v:.1f}" for v in stages) + f" | {faults} |")


if __name__ == "__main__":
    sys.exit(main())
