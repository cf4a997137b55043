"""A training script shaped like the Upstage/Boostcamp data-centric OCR baselines' ``train.py``, fed by
textfeed: the same arguments, epochs, scheduler and checkpoints, with the project's tiny EAST model
and loss standing in for theirs. The data stays where those baselines keep it:

    6th generation:  ROOT/ufo/train.json, images in ROOT/img/train/
    7th generation:  ROOT/{chinese,japanese,thai,vietnamese}_receipt/ufo/train.json, images in
                     ROOT/<lang>_receipt/img/train/ (the four files are one dataset)

and the only line that differs from the baselines is the one that builds the loader (marked below).

    PYTHONPATH=build/python /usr/bin/python3 examples/boostcamp_train.py --data_dir ROOT [--profile bc7]
    # a ROOT of either layout from the sample images that ship with the repository:
    PYTHONPATH=build/python /usr/bin/python3 examples/boostcamp_train.py --make_sample_root DIR --layout 7

``--mix OTHER_ROOT --weights 1 3`` trains on two datasets drawn from 1:3 each epoch; every epoch
ends with an evaluation pass (``mode="eval"``: the baselines' inference resize, every image once,
with its original polygons) as the baselines validate.
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import torch

import textfeed

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from train_east import TinyEAST, east_loss  # noqa: E402  (the project's tiny model and EAST loss)

SAMPLE = HERE.parent / "data" / "icdar15-sample"
LANGUAGES = {"chinese": "zh", "japanese": "ja", "thai": "th", "vietnamese": "vi"}


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data_dir", type=Path, help="ROOT of a 6th- or 7th-generation layout (or a UFO json)")
    p.add_argument("--model_dir", type=Path, default=Path("trained_models"))
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--num_workers", type=int, default=2, help="textfeed worker threads (the baselines: processes)")
    p.add_argument("--image_size", type=int, default=2048)
    p.add_argument("--input_size", type=int, default=1024, help="the crop side")
    p.add_argument("--batch_size", type=int, default=8)
    p.add_argument("--learning_rate", type=float, default=1e-3)
    p.add_argument("--max_epoch", type=int, default=150)
    p.add_argument("--save_interval", type=int, default=5)
    p.add_argument("--ignore_tags", nargs="*", default=None,
                   help="UFO tags whose words are background (default: the profile's; the 6th generation passes "
                        "masked excluded-region maintable stamp)")
    p.add_argument("--profile", default="upstage", choices=["upstage", "bc7"],
                   help="upstage = the 6th generation, bc7 = the 7th (its reader and colour jitter)")
    p.add_argument("--mix", type=Path, help="a second ROOT to train on as well")
    p.add_argument("--weights", type=float, nargs=2, help="weights of --data_dir and --mix (drawn in proportion)")
    p.add_argument("--make_sample_root", type=Path, help="write a ROOT of --layout from the sample images and exit")
    p.add_argument("--layout", type=int, choices=[6, 7], default=6)
    return p.parse_args(argv)


# ------------------------------------------------------------------ a Boostcamp ROOT from the sample

def read_icdar_gt(path: Path) -> List[Dict]:
    """The words of an ICDAR-2015 gt file as UFO words ('###' = illegible)."""
    words = []
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        parts = line.strip().split(",")
        if len(parts) < 9:
            continue
        xy = [float(v) for v in parts[:8]]
        text = ",".join(parts[8:])
        words.append({"points": [[xy[i], xy[i + 1]] for i in range(0, 8, 2)], "transcription": text,
                      "illegibility": text == "###", "tags": []})
    return words


def make_sample_root(root: Path, layout: int) -> None:
    """ROOT laid out as the 6th (one ufo/train.json) or the 7th generation (four *_receipt folders,
    images named with their language code) expect, from data/icdar15-sample."""
    images = sorted((SAMPLE / "images").glob("*.jpg"))
    if root.exists():
        shutil.rmtree(root)
    groups = {None: images} if layout == 6 else {lang: images[i::4] for i, lang in enumerate(LANGUAGES)}
    for lang, members in groups.items():
        base = root if lang is None else root / f"{lang}_receipt"
        (base / "ufo").mkdir(parents=True)
        (base / "img" / "train").mkdir(parents=True)
        anno = {"images": {}}
        for k, image in enumerate(members):
            name = image.name if lang is None else f"extractor.{LANGUAGES[lang]}.in_house.sample_{k:06d}.jpg"
            shutil.copyfile(image, base / "img" / "train" / name)
            words = read_icdar_gt(SAMPLE / "gt" / f"gt_{image.stem}.txt")
            anno["images"][name] = {"img_w": 1280, "img_h": 720,
                                    "words": {f"{i:04d}": w for i, w in enumerate(words)}}
        (base / "ufo" / "train.json").write_text(json.dumps(anno, ensure_ascii=False), encoding="utf-8")
    print(f"wrote a {layout}th-generation ROOT at {root}")


# ------------------------------------------------------------------ training, as the baselines' train.py

def build_loader(args: argparse.Namespace) -> textfeed.Loader:
    # The baselines: dataset = SceneTextDataset(args.data_dir, split='train', image_size=..., crop_size=...,
    #                ignore_tags=...); dataset = EASTDataset(dataset)
    #                train_loader = DataLoader(dataset, batch_size=..., shuffle=True, num_workers=...)
    # textfeed (this is the line that changes):
    reader = None if args.ignore_tags is None else textfeed.ReaderOptions(ignore_tags=args.ignore_tags)
    dataset = str(args.data_dir) if args.mix is None else [
        textfeed.Source(args.data_dir, weight=args.weights[0] if args.weights else None),
        textfeed.Source(args.mix, weight=args.weights[1] if args.weights else None)]
    return textfeed.Loader(dataset, args.batch_size, profile=args.profile, threads=args.num_workers,
                           recipe=textfeed.Recipe(image_size=args.image_size, crop_size=args.input_size),
                           reader=reader, sampler=textfeed.SamplerOptions(shuffle=True))


def evaluate(args: argparse.Namespace, model: torch.nn.Module, loader: textfeed.Loader) -> Dict[str, float]:
    """One pass over the data as the baselines validate: each image once, resized by the profile's
    inference preprocessing, with its original polygons to match predictions against."""
    model.eval()
    images = words = 0
    score_sum = 0.0
    with torch.no_grad():
        for batch in loader:
            score, _ = model(batch.img.to(args.device), batch.img.shape[-1] // 4)
            score_sum += float(score.mean()) * len(batch.image_ids)
            images += len(batch.image_ids)
            # The scales map predictions back: original px = canvas px / scale.
            words += sum(len(p) for p in batch.polygons)
    model.train()
    return {"images": images, "words": words, "mean_score": score_sum / max(images, 1)}


def do_training(args: argparse.Namespace) -> Dict[str, float]:
    loader = build_loader(args)
    eval_loader = textfeed.Loader(str(args.data_dir), args.batch_size, profile=args.profile, mode="eval",
                                  recipe=textfeed.Recipe(image_size=args.image_size), threads=args.num_workers)
    model = TinyEAST().to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[args.max_epoch // 2], gamma=0.1)
    args.model_dir.mkdir(parents=True, exist_ok=True)
    mask_is_roi = args.profile != "sakura"
    result: Dict[str, float] = {}
    for epoch in range(args.max_epoch):
        loader.set_epoch(epoch)
        epoch_loss, start, sources, text_free = 0.0, time.time(), collections.Counter(), 0
        for batch in loader:  # (img, gt_score_map, gt_geo_map, roi_mask), as the baselines' tuples
            img, gt_score_map, gt_geo_map, roi_mask = (t.to(args.device, non_blocking=True) for t in batch)
            # No positive score pixel: the loss is 1 whatever the model predicts (it weighs in the mean).
            text_free += not bool((gt_score_map > 0).any())
            sources.update(batch.sources)  # which dataset each sample came from
            score, geo = model(img, gt_score_map.shape[-1])
            loss = east_loss(score, geo, gt_score_map, gt_geo_map, roi_mask, mask_is_roi)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item()
        scheduler.step()
        evaluation = evaluate(args, model, eval_loader)
        print(f"epoch {epoch}: mean loss {epoch_loss / max(len(loader), 1):.4f} | {len(loader)} batches in "
              f"{time.time() - start:.1f} s, {text_free} without text | samples per source "
              f"{dict(sorted(sources.items()))} | eval: "
              f"{evaluation['images']} images, {evaluation['words']} words", flush=True)
        if (epoch + 1) % args.save_interval == 0:
            torch.save({"model": model.state_dict(), "loader": loader.state_dict()}, args.model_dir / "latest.pth")
        result = {"loss": epoch_loss / max(len(loader), 1), "text_free_batches": text_free, **evaluation}
    loader.close()
    eval_loader.close()
    return result


def main(argv: Optional[List[str]] = None) -> Dict[str, float]:
    args = parse_args(argv)
    if args.make_sample_root:
        make_sample_root(args.make_sample_root, args.layout)
        return {}
    if args.data_dir is None:
        raise SystemExit("--data_dir is required (or --make_sample_root)")
    if args.weights and args.mix is None:
        raise SystemExit("--weights needs --mix")
    return do_training(args)


if __name__ == "__main__":
    main()
