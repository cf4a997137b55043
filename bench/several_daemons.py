"""Samples/s one rank receives from 1, 2 and 3 `textfeed serve` daemons on loopback tcp with CURVE
(frames, as between hosts), the same total worker threads split among them, alternately, several
rounds; and the payload bytes per sample of each payload mode.

  /usr/bin/python3 bench/several_daemons.py [--dataset data/icdar15-sample] [--profile upstage] \\
      [--batch-size 4] [--threads 6] [--in-flight 6] [--batches 24] [--rounds 3] [--payload both|full|compact]

Each configuration starts its daemons, opens a Loader(endpoint=[...]) and times the batches after
the first two (the ring filling), then stops the daemons. The batches in flight are the same
in every configuration too (--in-flight, split among the daemons). Prints per round the samples/s of each
configuration and its ratio to one daemon with full payloads, then min/median over the rounds.
"""
import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEXTFEED = os.path.abspath(os.environ.get("TEXTFEED_BIN", str(HERE.parent / "build" / "tools" / "textfeed")))
sys.path.insert(0, str(HERE.parent / "build" / "python"))


def port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def keygen(folder, name):
    subprocess.run([TEXTFEED, "keygen", "--out", str(folder / name)], check=True, capture_output=True)


def start(folder, dataset, name, threads, extra):
    endpoint = f"tcp://127.0.0.1:{port()}"
    proc = subprocess.Popen([TEXTFEED, "serve", "--dataset", f"d={dataset}", "--bind", endpoint, "--threads",
                             str(threads), "--curve-key", str(folder / f"{name}.key"), "--allow",
                             str(folder / "rank.pub"), *extra], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    return endpoint, proc


sizes = {}  # payload bytes per sample, by payload mode


def run(folder, a, daemons, payload):
    import textfeed

    per = a.threads // daemons
    procs, endpoints = [], []
    try:
        for i in range(daemons):
            e, p = start(folder, a.dataset, f"d{i}", per, [])
            procs.append(p)
            endpoints.append(e)
        keys = dict(curve_server_key=[str(folder / f"d{i}.pub") for i in range(daemons)],
                    curve_client_key=str(folder / "rank.key"))
        extra = {} if payload == "full" else {"payload": payload}
        deadline = time.monotonic() + 60
        while True:
            try:
                loader = textfeed.Loader(endpoints, dataset="d", batch_size=a.batch_size, profile=a.profile,
                                         prefetch=max(1, a.in_flight // daemons), pin_memory=False, timeout=5.0, **keys, **extra)
                break
            except textfeed.errors.UnavailableError:
                if time.monotonic() > deadline:
                    raise
        with loader:
            n, t0, samples = 0, None, 0
            while n < a.batches:
                for b in loader:
                    if n == 0:
                        side = b[0].shape[-1]
                        sizes["full"] = sum(t[0].numel() * t.element_size() for t in b)
                        sizes["compact"] = 3 * side * side
                    n += 1
                    if n == 2:
                        t0 = time.perf_counter()
                    elif n > 2:
                        samples += len(b.indices)
                    if n >= a.batches:
                        break
            rate = samples / (time.perf_counter() - t0)
            return rate, loader.stats()
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait(timeout=60)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", default=str(HERE.parent / "data" / "icdar15-sample"))
    p.add_argument("--profile", default="upstage")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--threads", type=int, default=6, help="worker threads of all daemons together")
    p.add_argument("--in-flight", type=int, default=6,
                   help="batches in flight over all daemons (each gets prefetch = this / daemons)")
    p.add_argument("--batches", type=int, default=24)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--payload", default="both",
                   help="full, compact (the crop; the targets made here) or both (alternating)")
    a = p.parse_args(argv)
    counts = [c for c in (1, 2, 3) if a.threads % c == 0]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        keygen(folder, "rank")
        for i in range(3):
            keygen(folder, f"d{i}")
        payloads = ["full", "compact"] if a.payload == "both" else [a.payload]
        configs = [(c, payload) for payload in payloads for c in counts]
        rates = {k: [] for k in configs}
        for r in range(a.rounds):
            line = []
            for c, payload in configs:
                rate, _ = run(folder, a, c, payload)
                rates[(c, payload)].append(rate)
                line.append(f"{c}x{a.threads // c} {payload}: {rate:6.1f}")
            base = rates[configs[0]][-1]
            ratios = "  ".join(f"{c}{payload[0]}/1{configs[0][1][0]} {rates[(c, payload)][-1] / base:.2f}"
                               for c, payload in configs[1:])
            print(f"round {r + 1} (samples/s): " + " | ".join(line) + f"  ({ratios})", flush=True)
        print(f"\n{a.profile}, batch {a.batch_size}, {a.threads} threads and {a.in_flight} batches in flight in all, "
              f"{a.batches - 2} batches timed")
        for c, payload in configs:
            v = rates[(c, payload)]
            print(f"  {c} daemon(s), {payload:7}: min {min(v):7.1f}  median {statistics.median(v):7.1f} samples/s  "
                  f"(median ratio to {configs[0][0]} {configs[0][1]}: "
                  f"{statistics.median(x / y for x, y in zip(v, rates[configs[0]])):.2f})")
        print(f"payload frames per sample: full {sizes['full'] / 2**20:.2f} MiB (image and targets), compact "
              f"{sizes['compact'] / 2**20:.2f} MiB (the uint8 crop) + 65 bytes per word in the message header "
              f"(ratio {sizes['full'] / sizes['compact']:.1f})")


if __name__ == "__main__":
    main()
