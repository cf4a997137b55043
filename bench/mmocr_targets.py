"""Per-sample mmocr targets: textfeed's C++ (textfeed.reference.mmocr_targets) against the plain-Python
transcription of mmocr 1.x (bench/mmocr_reference) on the same crops, side by side, on one core
(issue 32, item 4: at least 30x the reference per sample for PSENet, PANet and TextSnake, 50x for
FCENet).

  taskset -c 0 env PYTHONPATH=build/python /usr/bin/python3 bench/mmocr_targets.py \\
      [--samples 40] [--rounds 5] [--families pse,pan,fce,textsnake] [--json]

Run it pinned to one core (`taskset -c 0`): both sides are single-threaded calls, and the pin keeps
OpenCV's and numpy's helpers off other cores.

The inputs are what textfeed's own chain feeds the targets: each profile's loader (psenet, panet,
fcenet, textsnake) over data/icdar15-sample, one sample per batch, seeds 1, 2, ... and two epochs
each, until --samples crops are collected (their polygons, ignore flags and side). Each round times
every sample once through textfeed and once through the transcription, the two alternating sample
by sample (the order flips every round). Per family, the table gives ms per sample (the mean over
the samples of one round) as min and median over the rounds, and the reference / textfeed ratio of
those mins and of those medians; `worst` is the smallest per-sample ratio (each sample's best time on
each side). Before timing, every crop's outputs of the two are compared with the golden tests'
tolerances (tests/python/test_golden_mmocr_*.py); mismatches are listed, not hidden.
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import textfeed  # noqa: E402
from textfeed import reference  # noqa: E402

from bench.mmocr_reference import mmocr_targets as transcribed  # noqa: E402

DATASET = ROOT / "data" / "icdar15-sample"
PROFILES = {"pse": "psenet", "pan": "panet", "fce": "fcenet", "textsnake": "textsnake"}
GOALS = {"pse": 30.0, "pan": 30.0, "textsnake": 30.0, "fce": 50.0}
EPOCHS_PER_SEED = 2

# The golden tests' tolerances (docs/targets.md §9).
TEXTSNAKE_ATOL = {"gt_sin_map": 1e-5, "gt_cos_map": 1e-5, "gt_radius_map": 1e-4}
FCE_ATOL, FCE_RTOL, FCE_COEFFS, DEGENERATE_MARGIN = 1e-4, 1e-6, 11, 1e-6

Sample = Tuple[List[np.ndarray], np.ndarray, Tuple[int, int]]


def collect(family: str, count: int) -> List[Sample]:
    """`count` crops of the family's profile chain: (polygons, ignore flags, (side, side))."""
    out: List[Sample] = []
    seed = 1
    while len(out) < count:
        options = dict(batch_size=1, profile=PROFILES[family], threads=1,
                       output=textfeed.OutputOptions(return_polygons=True, pin_memory=False),
                       sampler=textfeed.SamplerOptions(shuffle=False, seed=seed))
        with textfeed.Loader(dataset=str(DATASET), **options) as loader:
            for epoch in range(EPOCHS_PER_SEED):
                loader.set_epoch(epoch)
                for batch in loader:
                    polys = [np.asarray(p, np.float32) for p in batch.polygons[0]]
                    out.append((polys, np.asarray(batch.ignore[0], bool), tuple(batch.original_sizes[0])))
                    if len(out) == count:
                        return out
        seed += 1
    return out


def _fce_compared(mine: np.ndarray, level_map: np.ndarray, margin: np.ndarray, coeff: np.ndarray) -> np.ndarray:
    """Pixels whose Fourier channels are compared: all but those of words whose orientation the
    FFT's rounding decides (|cw_margin| < 1e-6), as the golden test leaves them out."""
    keep = np.ones(level_map.shape[1:], bool)
    for k in np.flatnonzero(np.abs(margin) < DEGENERATE_MARGIN):
        hit = np.ones(level_map.shape[1:], bool)
        for j in range(FCE_COEFFS):
            if j != FCE_COEFFS // 2:
                hit &= level_map[3 + j] == np.float32(coeff[k, j, 0])
                hit &= level_map[3 + FCE_COEFFS + j] == np.float32(coeff[k, j, 1])
        keep &= ~hit
    return keep


def _fce_level(name: str, got: np.ndarray, want: np.ndarray, ours: Dict[str, np.ndarray]) -> List[str]:
    """One FCENet level: the three masks exactly, the Fourier channels within the tolerance."""
    bad = []
    if not np.array_equal(got[0, :3], want[0, :3]):
        bad.append(f"{name} masks: {int((got[0, :3] != want[0, :3]).sum())} px differ")
    level = int(name[1]) - 3
    keep = _fce_compared(got[0], want[0], ours[f"lvl{level}_cw_margin"], ours[f"lvl{level}_coeff"])
    mine, gold = got[0, 3:][:, keep].astype(np.float64), want[0, 3:][:, keep]
    over = np.abs(mine - gold) > FCE_ATOL + FCE_RTOL * np.abs(gold)
    if over.any():
        bad.append(f"{name} Fourier: {int(over.sum())} values, max diff {np.abs(mine - gold).max():.3g}")
    return bad


def differences(family: str, ours: Dict[str, np.ndarray], ref: Dict[str, np.ndarray]) -> List[str]:
    """What differs between textfeed's outputs and the transcription's beyond the tolerances."""
    bad = []
    for name, want in ref.items():
        got = np.asarray(ours.get(name))
        if got.shape != want.shape or got.dtype != want.dtype:
            bad.append(f"{name}: {got.shape} {got.dtype} vs {want.shape} {want.dtype}")
        elif family == "fce":
            bad.extend(_fce_level(name, got, want, ours))
        elif name in TEXTSNAKE_ATOL:
            diff = np.abs(got.astype(np.float64) - want)
            if (diff > TEXTSNAKE_ATOL[name]).any():
                bad.append(f"{name}: {int((diff > TEXTSNAKE_ATOL[name]).sum())} px, max diff {diff.max():.3g}")
        elif not np.array_equal(got, want):
            bad.append(f"{name}: {int((got != want).sum())} values differ")
    return bad


def check(family: str, samples: List[Sample]) -> List[str]:
    """Every sample's mismatches between the two, one line each (refusals included)."""
    report = []
    for i, (polys, ignored, hw) in enumerate(samples):
        try:
            want = transcribed(family, polys, ignored, hw)
        except AssertionError:
            want = None
        try:
            ours = reference.mmocr_targets(family, polys, ignored, hw)
        except textfeed.errors.InvalidArgumentError as e:
            ours = None
            if want is not None:
                report.append(f"sample {i}: textfeed refused ({e}), the reference did not")
        if want is None:
            if ours is not None:
                report.append(f"sample {i}: the reference raised, textfeed did not")
            continue
        if ours is not None:
            report.extend(f"sample {i}: {d}" for d in differences(family, ours, want))
    return report


def _timed(fn: Any, family: str, sample: Sample) -> float:
    polys, ignored, hw = sample
    start = time.perf_counter()
    try:
        fn(family, polys, ignored, hw)
    except (AssertionError, textfeed.errors.InvalidArgumentError):
        pass  # a refused input still costs its time; check() lists it
    return time.perf_counter() - start


def measure(family: str, samples: List[Sample], rounds: int) -> Dict[str, Any]:
    """Per round, every sample once through each side, alternating; seconds per call."""
    sides = {"textfeed": reference.mmocr_targets, "reference": transcribed}
    times = {name: np.zeros((rounds, len(samples))) for name in sides}
    for r in range(rounds):
        order = list(sides) if r % 2 == 0 else list(sides)[::-1]
        for i, sample in enumerate(samples):
            for name in order:
                times[name][r, i] = _timed(sides[name], family, sample)
    per_round = {name: t.mean(axis=1) * 1e3 for name, t in times.items()}  # ms per sample
    tf, ref = per_round["textfeed"], per_round["reference"]
    best = {name: t.min(axis=0) for name, t in times.items()}
    return {
        "family": family,
        "samples": len(samples),
        "words": sum(len(s[0]) for s in samples),
        "textfeed_ms": {"min": float(tf.min()), "median": float(statistics.median(tf))},
        "reference_ms": {"min": float(ref.min()), "median": float(statistics.median(ref))},
        "ratio": {"min": float(ref.min() / tf.min()), "median": float(statistics.median(ref) / statistics.median(tf)),
                  "worst_sample": float((best["reference"] / best["textfeed"]).min())},
        "goal": GOALS[family],
    }


def table(results: List[Dict[str, Any]], rounds: int) -> str:
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    lines = [f"mmocr targets per sample, one call at a time, {rounds} rounds; ms per sample; "
             f"ratio = reference / textfeed; load average at the end {load}",
             "| family | samples | words | textfeed ms min | median | reference ms min | median "
             "| ratio min | median | worst sample | goal |",
             "|---" * 11 + "|"]
    for r in results:
        met = "met" if r["ratio"]["median"] >= r["goal"] else "MISSED"
        lines.append(f"| {r['family']} | {r['samples']} | {r['words']} | {r['textfeed_ms']['min']:.3f} | "
                     f"{r['textfeed_ms']['median']:.3f} | {r['reference_ms']['min']:.2f} | "
                     f"{r['reference_ms']['median']:.2f} | {r['ratio']['min']:.1f}x | {r['ratio']['median']:.1f}x | "
                     f"{r['ratio']['worst_sample']:.1f}x | {r['goal']:.0f}x {met} |")
    return "\n".join(lines)


def main(argv: Any = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=40, help="crops per family")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--families", default=",".join(PROFILES), help="comma-separated, of " + ", ".join(PROFILES))
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of the table")
    a = p.parse_args(argv)
    families = [f.strip() for f in a.families.split(",") if f.strip()]
    unknown = [f for f in families if f not in PROFILES]
    if unknown or a.samples < 1 or a.rounds < 1:
        p.error(f"bad --families {unknown}" if unknown else "--samples and --rounds must be at least 1")
    results, mismatched = [], False
    for family in families:
        samples = collect(family, a.samples)
        report = check(family, samples)
        for line in report[:10]:
            print(f"{family} MISMATCH {line}", file=sys.stderr)
        if len(report) > 10:
            print(f"{family}: {len(report) - 10} more mismatches", file=sys.stderr)
        mismatched |= bool(report)
        result = measure(family, samples, a.rounds)
        result["mismatches"] = report
        results.append(result)
        print(f"{family} done", file=sys.stderr)
    if a.json:
        print(json.dumps({"rounds": a.rounds, "results": results}, indent=1))
    else:
        print(table(results, a.rounds))
        for r in results:
            verdict = f"{len(r['mismatches'])} MISMATCHES (listed above)" if r["mismatches"] else "equal"
            print(f"{r['family']}: outputs on the {r['samples']} crops: {verdict}")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
