"""Plain-Python DB (DBNet) training data pipeline: the baseline textfeed's ``db`` profile is measured against.

The sample chain of PaddleOCR's DB detection configs (docs/targets.md "DB targets"), computed the
way PaddleOCR computes it: NumPy, OpenCV, pyclipper and shapely in
``torch.utils.data.Dataset.__getitem__``, so ``DataLoader(num_workers=N)`` parallelises it over
processes. Steps: decode (BGR) -> label encode (``###``/``*`` ignored, polygons padded to the
longest by repeating their last point) -> flip / rotate / resize (imgaug 0.4 semantics,
docs/targets.md "DB crop and imgaug geometry") -> crop search into a 640 x 640 canvas -> border
map -> shrink map -> normalize (ImageNet mean/std on BGR) -> CHW.

``border_map``, ``shrink_map`` and ``random_crop`` are checked against PaddleOCR's own outputs
(tests/python/test_db_baseline.py), so the side-by-side timing compares like with like.

Run as a script to time it: ``python3 examples/db_paddle_pipeline.py [DATASET]`` (an ICDAR-2015
folder; defaults to data/icdar15-sample), or ``--targets-only`` to time only the two map functions
on random 640 x 640 crops.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import cv2
import numpy as np
import pyclipper
from shapely.geometry import Polygon

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
IGNORE_TEXTS = frozenset({"###", "*"})
MEAN_BGR = np.array([0.485, 0.456, 0.406], dtype=np.float32)  # ImageNet's, applied to BGR as the configs do
STD_BGR = np.array([0.229, 0.224, 0.225], dtype=np.float32)


# ----------------------------------------------------------------------------------------------
# Labels


class Sample(NamedTuple):
    image: Path
    polys: np.ndarray        # (N, P, 2) float64, padded to the longest polygon
    ignore_tags: np.ndarray  # (N,) bool


def pad_polygons(polys: Sequence[np.ndarray]) -> np.ndarray:
    """Polygons of different lengths as one (N, P, 2) array: each one's last point repeated."""
    if not polys:
        return np.zeros((0, 4, 2), dtype=np.float64)
    longest = max(len(p) for p in polys)
    out = np.empty((len(polys), longest, 2), dtype=np.float64)
    for i, p in enumerate(polys):
        p = np.asarray(p, dtype=np.float64).reshape(-1, 2)
        out[i, :len(p)] = p
        out[i, len(p):] = p[-1]
    return out


def read_icdar15(root: Path) -> List[Sample]:
    """ICDAR-2015 folder: images/<stem>.jpg with gt/gt_<stem>.txt (x1,y1,...,x4,y4,text)."""
    samples = []
    for image in sorted((root / "images").iterdir()):
        if image.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        gt = root / "gt" / f"gt_{image.stem}.txt"
        polys, tags = [], []
        for line in gt.read_text(encoding="utf-8-sig").splitlines():
            fields = line.strip().split(",")
            if len(fields) < 9:
                continue
            polys.append(np.array([float(v) for v in fields[:8]]).reshape(4, 2))
            tags.append(",".join(fields[8:]) in IGNORE_TEXTS)
        samples.append(Sample(image, pad_polygons(polys), np.array(tags, dtype=bool)))
    return samples


# ----------------------------------------------------------------------------------------------
# Targets


def _offset(poly: np.ndarray, delta: float) -> list:
    """pyclipper's round-join offset of a closed polygon (float coordinates truncated by pyclipper)."""
    offsetter = pyclipper.PyclipperOffset()
    offsetter.AddPath([tuple(p) for p in poly], pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    return offsetter.Execute(delta)


def _segment_distance(xs: np.ndarray, ys: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of each (xs, ys) to segment ab by the law of cosines, NaNs and all: a pixel on the
    segment whose cosine rounds above 1 gets NaN (the square root of a tiny negative number)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _segment_distance_unguarded(xs, ys, a, b)


def _segment_distance_unguarded(xs: np.ndarray, ys: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    da = np.square(xs - a[0]) + np.square(ys - a[1])
    db = np.square(xs - b[0]) + np.square(ys - b[1])
    ab = np.square(a[0] - b[0]) + np.square(a[1] - b[1])
    cos = (ab - da - db) / (2 * np.sqrt(da * db))
    sin2 = np.nan_to_num(1 - np.square(cos))
    dist = np.sqrt(da * db * sin2 / ab)
    beyond = cos < 0  # the nearest point is an end point
    dist[beyond] = np.sqrt(np.fmin(da, db))[beyond]
    return dist


def _draw_border(poly: np.ndarray, canvas: np.ndarray, mask: np.ndarray, ratio: float) -> None:
    shape = Polygon(poly)
    if shape.area <= 0:
        return
    distance = shape.area * (1 - np.power(ratio, 2)) / shape.length
    grown = np.array(_offset(poly, distance)[0])
    cv2.fillPoly(mask, [grown.astype(np.int32)], 1.0)
    x0, x1 = grown[:, 0].min(), grown[:, 0].max()
    y0, y1 = grown[:, 1].min(), grown[:, 1].max()
    w, h = x1 - x0 + 1, y1 - y0 + 1
    local = poly.copy()
    local[:, 0] -= x0
    local[:, 1] -= y0
    xs = np.broadcast_to(np.linspace(0, w - 1, num=w).reshape(1, w), (h, w))
    ys = np.broadcast_to(np.linspace(0, h - 1, num=h).reshape(h, 1), (h, w))
    n = len(local)
    per_edge = np.zeros((n, h, w), dtype=np.float32)
    for i in range(n):
        per_edge[i] = np.clip(_segment_distance(xs, ys, local[i], local[(i + 1) % n]) / distance, 0, 1)
    nearest = per_edge.min(axis=0)  # one NaN edge makes the pixel NaN
    H, W = canvas.shape
    cx0, cx1 = min(max(0, x0), W - 1), min(max(0, x1), W - 1)
    cy0, cy1 = min(max(0, y0), H - 1), min(max(0, y1), H - 1)
    window = canvas[cy0:cy1 + 1, cx0:cx1 + 1]
    # fmax keeps the canvas where the new value is NaN
    window[...] = np.fmax(1 - nearest[cy0 - y0:cy1 - y1 + h, cx0 - x0:cx1 - x1 + w], window)


def border_map(polys: np.ndarray, ignore_tags: np.ndarray, hw: Tuple[int, int], ratio: float = 0.4,
               thresh_min: float = 0.3, thresh_max: float = 0.7) -> Tuple[np.ndarray, np.ndarray]:
    """(threshold_map, threshold_mask) of the unclipped polygons, as PaddleOCR's MakeBorderMap."""
    canvas = np.zeros(hw, dtype=np.float32)
    mask = np.zeros(hw, dtype=np.float32)
    for poly, ignored in zip(polys, ignore_tags):
        if not ignored:
            _draw_border(np.array(poly), canvas, mask, ratio)
    return canvas * (thresh_max - thresh_min) + thresh_min, mask


def _signed_area(poly: np.ndarray) -> float:
    total, prev = 0, poly[-1]
    for p in poly:
        total += p[0] * prev[1] - p[1] * prev[0]
        prev = p
    return total / 2.0


def _clip_and_orient(polys: np.ndarray, tags: List[bool], hw: Tuple[int, int]) -> np.ndarray:
    """Polygons clipped into the canvas, tiny ones tagged, positive-area ones reversed (in place)."""
    h, w = hw
    for poly in polys:
        poly[:, 0] = np.clip(poly[:, 0], 0, w - 1)
        poly[:, 1] = np.clip(poly[:, 1], 0, h - 1)
    for i in range(len(polys)):
        area = _signed_area(polys[i])
        if abs(area) < 1:
            tags[i] = True
        if area > 0:
            polys[i] = polys[i][::-1, :]
    return polys


def _shrunk(poly: np.ndarray, ratio: float) -> list:
    """The inward offset, retried with larger ratios until it is one piece (or the ratios run out)."""
    shape = Polygon(poly)
    pieces: list = []
    for r in np.arange(ratio, 1, ratio):
        pieces = _offset(poly, -(shape.area * (1 - np.power(r, 2)) / shape.length))
        if len(pieces) == 1:
            break
    return pieces


def shrink_map(polys: np.ndarray, ignore_tags: np.ndarray, hw: Tuple[int, int], ratio: float = 0.4,
               min_text_size: int = 8) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(shrink_map, shrink_mask, ignore_tags after) as PaddleOCR's MakeShrinkMap; `polys` is changed."""
    tags = [bool(t) for t in ignore_tags]
    if len(polys):
        polys = _clip_and_orient(polys, tags, hw)
    gt = np.zeros(hw, dtype=np.float32)
    mask = np.ones(hw, dtype=np.float32)
    for i, poly in enumerate(polys):
        size = min(poly[:, 1].max() - poly[:, 1].min(), poly[:, 0].max() - poly[:, 0].min())
        pieces = [] if tags[i] or size < min_text_size else _shrunk(poly, ratio)
        if not pieces:
            cv2.fillPoly(mask, poly.astype(np.int32)[np.newaxis], 0)
            tags[i] = True
            continue
        for piece in pieces:
            cv2.fillPoly(gt, [np.array(piece).reshape(-1, 2).astype(np.int32)], 1)
    return gt, mask, np.array(tags, dtype=bool)


def db_targets(polys: np.ndarray, ignore_tags: np.ndarray, hw: Tuple[int, int], ratio: float = 0.4,
               min_text_size: int = 8, thresh_min: float = 0.3, thresh_max: float = 0.7) -> Dict[str, np.ndarray]:
    """The four maps in PaddleOCR's order: border (unclipped polygons), then shrink."""
    polys = np.array(polys, dtype=np.float64)
    tmap, tmask = border_map(polys, ignore_tags, hw, ratio, thresh_min, thresh_max)
    smap, smask, tags = shrink_map(polys, ignore_tags, hw, ratio, min_text_size)
    return {"threshold_map": tmap, "threshold_mask": tmask, "shrink_map": smap, "shrink_mask": smask,
            "ignore_tags": tags}


# ----------------------------------------------------------------------------------------------
# Crop (EastRandomCropData)


def _outside(poly: np.ndarray, x: float, y: float, w: float, h: float) -> bool:
    return bool(poly[:, 0].max() < x or poly[:, 0].min() > x + w or
                poly[:, 1].max() < y or poly[:, 1].min() > y + h)


def _free_runs(free: np.ndarray) -> List[np.ndarray]:
    """Runs of consecutive free indices, every one but the last (as the reference splits them)."""
    runs, start = [], 0
    for i in range(1, len(free)):
        if free[i] != free[i - 1] + 1:
            runs.append(free[start:i])
            start = i
    return runs


def _pick_span(free: np.ndarray, runs: List[np.ndarray], size: int, rs) -> Tuple[int, int]:
    if len(runs) > 1:
        values = [int(rs.choice(runs[k], size=1)) for k in list(rs.choice(len(runs), 2))]
        return min(values), max(values)
    pair = rs.choice(free, size=2)
    return int(np.clip(pair.min(), 0, size - 1)), int(np.clip(pair.max(), 0, size - 1))


def crop_box(hw: Tuple[int, int], care: Sequence[np.ndarray], min_side: float, tries: int, rs) -> Tuple[int, ...]:
    """(x, y, w, h) of a crop that cuts no care polygon, drawn as PaddleOCR's crop_area draws it."""
    h, w = hw
    rows, cols = np.zeros(h, dtype=np.int32), np.zeros(w, dtype=np.int32)
    for poly in care:
        p = np.round(poly, decimals=0).astype(np.int32)
        cols[p[:, 0].min():p[:, 0].max()] = 1  # NumPy slicing: a negative start counts from the end
        rows[p[:, 1].min():p[:, 1].max()] = 1
    free_y, free_x = np.where(rows == 0)[0], np.where(cols == 0)[0]
    if len(free_y) == 0 or len(free_x) == 0:
        return 0, 0, w, h
    runs_y, runs_x = _free_runs(free_y), _free_runs(free_x)
    for _ in range(tries):
        x0, x1 = _pick_span(free_x, runs_x, w, rs)
        y0, y1 = _pick_span(free_y, runs_y, h, rs)
        if x1 - x0 < min_side * w or y1 - y0 < min_side * h:
            continue
        if any(not _outside(p, x0, y0, x1 - x0, y1 - y0) for p in care):
            return x0, y0, x1 - x0, y1 - y0
    return 0, 0, w, h


def random_crop(image: np.ndarray, polys: np.ndarray, ignore_tags: np.ndarray, rs, size: int = 640,
                tries: int = 50, min_side: float = 0.1) -> Dict[str, object]:
    """EastRandomCropData(keep_ratio=True): the crop resized into the top-left of a size x size canvas."""
    care = [p for p, t in zip(polys, ignore_tags) if not t]
    x, y, cw, ch = crop_box(image.shape[:2], care, min_side, tries, rs)
    scale = min(size / cw, size / ch)
    h, w = int(ch * scale), int(cw * scale)
    canvas = np.zeros((size, size) + image.shape[2:], image.dtype)
    canvas[:h, :w] = cv2.resize(image[y:y + ch, x:x + cw], (w, h))
    moved = [(p - (x, y)) * scale for p in polys]
    kept = np.array([not _outside(p, 0, 0, w, h) for p in moved], dtype=bool)
    out = np.array([p for p, k in zip(moved, kept) if k])
    return {"image": canvas, "crop_xywh": (x, y, cw, ch), "scale": scale, "polys": out,
            "ignore_tags": np.asarray(ignore_tags, dtype=bool)[kept], "kept": kept}


# ----------------------------------------------------------------------------------------------
# Flip, rotate, resize (IaaAugment: imgaug 0.4 Fliplr(0.5), Affine(rotate=(-10, 10)), Resize((0.5, 3)))


def _rotation(angle_deg: float, cx: float, cy: float) -> np.ndarray:
    """2x3 matrix of a rotation by angle_deg (clockwise on screen, y down) about (cx, cy)."""
    r = math.radians(angle_deg)
    c, s = math.cos(r), math.sin(r)
    return np.array([[c, -s, cx - c * cx + s * cy], [s, c, cy - s * cx - c * cy]])


def iaa_augment(image: np.ndarray, polys: np.ndarray, rs) -> Tuple[np.ndarray, np.ndarray]:
    """One draw of each augmenter, applied to the image and, as keypoints, to the polygons.

    Keypoints: a flip maps x to width - x; the rotation turns about (w/2, h/2) while the image turns
    about (w/2 - 0.5, h/2 - 0.5) (imgaug's pixel-centre shift for images only); the resize takes
    round-half-even sizes and scales x, y by new/old size."""
    polys = np.array(polys, dtype=np.float64).reshape(len(polys), -1, 2)
    h, w = image.shape[:2]
    if rs.random_sample() < 0.5:
        image = image[:, ::-1].copy()
        polys[..., 0] = w - polys[..., 0]
    angle = rs.uniform(-10, 10)
    image = cv2.warpAffine(image, _rotation(angle, w / 2 - 0.5, h / 2 - 0.5), (w, h), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    m = _rotation(angle, w / 2, h / 2)
    xy = polys.reshape(-1, 2)
    polys = (xy @ m[:, :2].T + m[:, 2]).reshape(polys.shape)
    factor = rs.uniform(0.5, 3)
    nh, nw = int(np.round(h * factor)), int(np.round(w * factor))
    image = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_CUBIC)
    polys[..., 0] *= nw / w
    polys[..., 1] *= nh / h
    return image, polys


# ----------------------------------------------------------------------------------------------
# The whole sample


def normalize_chw(image: np.ndarray) -> np.ndarray:
    """NormalizeImage (1/255, ImageNet mean/std on the BGR channels as they are) then ToCHWImage."""
    return ((image.astype(np.float32) / 255 - MEAN_BGR) / STD_BGR).transpose(2, 0, 1).copy()


def make_sample(image: np.ndarray, polys: np.ndarray, ignore_tags: np.ndarray, rs, ratio: float = 0.4,
                size: int = 640) -> Tuple[np.ndarray, ...]:
    """(image CHW, threshold_map, threshold_mask, shrink_map, shrink_mask): KeepKeys' order."""
    image, polys = iaa_augment(image, polys, rs)
    crop = random_crop(image, polys, ignore_tags, rs, size=size)
    polys = crop["polys"] if len(crop["polys"]) else np.zeros((0, 4, 2))
    maps = db_targets(polys, crop["ignore_tags"], (size, size), ratio)
    return (normalize_chw(crop["image"]), maps["threshold_map"], maps["threshold_mask"],
            maps["shrink_map"], maps["shrink_mask"])


class DBDataset:
    """DB training samples of an ICDAR-2015 folder, as ``torch.utils.data.Dataset`` wants them.

    ``total_epochs`` > 0 grows the shrink ratio as the newer configs do: 0.4 + 0.2 * epoch / total.
    Same (seed, epoch, index), same sample."""

    def __init__(self, root: Path, *, seed: int = 0, epoch: int = 0, total_epochs: int = 0,
                 size: int = 640) -> None:
        self.samples = read_icdar15(Path(root))
        self.seed, self.epoch, self.total_epochs, self.size = seed, epoch, total_epochs, size

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch

    def shrink_ratio(self) -> float:
        return 0.4 + (0.2 * self.epoch / float(self.total_epochs) if self.total_epochs > 0 else 0.0)

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> Tuple[np.ndarray, ...]:
        sample = self.samples[index]
        rs = np.random.RandomState(np.random.SeedSequence([self.seed, self.epoch, index]).generate_state(1)[0])
        image = cv2.imread(str(sample.image), cv2.IMREAD_COLOR)
        if image is None:
            raise OSError(f"{sample.image}: not an image OpenCV can read")
        return make_sample(image, sample.polys, sample.ignore_tags, rs, self.shrink_ratio(), self.size)


# ----------------------------------------------------------------------------------------------
# Timing


def random_crop_words(rs, words: int = 15, size: int = 640) -> Tuple[np.ndarray, np.ndarray]:
    """`words` rotated text boxes (8-40 px high, 40-300 px long) inside a size x size canvas."""
    polys = []
    for _ in range(words):
        hgt, length = rs.uniform(8, 40), rs.uniform(40, 300)
        angle = math.radians(rs.uniform(-30, 30))
        cx, cy = rs.uniform(length / 2, size - length / 2), rs.uniform(hgt, size - hgt)
        c, s = math.cos(angle), math.sin(angle)
        corners = [(-length / 2, -hgt / 2), (length / 2, -hgt / 2), (length / 2, hgt / 2), (-length / 2, hgt / 2)]
        polys.append([(cx + c * x - s * y, cy + s * x + c * y) for x, y in corners])
    return np.array(polys), np.zeros(words, dtype=bool)


def time_targets(crops: int, words: int, seed: int = 0) -> List[float]:
    """Seconds per crop of border + shrink map on `crops` random 640 x 640 crops."""
    rs = np.random.RandomState(seed)
    times = []
    for _ in range(crops):
        polys, tags = random_crop_words(rs, words)
        start = time.perf_counter()
        db_targets(polys, tags, (640, 640))
        times.append(time.perf_counter() - start)
    return times


def time_pipeline(root: Path, samples: int) -> List[float]:
    """Seconds per sample of the whole chain from the JPEG, one process."""
    dataset = DBDataset(root)
    times = []
    for i in range(samples):
        start = time.perf_counter()
        dataset[i % len(dataset)]
        times.append(time.perf_counter() - start)
    return times


def _main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sample = Path(__file__).resolve().parent.parent / "data" / "icdar15-sample"
    parser.add_argument("source", type=Path, nargs="?", default=sample,
                        help="ICDAR-2015 folder (default: the sample in data/icdar15-sample)")
    parser.add_argument("--samples", type=int, default=20, help="samples (or crops) to time")
    parser.add_argument("--targets-only", action="store_true",
                        help="time only the border and shrink maps, on random 640x640 crops")
    parser.add_argument("--words", type=int, default=15, help="words per random crop (--targets-only)")
    args = parser.parse_args(argv)
    if args.targets_only:
        times = time_targets(args.samples, args.words)
        what = f"DB targets, {args.words} words per 640x640 crop"
    else:
        times = time_pipeline(args.source, args.samples)
        what = f"DB sample from JPEG ({args.source})"
    ms = sorted(t * 1e3 for t in times)
    print(f"{what}: {len(ms)} runs, min {ms[0]:.2f} ms, median {ms[len(ms) // 2]:.2f} ms per item, one core")


if __name__ == "__main__":
    _main()
