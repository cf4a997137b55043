"""Whole training samples per second, JPEG to model input and targets: a torch DataLoader running
mmocr's training chain in plain Python against textfeed.Loader, per mmocr profile.

  PYTHONPATH=build/python /usr/bin/python3 bench/mmocr_loader.py \\
      [--profiles psenet,panet,fcenet,textsnake] [--workers 2,1] [--rounds 3] [--batches 16] \\
      [--batch-size 4] [--dataset data/icdar15-sample] [--json OUT.json]

The reference is ``torch.utils.data.DataLoader(dataset, batch_size=B, num_workers=W,
shuffle=True)`` with the default collate, whose dataset reads an ICDAR-2015 folder (images/*.jpg,
gt/gt_*.txt; '###' words ignored) with OpenCV as mmcv loads it, runs the config's chain
(bench/mmocr_reference/chains.py), the data preprocessor's BGR-to-RGB and mean/std, and the module
loss's targets (bench/mmocr_reference/targets.py); a sample the chain drops is replaced by another
drawn index, as mmengine's dataset does. Workers seed numpy, random and torch per worker (mmengine's
worker_init_fn) and run OpenCV single-threaded (mmengine's opencv_num_threads=0).

textfeed is ``textfeed.Loader(dataset, B, profile=..., threads=W,
output=OutputOptions(pin_memory=False))``, iterated over consecutive epochs. Both get the same
cores: W worker processes against W worker threads. Rounds alternate the two (which one goes first
alternates too); each run skips 2 x W batches of warm-up and then times --batches batches. Printed
per profile and W: min and median samples/s of each over the rounds, and textfeed's median over
the reference's median.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, Iterator, List, Sequence, Tuple

import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from mmocr_reference import chains  # noqa: E402
from mmocr_reference.targets import mmocr_targets  # noqa: E402

FAMILY = {"psenet": "pse", "panet": "pan", "fcenet": "fce", "textsnake": "textsnake"}
# The order of textfeed's batch tensors after the image, per profile (Batch.names).
TARGET_NAMES = {
    "psenet": ("gt_kernels", "gt_mask"),
    "panet": ("gt_kernels", "gt_mask"),
    "fcenet": ("p3_map", "p4_map", "p5_map"),
    "textsnake": ("gt_text_mask", "gt_mask", "gt_center_region_mask", "gt_radius_map", "gt_sin_map",
                  "gt_cos_map"),
}
MAX_REFETCH = 1000  # mmengine's BaseDataset.max_refetch


def read_icdar15(root: Path) -> List[Tuple[str, List[np.ndarray], List[bool]]]:
    """(image path, word quads as float32 flat arrays, ignored flags) per image of an ICDAR-2015
    folder: images/NAME.jpg with gt/gt_NAME.txt, 'x1,...,y4,text' lines, '###' ignored."""
    items = []
    for image in sorted((root / "images").glob("*.jpg")):
        polys, ignored = [], []
        gt = root / "gt" / f"gt_{image.stem}.txt"
        for line in gt.read_text(encoding="utf-8-sig").splitlines():
            parts = line.strip().split(",")
            if len(parts) < 9:
                continue
            polys.append(np.array([float(v) for v in parts[:8]], dtype=np.float32))
            ignored.append(",".join(parts[8:]) == "###")
        items.append((str(image), polys, ignored))
    return items


class ReferenceDataset(Dataset):
    """mmocr's training dataset for one chain over an ICDAR-2015 folder, ``length`` samples long
    (index modulo the images). Each item: (model input, targets..., refetches) as tensors."""

    def __init__(self, root: Path, chain: str, length: int) -> None:
        self.items = read_icdar15(root)
        self.chain, self.length = chain, length
        self.steps = chains.chain_steps(chain)

    def __len__(self) -> int:
        return self.length

    def _prepare(self, index: int):
        path, polys, ignored = self.items[index % len(self.items)]
        img = cv2.imread(path, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
        sample = chains.run_chain(self.steps, chains.load_sample(img, img.shape[:2], polys, ignored))
        if sample is None:
            return None
        try:
            maps = mmocr_targets(FAMILY[self.chain], [p.reshape(-1, 2) for p in sample.polys], sample.ignored,
                                 sample.hw)
        except AssertionError:  # the loss refuses a word (TextSnake): counted as a drop here
            return None
        targets = [torch.from_numpy(np.ascontiguousarray(maps[name])) for name in TARGET_NAMES[self.chain]]
        if self.chain == "fcenet":  # one level's (1, 25, h, w) as textfeed's (25, h, w) rows
            targets = [t.reshape(t.shape[-3:]) for t in targets]
        return [chains.model_input(sample.img)] + targets

    def __getitem__(self, index: int):
        for refetches in range(MAX_REFETCH + 1):
            out = self._prepare(index)
            if out is not None:
                return tuple(out) + (torch.tensor(refetches),)
            index = int(np.random.randint(0, len(self)))
        raise RuntimeError(f"no usable sample after {MAX_REFETCH} draws")


def _seed_worker(worker_id: int) -> None:
    seed = 1234 + worker_id  # mmengine: num_workers * rank + worker_id + seed
    np.random.seed(seed)
    random.seed(seed)
    torch.manual_seed(seed)
    chains.IMGAUG.gen = None  # imgaug's global generator: made from numpy on first use
    cv2.setNumThreads(0)


def _timed(batches: Iterator, warmup: int, count: int, redraws: bool) -> Tuple[float, int]:
    """(samples/s, redrawn samples) over ``count`` batches after ``warmup`` untimed ones; with
    ``redraws`` each batch's last tensor counts the reference's redraws per row."""
    for _ in range(warmup):
        next(batches)
    samples = refetches = 0
    start = time.perf_counter()
    for _ in range(count):
        batch = next(batches)
        samples += len(batch[0])
        refetches += int(batch[-1].sum()) if redraws else 0
    return samples / (time.perf_counter() - start), refetches


def run_reference(args, profile: str, workers: int) -> Tuple[float, int]:
    length = (2 * workers + args.batches + 2 * workers + 4) * args.batch_size
    dataset = ReferenceDataset(Path(args.dataset), profile, length)
    loader = DataLoader(dataset, batch_size=args.batch_size, num_workers=workers, shuffle=True,
                        worker_init_fn=_seed_worker, generator=torch.Generator().manual_seed(0))
    it = iter(loader)
    try:
        return _timed(it, 2 * workers, args.batches, redraws=True)
    finally:
        del it


def _epochs(loader) -> Iterator:
    epoch = 0
    while True:
        loader.set_epoch(epoch)
        yield from loader
        epoch += 1


def run_textfeed(args, profile: str, workers: int) -> float:
    import textfeed

    loader = textfeed.Loader(args.dataset, args.batch_size, profile=profile, threads=workers,
                             output=textfeed.OutputOptions(pin_memory=False))
    try:
        rate, _ = _timed(_epochs(loader), 2 * workers, args.batches, redraws=False)
        return rate
    finally:
        loader.close()


def _summary(rates: Sequence[float]) -> Dict[str, object]:
    return {"min": min(rates), "median": statistics.median(rates), "rates": list(rates)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profiles", default="psenet,panet,fcenet,textsnake")
    parser.add_argument("--workers", default="2,1", help="worker processes = textfeed threads, comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batches", type=int, default=16, help="timed batches per run")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--dataset", default=str(HERE.parent / "data" / "icdar15-sample"))
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    profiles = [p for p in args.profiles.split(",") if p]
    counts = [int(w) for w in args.workers.split(",") if w]
    if set(profiles) - set(FAMILY) or min(counts) < 1 or args.rounds < 1 or args.batches < 1:
        parser.error(f"profiles among {','.join(FAMILY)}; workers, rounds and batches at least 1")
    cv2.setNumThreads(0)
    rows = []
    for profile in profiles:
        for workers in counts:
            ref, tf, refetched = [], [], 0
            for r in range(args.rounds):
                order = ("ref", "tf") if r % 2 == 0 else ("tf", "ref")
                for who in order:
                    if who == "ref":
                        rate, extra = run_reference(args, profile, workers)
                        ref.append(rate)
                        refetched += extra
                    else:
                        tf.append(run_textfeed(args, profile, workers))
            row = {"profile": profile, "workers": workers, "batch_size": args.batch_size, "batches": args.batches,
                   "rounds": args.rounds, "reference": _summary(ref), "textfeed": _summary(tf),
                   "ratio": statistics.median(tf) / statistics.median(ref), "reference_redraws": refetched}
            rows.append(row)
            print(f"{profile:9s} W={workers}  reference {min(ref):6.1f}-{statistics.median(ref):<6.1f}  "
                  f"textfeed {min(tf):6.1f}-{statistics.median(tf):<6.1f} samples/s (min-median)  "
                  f"ratio {row['ratio']:5.1f}x", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"command": " ".join(sys.argv), "cpus": os.cpu_count(),
                                               "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
