"""A small EAST-style training loop fed by textfeed or by a plain PyTorch DataLoader, side by side.

    PYTHONPATH=build/python /usr/bin/python3 examples/train_east.py --loader textfeed --dataset DIR
    PYTHONPATH=build/python /usr/bin/python3 examples/train_east.py --loader torch --workers 2 --dataset DIR

Both loaders run the same pipeline (decode, resize, height jitter, rotation, word-preserving crop,
colour jitter, normalize, then score / geometry / ROI targets): textfeed's C++ one, or
``east_torch_pipeline.EASTDataset`` in ``DataLoader(num_workers=N)`` worker processes. The loop
line that builds the loader is the only difference; the model is a tiny CNN with the EAST heads and
loss, so that the figures are the loaders'. It prints each step's loss with the running mean, then
samples/s delivered to the loop, the mean loss and the share of text-free batches (no positive pixel
in the score map: their loss is 1 whatever the model predicts), and the peak memory of this process
and its workers (proportional set size, so shared pages count once).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import threading
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F
from torch import nn

HERE = Path(__file__).resolve().parent
DEFAULT_DATASET = HERE.parent / "data" / "icdar15-sample"  # the sample that ships with the repository


class TinyEAST(nn.Module):
    """A few strided convolutions and EAST's heads: score (sigmoid), four distances (sigmoid x 512)
    and the angle ((sigmoid - 0.5) x pi), predicted at the target maps' resolution."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True))
        self.score = nn.Conv2d(16, 1, 1)
        self.dist = nn.Conv2d(16, 4, 1)
        self.angle = nn.Conv2d(16, 1, 1)

    def forward(self, img: torch.Tensor, map_side: int) -> Tuple[torch.Tensor, torch.Tensor]:
        # Cheap on purpose (the loaders are what is measured): features at 1/32 of the crop, and only
        # the six predicted channels upsampled to the target maps.
        x = self.body(F.avg_pool2d(img.float(), 8))
        out = torch.cat([self.score(x), self.dist(x), self.angle(x)], 1)
        out = F.interpolate(out, size=(map_side, map_side), mode="bilinear", align_corners=False)
        score, dist, angle = torch.split(out, (1, 4, 1), 1)
        return torch.sigmoid(score), torch.cat([torch.sigmoid(dist) * 512, (torch.sigmoid(angle) - 0.5) * math.pi], 1)


def east_loss(score: torch.Tensor, geo: torch.Tensor, gt_score: torch.Tensor, gt_geo: torch.Tensor,
              mask: torch.Tensor, mask_is_roi: bool) -> torch.Tensor:
    """Dice on the score map over the valid area, IoU + angle loss over the text pixels (EAST)."""
    valid = mask if mask_is_roi else 1 - mask
    inter = (score * gt_score * valid).sum()
    dice = 1 - 2 * inter / ((score * valid).sum() + (gt_score * valid).sum() + 1e-5)
    d1, d2, d3, d4, angle = torch.split(geo, 1, 1)
    g1, g2, g3, g4, gt_angle = torch.split(gt_geo, 1, 1)
    area = (d1 + d2) * (d3 + d4)
    gt_area = (g1 + g2) * (g3 + g4)
    w_inter = torch.min(d3, g3) + torch.min(d4, g4)
    h_inter = torch.min(d1, g1) + torch.min(d2, g2)
    inter_area = w_inter * h_inter
    iou = -torch.log((inter_area + 1) / (area + gt_area - inter_area + 1))
    angle_loss = 1 - torch.cos(angle - gt_angle)
    text = gt_score.sum().clamp(min=1)
    return dice + ((iou + 20 * angle_loss) * gt_score).sum() / text


class MemoryWatch:
    """Peak resident memory of this process and its descendants, sampled every 0.1 s: RSS summed,
    and PSS summed (pages shared between the processes counted once)."""

    def __init__(self) -> None:
        self.peak_rss = self.peak_pss = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _family() -> List[int]:
        parents: Dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                    parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
        family, frontier = [os.getpid()], [os.getpid()]
        while frontier:
            children = [pid for pid, ppid in parents.items() if ppid in frontier]
            family += children
            frontier = children
        return family

    @staticmethod
    def _kib(pid: int, field: str) -> int:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        except OSError:
            pass
        return 0

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            pids = self._family()
            self.peak_rss = max(self.peak_rss, sum(self._kib(p, "Rss") for p in pids))
            self.peak_pss = max(self.peak_pss, sum(self._kib(p, "Pss") for p in pids))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def textfeed_batches(args: argparse.Namespace, overrides: Dict[str, float]) -> Iterator[Sequence[torch.Tensor]]:
    import textfeed

    endpoint = args.endpoint
    payload = "full"
    daemon = textfeed.DaemonOptions(curve_server_key=args.curve_server_key,
                                    curve_client_key=args.curve_client_key)
    if endpoint and "," in endpoint or args.payload != "full" or args.local_threads:
        # Several daemons (and this process's threads) feed this rank at once.
        endpoint = [e for e in (endpoint or "").split(",") if e]
        payload = args.payload
        if args.local_threads:
            daemon = textfeed.DaemonOptions(curve_server_key=args.curve_server_key,
                                            curve_client_key=args.curve_client_key,
                                            local_threads=args.local_threads, local_dataset=args.local_dataset)
    loader = textfeed.Loader(args.dataset, args.batch_size, profile=args.profile, threads=args.threads,
                             recipe=textfeed.Recipe(**overrides), sampler=textfeed.SamplerOptions(seed=args.seed),
                             output=textfeed.OutputOptions(pin_memory=args.device == "cuda", payload=payload),
                             endpoint=endpoint or None, daemon=daemon if endpoint else None)
    with loader:
        for epoch in range(10 ** 9):
            loader.set_epoch(epoch)
            yield from loader


def torch_batches(args: argparse.Namespace, overrides: Dict[str, float]) -> Iterator[Sequence[torch.Tensor]]:
    sys.path.insert(0, str(HERE))
    from east_torch_pipeline import EASTDataset

    class EpochSampler(torch.utils.data.Sampler):
        """A new permutation per epoch, epoch after epoch; item = epoch * n + index."""

        def __init__(self, n: int, seed: int) -> None:
            self.n, self.seed = n, seed

        def __iter__(self) -> Iterator[int]:
            for epoch in range(10 ** 9):
                order = torch.randperm(self.n, generator=torch.Generator().manual_seed(self.seed + epoch))
                yield from (epoch * self.n + int(i) for i in order)

    class EpochDataset(torch.utils.data.Dataset):
        """Passes the sampler's epoch to the dataset's per-sample seed (workers stay up across epochs)."""

        def __init__(self, dataset: EASTDataset) -> None:
            self.dataset = dataset

        def __len__(self) -> int:
            return len(self.dataset)

        def __getitem__(self, item: int) -> Tuple[torch.Tensor, ...]:
            self.dataset.epoch = item // len(self.dataset)
            return self.dataset[item % len(self.dataset)]

    dataset = EpochDataset(EASTDataset(Path(args.dataset), profile=args.profile, seed=args.seed,
                                       fast=args.fast_baseline, **overrides))
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size,
                                         sampler=EpochSampler(len(dataset), args.seed),
                                         num_workers=args.workers, pin_memory=args.device == "cuda",
                                         persistent_workers=args.workers > 0)
    yield from loader


def main(argv: Optional[List[str]] = None) -> Dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loader", choices=("textfeed", "torch"), default="textfeed")
    parser.add_argument("--dataset", default=str(DEFAULT_DATASET),
                        help="ICDAR-2015 folder or UFO json (textfeed with --endpoint: the daemon's dataset name)")
    parser.add_argument("--endpoint", help="textfeed: a `textfeed serve` endpoint, or several separated by commas "
                                           "(one rank fed by all of them; default: in process)")
    parser.add_argument("--payload", choices=("full", "compact"), default="full",
                        help="textfeed with daemons: compact sends the crops and finishes the batches here")
    parser.add_argument("--local-threads", type=int, default=0,
                        help="textfeed with daemons: this process's own threads as one more producer")
    parser.add_argument("--local-dataset", help="textfeed with --local-threads: where this host finds the dataset")
    parser.add_argument("--curve-server-key", help="textfeed over tcp: the daemon's public key file (NAME.pub)")
    parser.add_argument("--curve-client-key", help="textfeed over tcp: this client's secret key file (NAME.key)")
    parser.add_argument("--profile", choices=("upstage", "sakura"), default="upstage")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--steps", type=int, default=10, help="timed training steps")
    parser.add_argument("--warmup", type=int, default=2, help="steps before the clock starts")
    parser.add_argument("--workers", type=int, default=2, help="torch: DataLoader worker processes")
    parser.add_argument("--threads", type=int, default=2, help="textfeed: worker threads")
    parser.add_argument("--fast-baseline", action="store_true",
                        help="torch: skip the reference code's redundant work (every word intersected with "
                             "every crop try, every grid point rotated per word); same samples, faster")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--image-size", type=int)
    parser.add_argument("--crop-size", type=int)
    parser.add_argument("--map-scale", type=float)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON line")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.warmup < 0:
        parser.error("--steps must be at least 1 and --warmup at least 0")
    overrides = {k: v for k, v in (("image_size", args.image_size), ("crop_size", args.crop_size),
                                   ("map_scale", args.map_scale)) if v is not None}
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    model = TinyEAST().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    watch = MemoryWatch()
    batches = (textfeed_batches if args.loader == "textfeed" else torch_batches)(args, overrides)
    # The clock runs from the end of the last warm-up step to the end of the last timed one, and
    # counts the batches the loop fetches in between, each fetched and trained on inside it
    # (starting the clock after fetching a batch and counting that batch too, as this loop once
    # did, overstates a slow loader's rate by up to one batch over the timed steps). With
    # --warmup 0 the clock includes the loader's start.
    samples, losses, text_free, started = 0, [], [], time.perf_counter()
    for step, (img, gt_score, gt_geo, mask) in enumerate(batches):
        # A batch without text teaches the score head only "no text" and scores a loss of exactly 1.
        text_free.append(not bool((gt_score > 0).any()))
        img = img.to(device, non_blocking=True)
        gt_score = gt_score.to(device, non_blocking=True)
        gt_geo = gt_geo.to(device, non_blocking=True)
        mask = mask.to(device, non_blocking=True)
        # The loss looks at every 4th target pixel per axis, so that it costs little next to loading.
        gt_score, gt_geo, mask = gt_score[..., ::4, ::4], gt_geo[..., ::4, ::4], mask[..., ::4, ::4]
        score, geo = model(img, gt_score.shape[-1])
        loss = east_loss(score, geo, gt_score, gt_geo, mask, mask_is_roi=args.profile == "upstage")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
        if not args.json:
            print(f"step {step + 1}: loss {losses[-1]:.3f}, running mean {sum(losses) / len(losses):.3f}"
                  + (" (no text in this batch)" if text_free[-1] else ""), flush=True)
        samples += img.shape[0]
        if step + 1 == args.warmup:
            samples, started = 0, time.perf_counter()
        if step + 1 == args.warmup + args.steps:
            break
    elapsed = time.perf_counter() - started
    del batches  # stops the workers / the feed
    watch.stop()
    with_text = [loss for loss, free in zip(losses, text_free) if not free]
    result = {"loader": args.loader + ("-fast" if args.loader == "torch" and args.fast_baseline else ""),
              "profile": args.profile, "batch_size": args.batch_size,
              "workers" if args.loader == "torch" else "threads": args.workers if args.loader == "torch" else args.threads,
              "steps": args.steps, "samples_per_s": samples / elapsed, "first_loss": losses[0],
              "last_loss": losses[-1], "mean_loss": sum(losses) / len(losses),
              "mean_loss_with_text": sum(with_text) / len(with_text) if with_text else None,
              "text_free_batches": sum(text_free), "batches": len(losses),
              "peak_rss_mib": watch.peak_rss / 1024, "peak_pss_mib": watch.peak_pss / 1024}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{args.loader}: {result['samples_per_s']:.2f} samples/s delivered to the loop over {args.steps} steps "
              f"of {args.batch_size}; peak memory {result['peak_pss_mib']:.0f} MiB PSS ({result['peak_rss_mib']:.0f} "
              f"MiB RSS summed over processes)")
        text = (f"{result['mean_loss_with_text']:.3f} over the {len(with_text)} with text" if with_text
                else "no batch had text")
        print(f"loss: mean {result['mean_loss']:.3f} over all {len(losses)} steps ({text}); first "
              f"{losses[0]:.3f}, last {losses[-1]:.3f}; text-free batches {sum(text_free)} of {len(losses)} "
              f"({100 * sum(text_free) / len(losses):.0f}%, loss 1 each whatever the model predicts)")
    return result


if __name__ == "__main__":
    main()
