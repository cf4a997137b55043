"""The one-warp crop against the reference's three PIL resamplings, over many seeds.

For each seed and each image of an ICDAR-2015 folder, the SakuraRiven chain of
examples/east_torch_pipeline.py (PIL: adjust height, rotate, crop; after np.random.seed-like draws
from RandomState(seed)) and textfeed's replay of the same draws (one warp, textfeed._core.warp_crop)
make a 512 x 512 crop each; prints the PSNR distribution and the worst cases with their height
ratio and angle. --sharp adds three images made to be hard on resampling: white noise, small
anti-aliased text, and noise blurred by sigma 0.7 (the ICDAR photographs are softer than most).
  PYTHONPATH=build/python /usr/bin/python3 bench/psnr_sweep.py [--seeds 200] [--sharp] [DATASET]
"""
import argparse
import importlib.util
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np
from PIL import Image

import textfeed._core as core

ROOT = Path(__file__).resolve().parents[1]


def load_reference():
    spec = importlib.util.spec_from_file_location("east_ref", ROOT / "examples" / "east_torch_pipeline.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 10 * np.log10(255.0**2 / max(mse, 1e-12))


def write_sharp_set(root, seed=1):
    """An ICDAR-2015 folder at `root` of three 1280 x 720 images hard on resampling, one word each."""
    root = Path(root)
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "gt").mkdir(exist_ok=True)
    rng = np.random.default_rng(seed)
    noise = rng.integers(0, 256, (720, 1280, 3), np.uint8)
    text = np.full((720, 1280, 3), 255, np.uint8)
    for _ in range(400):
        x, y = int(rng.integers(0, 1200)), int(rng.integers(10, 710))
        cv2.putText(text, "RECEIPT 12.50", (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 0), 1, cv2.LINE_AA)
    images = {"noise": noise, "text": text, "soft_noise": cv2.GaussianBlur(noise, (0, 0), 0.7)}
    for name, image in images.items():
        cv2.imwrite(str(root / "images" / f"{name}.png"), image)
        (root / "gt" / f"gt_{name}.txt").write_text("100,100,300,100,300,150,100,150,word\n")
    return root


def sweep(dataset, seeds, crop=512, reference=None):
    """[(psnr, seed, image name, height ratio, angle)] for seeds 0..seeds-1, image seed % count."""
    ref = reference or load_reference()
    samples = ref.read_icdar15(Path(dataset))
    results = []
    for seed in range(seeds):
        s = samples[seed % len(samples)]
        pil = Image.open(s.image).convert("RGB")
        rs = np.random.RandomState(seed)
        u1, u2 = rs.rand(), rs.rand()  # the chain's first two draws: height ratio, angle
        want, _ = ref.augment(pil, s.vertices, s.labels, np.random.RandomState(seed), profile="sakura",
                              image_size=0, crop_size=crop)
        image = np.asarray(pil)
        h, w = image.shape[:2]
        out = core.replay_geometry("sakura", w, h, np.asarray(s.vertices, np.float64).reshape(-1, 8),
                                   np.asarray(s.labels, np.int64), seed)
        got = core.warp_crop(image, out["matrix"], crop)
        results.append((psnr(got, want), seed, Path(s.image).name, 1 + 0.2 * (2 * u1 - 1), 10 * (2 * u2 - 1)))
    return results


def report(label, results):
    values = np.array([r[0] for r in results])
    print(f"{label}: {len(values)} crops: PSNR min {values.min():.2f} median {np.median(values):.2f} "
          f"max {values.max():.2f} dB; below 35 dB: {(values < 35).sum()}, below 30 dB: {(values < 30).sum()}")
    for q, seed, name, ratio, angle in sorted(results)[:8]:
        print(f"  seed {seed:4d} {name}: {q:.2f} dB (height ratio {ratio:.3f}, angle {angle:+.2f})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", nargs="?", default=str(ROOT / "data" / "icdar15-sample"))
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--crop", type=int, default=512)
    parser.add_argument("--sharp", action="store_true", help="also sweep three images hard on resampling")
    a = parser.parse_args(argv)
    ref = load_reference()
    report(a.dataset, sweep(a.dataset, a.seeds, a.crop, ref))
    if a.sharp:
        with tempfile.TemporaryDirectory() as tmp:
            report("sharp images", sweep(write_sharp_set(tmp), a.seeds, a.crop, ref))


if __name__ == "__main__":
    sys.exit(main())
