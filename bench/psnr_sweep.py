"""The one-warp crop against the reference's three PIL resamplings, over many seeds.

For each seed and each image of an ICDAR-2015 folder, the SakuraRiven chain of
examples/east_torch_pipeline.py (PIL: adjust height, rotate, crop; after np.random.seed-like draws
from RandomState(seed)) and textfeed's replay of the same draws (one warp, textfeed._core.warp_crop)
make a 512 x 512 crop each; prints the PSNR distribution and the worst cases.
  PYTHONPATH=build/python /usr/bin/python3 bench/psnr_sweep.py [--seeds 200] [DATASET]
"""
import argparse
import importlib.util
import sys
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", nargs="?", default=str(ROOT / "data" / "icdar15-sample"))
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--crop", type=int, default=512)
    a = parser.parse_args(argv)
    ref = load_reference()
    samples = ref.read_icdar15(Path(a.dataset))
    results = []
    for seed in range(a.seeds):
        s = samples[seed % len(samples)]
        pil = Image.open(s.image).convert("RGB")
        rs = np.random.RandomState(seed)
        want, _ = ref.augment(pil, s.vertices, s.labels, rs, profile="sakura", image_size=0, crop_size=a.crop)
        image = np.asarray(pil)
        h, w = image.shape[:2]
        out = core.replay_geometry("sakura", w, h, np.asarray(s.vertices, np.float64).reshape(-1, 8),
                                   np.asarray(s.labels, np.int64), seed)
        got = core.warp_crop(image, out["matrix"], a.crop)
        results.append((psnr(got, want), seed, Path(s.image).name))
    values = np.array([r[0] for r in results])
    print(f"{len(values)} crops: PSNR min {values.min():.2f} median {np.median(values):.2f} max {values.max():.2f} dB; "
          f"below 35 dB: {(values < 35).sum()}, below 30 dB: {(values < 30).sum()}")
    for q, seed, name in sorted(results)[:8]:
        print(f"  seed {seed:4d} {name}: {q:.2f} dB")


if __name__ == "__main__":
    sys.exit(main())
