"""Plain-PyTorch EAST training data pipeline: the baseline textfeed is measured against.

The same sample pipeline textfeed runs in C++ (docs/targets.md §1-§3), written the way the
public references do it: numpy, OpenCV and Pillow inside ``torch.utils.data.Dataset.__getitem__``,
so ``DataLoader(num_workers=N)`` parallelises it over processes.

Profiles: ``sakura`` (SakuraRiven/EAST: ICDAR-2015, crop 512, map scale 0.25, ignored map) and
``upstage`` (Upstage/boostcamp baseline: UFO json, long side 2048, crop 1024, map scale 0.5, ROI
mask). Random decisions come from a ``np.random.RandomState`` seeded per (seed, epoch, index),
drawn in the references' order: adjust_height, rotate, crop (two per try), then colour jitter.

Run as a script to time it: ``python3 examples/east_torch_pipeline.py [DATASET] --profile sakura``
(DATASET defaults to the sample in data/icdar15-sample).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import time
from pathlib import Path
from typing import List, NamedTuple, Optional, Tuple

import cv2
import numpy as np
import torch
from PIL import Image

try:
    from shapely.geometry import Polygon, box as shapely_box
except ImportError:  # the crop check then uses the small convex clipper below
    Polygon = None
    shapely_box = None

logger = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")
UFO_IGNORE_TAGS = frozenset({"masked", "excluded-region", "maintable", "stamp"})
BILINEAR = getattr(Image, "Resampling", Image).BILINEAR
SHRINK_COEF = 0.3
CROP_TRIES = 1000
CUT_LOW, CUT_HIGH = 0.01, 0.99
JITTER = (0.5, 0.5, 0.5, 0.25)  # brightness, contrast, saturation, hue

# Angle candidates of the min-rect search (docs/targets.md §3.2): t_k = (k / 180) * pi, k = -90..89.
_ANGLES = [k / 180 * math.pi for k in range(-90, 90)]
_COS = np.array([math.cos(t) for t in _ANGLES])
_SIN = np.array([math.sin(t) for t in _ANGLES])

PROFILES = {
    # image_size (0 = no resize_img), crop_size, map_scale, colour-jitter probability
    "upstage": (2048, 1024, 0.5, 0.5),
    "sakura": (0, 512, 0.25, 1.0),
}


class Sample(NamedTuple):
    """One annotated image: vertices (n, 8) x1,y1..x4,y4 and labels (n,), 1 = valid, 0 = ignored."""

    image: Path
    vertices: np.ndarray
    labels: np.ndarray


# ----------------------------------------------------------------------------- readers


def parse_icdar15(text: str, source: str = "<gt>") -> Tuple[np.ndarray, np.ndarray]:
    """Parses one ICDAR-2015 gt file: 8 coordinates (ints or floats), text after the 8th comma.

    A line is ignored (label 0) if ``###`` occurs anywhere in it. Raises ValueError naming
    ``source`` and the line number on a malformed line.
    """
    vertices, labels = [], []
    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r").lstrip("\ufeff")
        if not line.strip():
            continue
        fields = line.split(",", 8)
        try:
            if len(fields) < 8:
                raise ValueError("fewer than 8 coordinates")
            vertices.append([float(f) for f in fields[:8]])
        except ValueError as e:
            raise ValueError(f"{source}:{lineno}: {e}") from None
        labels.append(0 if "###" in line else 1)
    return np.array(vertices, np.float64).reshape(-1, 8), np.array(labels, np.int64)


def read_icdar15(root: Path) -> List[Sample]:
    """Reads an ICDAR-2015 folder: images/<stem>.jpg paired by name with gt/gt_<stem>.txt."""
    root = Path(root)
    samples = []
    for image in sorted((root / "images").iterdir()):
        if image.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        gt = root / "gt" / f"gt_{image.stem}.txt"
        if not gt.is_file():
            logger.warning("%s: no ground truth %s, image skipped", image, gt.name)
            continue
        vertices, labels = parse_icdar15(gt.read_text(encoding="utf-8-sig"), str(gt))
        samples.append(Sample(image, vertices, labels))
    return samples


def read_ufo(json_path: Path, image_dir: Optional[Path] = None) -> List[Sample]:
    """Reads a UFO json; images live in ``image_dir`` (default: ../images beside the json's folder).

    Words with an ignore tag or more than 4 points are skipped (they become background), words
    with fewer than 4 points too; label 0 if illegible; boxes with convex-hull area < 1 dropped.
    """
    json_path = Path(json_path)
    image_dir = Path(image_dir) if image_dir is not None else json_path.parent.parent / "images"
    images = json.loads(json_path.read_text(encoding="utf-8-sig"))["images"]
    samples = []
    for name in sorted(images):
        vertices, labels = [], []
        for word in (images[name].get("words") or {}).values():
            if any(tag in UFO_IGNORE_TAGS for tag in word.get("tags") or ()):
                continue
            points = word["points"]
            if len(points) != 4:
                continue
            quad = np.array(points, np.float32).reshape(8)
            if _hull_area(quad.reshape(4, 2)) < 1:
                continue
            vertices.append(quad)
            labels.append(0 if word.get("illegibility") else 1)
        samples.append(Sample(image_dir / name, np.array(vertices, np.float32).reshape(-1, 8),
                              np.array(labels, np.int64)))
    return samples


# ----------------------------------------------------------------------------- polygons


def _convex_hull(points: np.ndarray) -> np.ndarray:
    """Convex hull by monotone chain; degenerate input gives fewer than 3 points."""
    pts = sorted(set(map(tuple, np.asarray(points, np.float64).tolist())))
    if len(pts) < 3:
        return np.array(pts, np.float64).reshape(-1, 2)

    def half(seq: List[Tuple[float, float]]) -> List[Tuple[float, float]]:
        out: List[Tuple[float, float]] = []
        for p in seq:
            while len(out) >= 2 and ((out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                                     - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])) <= 0:
                out.pop()
            out.append(p)
        return out

    return np.array(half(pts)[:-1] + half(pts[::-1])[:-1], np.float64)


def _shoelace(poly: np.ndarray) -> float:
    if len(poly) < 3:
        return 0.0
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _clip_to_rect(poly: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """Sutherland-Hodgman clip of a convex polygon to the rectangle [x0,x1] x [y0,y1]."""
    for axis, bound, keep_above in ((0, x0, True), (0, x1, False), (1, y0, True), (1, y1, False)):
        out = []
        for k in range(len(poly)):
            p, q = poly[k], poly[(k + 1) % len(poly)]
            p_in = p[axis] >= bound if keep_above else p[axis] <= bound
            q_in = q[axis] >= bound if keep_above else q[axis] <= bound
            if p_in:
                out.append(p)
            if p_in != q_in:
                out.append(p + (q - p) * ((bound - p[axis]) / (q[axis] - p[axis])))
        poly = np.array(out, np.float64).reshape(-1, 2)
        if len(poly) == 0:
            break
    return poly


def _hull_area(quad: np.ndarray) -> float:
    if Polygon is not None:
        return Polygon(quad.tolist()).convex_hull.area
    return _shoelace(_convex_hull(quad))


def _crop_cuts_a_word(quads: np.ndarray, x0: int, y0: int, length: int, fast: bool = True) -> bool:
    """True if the square crop keeps 1%..99% of some word's convex hull (docs/targets.md §2.1).

    ``fast=False`` intersects every word with the square, as the references do; ``fast`` skips the
    words whose bounds lie wholly inside or outside it (same answer).
    """
    x1, y1 = x0 + length, y0 + length
    if fast:
        lo, hi = quads.min(axis=1), quads.max(axis=1)
        inside = (lo[:, 0] >= x0) & (lo[:, 1] >= y0) & (hi[:, 0] <= x1) & (hi[:, 1] <= y1)
        apart = (hi[:, 0] <= x0) | (hi[:, 1] <= y0) | (lo[:, 0] >= x1) | (lo[:, 1] >= y1)
        quads = quads[~(inside | apart)]  # the others keep 100% or 0% of their area
    square = shapely_box(x0, y0, x1, y1) if shapely_box is not None else None
    for quad in quads:
        if square is not None:
            hull = Polygon(quad.tolist()).convex_hull
            area, kept = hull.area, hull.intersection(square).area
        else:
            hull = _convex_hull(quad)
            area, kept = _shoelace(hull), _shoelace(_clip_to_rect(hull, x0, y0, x1, y1))
        if area > 0 and CUT_LOW <= kept / area <= CUT_HIGH:
            return True
    return False


# ----------------------------------------------------------------------------- EAST targets


def _shrink_quad(quad: np.ndarray) -> np.ndarray:
    """Moves each vertex inward along its edges by 0.3 x its shorter edge (docs/targets.md §3.1)."""
    p = [[float(x), float(y)] for x, y in quad]

    def dist(a: List[float], b: List[float]) -> float:
        return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2)

    edges = [dist(p[k], p[(k + 1) % 4]) for k in range(4)]
    r = [min(edges[k - 1], edges[k]) for k in range(4)]
    o = 0 if edges[0] + edges[2] > edges[1] + edges[3] else 1
    for a in (o, o + 2, o + 1, o + 3):
        a, b = a % 4, (a + 1) % 4
        length = dist(p[a], p[b])
        if length <= 1:
            continue
        dx, dy = p[a][0] - p[b][0], p[a][1] - p[b][1]
        ra, rb = r[a] * SHRINK_COEF / length, r[b] * SHRINK_COEF / length
        p[a][0] += ra * -dx
        p[a][1] += ra * -dy
        p[b][0] += rb * dx
        p[b][1] += rb * dy
    return np.array(p, np.float64)


def _min_rect_angle(quad: np.ndarray, metric: str) -> Tuple[float, np.ndarray]:
    """Angle search of docs/targets.md §3.2: t and the quad rotated about p0 by R(t), shape (4, 2)."""
    d = quad - quad[0]
    rx = _COS[:, None] * d[:, 0] - _SIN[:, None] * d[:, 1] + quad[0, 0]
    ry = _SIN[:, None] * d[:, 0] + _COS[:, None] * d[:, 1] + quad[0, 1]
    xmin, xmax, ymin, ymax = rx.min(1), rx.max(1), ry.min(1), ry.max(1)
    area = (xmax - xmin) * (ymax - ymin)
    cand = np.argsort(area, kind="stable" if metric == "sr" else "quicksort")[:10]
    cx = np.stack([xmin, xmax, xmax, xmin], 1)[cand]  # p0 goes to the top-left corner
    cy = np.stack([ymin, ymin, ymax, ymax], 1)[cand]
    if metric == "sr":  # sum of the four corner distances
        err = np.sqrt((rx[cand] - cx) ** 2 + (ry[cand] - cy) ** 2).sum(1)
    else:  # norm of the x errors plus norm of the y errors, corners in float32
        ex, ey = rx[cand] - cx.astype(np.float32), ry[cand] - cy.astype(np.float32)
        err = np.sqrt((ex ** 2).sum(1)) + np.sqrt((ey ** 2).sum(1))
    best = int(cand[np.argmin(err)])
    return _ANGLES[best], np.stack([rx[best], ry[best]], 1)


def _add_box_geometry(geo: np.ndarray, quad: np.ndarray, poly: np.ndarray, stride: int,
                      metric: str, fast: bool = True) -> None:
    """Adds d1..d4 and the angle of one word to ``geo`` where its shrunk ``poly`` is filled.

    ``fast=False`` does what the references do: rotate every point of the grid for every word (SR:
    the full-resolution crop grid, sampled every ``stride`` pixels; UP: the map grid) and mask the
    result; ``fast`` evaluates only the pixels inside the word's polygon (same values).
    """
    m = geo.shape[1]
    theta, rotated = _min_rect_angle(quad, metric)
    c, s = math.cos(theta), math.sin(theta)
    (xmin, ymin), (xmax, ymax) = rotated.min(0), rotated.max(0)
    if fast:
        x0, y0 = max(int(poly[:, 0].min()), 0), max(int(poly[:, 1].min()), 0)
        x1, y1 = min(int(poly[:, 0].max()), m - 1), min(int(poly[:, 1].max()), m - 1)
        if x0 > x1 or y0 > y1:
            return
        window = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
        cv2.fillPoly(window, [poly - np.array([x0, y0], np.int32)], 1)
        ys, xs = np.nonzero(window)
        if ys.size == 0:
            return
        ys += y0
        xs += x0
        px, py = xs * stride - quad[0, 0], ys * stride - quad[0, 1]
        rx = c * px - s * py + quad[0, 0]
        ry = s * px + c * py + quad[0, 1]
        geo[0, ys, xs] += np.maximum(ry - ymin, 0)
        geo[1, ys, xs] += np.maximum(ymax - ry, 0)
        geo[2, ys, xs] += np.maximum(rx - xmin, 0)
        geo[3, ys, xs] += np.maximum(xmax - rx, 0)
        geo[4, ys, xs] += np.float32(theta)
        return
    mask = np.zeros((m, m), np.float32)
    cv2.fillPoly(mask, [poly], 1)
    if metric == "sr":  # the full crop-resolution grid, then every stride-th pixel
        xs, ys = np.meshgrid(np.arange(m * stride), np.arange(m * stride))
    else:
        xs, ys = np.meshgrid(np.arange(m) * stride, np.arange(m) * stride)
    px, py = xs - quad[0, 0], ys - quad[0, 1]
    rx = c * px - s * py + quad[0, 0]
    ry = s * px + c * py + quad[0, 1]
    if metric == "sr":
        rx, ry = rx[::stride, ::stride], ry[::stride, ::stride]
    geo[0] += np.maximum(ry - ymin, 0) * mask
    geo[1] += np.maximum(ymax - ry, 0) * mask
    geo[2] += np.maximum(rx - xmin, 0) * mask
    geo[3] += np.maximum(xmax - rx, 0) * mask
    geo[4] += np.float32(theta) * mask


def make_targets(vertices: np.ndarray, labels: np.ndarray, crop_size: int, map_scale: float,
                 profile: str, fast: bool = True) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """EAST targets of a crop (docs/targets.md §3): score (M, M), geo (5, M, M), mask (M, M), float32.

    ``vertices`` (n, 8) are in crop pixels, ``labels`` (n,) 1 = valid, 0 = ignored; M =
    int(crop_size * map_scale). Geo holds d1 top, d2 bottom, d3 left, d4 right in crop pixels and
    the angle in radians, summed where words overlap. ``mask`` is the upstage ROI (1 = valid,
    rasterised at crop size, bilinear-resized) or the sakura ignored map (1 = ignore).
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r} (expected one of {sorted(PROFILES)})")
    quads = np.asarray(vertices, np.float64).reshape(-1, 4, 2)
    labels = np.asarray(labels).reshape(-1)
    m, stride = int(crop_size * map_scale), int(1 / map_scale)
    sakura = profile == "sakura"
    score = np.zeros((m, m), np.float32)
    geo = np.zeros((5, m, m), np.float32)
    polys = []
    for quad, label in zip(quads, labels):
        if sakura and label == 0:  # upstage gives ignored words targets as well
            continue
        poly = np.around(map_scale * _shrink_quad(quad)).astype(np.int32)
        polys.append(poly)
        _add_box_geometry(geo, quad, poly, stride, "sr" if sakura else "up", fast)
    if polys:
        cv2.fillPoly(score, polys, 1)  # one call: even-odd where shrunk polygons overlap
    ignored = quads[labels == 0]
    if sakura:
        mask = np.zeros((m, m), np.float32)
        if len(ignored):
            cv2.fillPoly(mask, list(np.around(map_scale * ignored).astype(np.int32)), 1)
    else:
        roi = np.ones((crop_size, crop_size), np.float32)
        if len(ignored):
            cv2.fillPoly(roi, list(np.around(ignored).astype(np.int32)), 0)
        mask = cv2.resize(roi, (m, m), interpolation=cv2.INTER_LINEAR)
    return score, geo, mask


# ----------------------------------------------------------------------------- augmentation


def _resize_long_side(img: Image.Image, vertices: np.ndarray,
                      size: int) -> Tuple[Image.Image, np.ndarray]:
    w, h = img.size
    r = size / max(h, w)
    img = img.resize((size, int(h * r)) if w > h else (int(w * r), size), BILINEAR)
    return img, vertices * vertices.dtype.type(r)  # upstage: float32 vertex math


def _adjust_height(img: Image.Image, vertices: np.ndarray, rs: np.random.RandomState,
                   truncate: bool) -> Tuple[Image.Image, np.ndarray]:
    w, old_h = img.size
    ratio = 1 + 0.2 * (rs.rand() * 2 - 1)
    new_h = int(np.around(old_h * ratio))
    img = img.resize((w, new_h), BILINEAR)
    vertices = vertices.copy()
    y = vertices[:, 1::2] * vertices.dtype.type(new_h / old_h)
    vertices[:, 1::2] = np.trunc(y) if truncate else y  # sakura: int vertices in the reference
    return img, vertices


def _rotate(img: Image.Image, vertices: np.ndarray,
            rs: np.random.RandomState) -> Tuple[Image.Image, np.ndarray]:
    angle = 10 * (rs.rand() * 2 - 1)  # degrees, PIL turns the image counter-clockwise
    img = img.rotate(angle, BILINEAR)
    cx, cy = (img.width - 1) / 2, (img.height - 1) / 2
    t = -angle / 180 * math.pi
    c, s = math.cos(t), math.sin(t)
    x, y = vertices[:, 0::2].astype(np.float64) - cx, vertices[:, 1::2].astype(np.float64) - cy
    out = np.empty(vertices.shape, np.float64)
    out[:, 0::2] = c * x - s * y + cx
    out[:, 1::2] = s * x + c * y + cy
    return img, out


def _crop(img: Image.Image, vertices: np.ndarray, labels: np.ndarray, length: int,
          rs: np.random.RandomState, fast: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    w, h = img.size
    if h >= w and w < length:
        img = img.resize((length, int(h * length / w)), BILINEAR)
    elif h < w and h < length:
        img = img.resize((int(w * length / h), length), BILINEAR)
    vertices = vertices.copy()
    vertices[:, 0::2] *= img.width / w
    vertices[:, 1::2] *= img.height / h
    valid = vertices[labels == 1].reshape(-1, 4, 2)
    remain_w, remain_h = img.width - length, img.height - length
    for _ in range(CROP_TRIES):  # after the last try its sample is kept even if it cuts a word
        x0, y0 = int(rs.rand() * remain_w), int(rs.rand() * remain_h)
        if not _crop_cuts_a_word(valid, x0, y0, length, fast):
            break
    vertices[:, 0::2] -= x0
    vertices[:, 1::2] -= y0
    crop = np.asarray(img.crop((x0, y0, x0 + length, y0 + length)).convert("RGB"))
    return crop, vertices


def augment(img: Image.Image, vertices: np.ndarray, labels: np.ndarray,
            rs: np.random.RandomState, *, profile: str, image_size: int,
            crop_size: int, fast: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    """Geometric chain of docs/targets.md §2.1/§2.2: resize_img (if ``image_size`` > 0), adjust_height,
    rotate_img, crop_img.

    Returns the RGB uint8 crop (crop_size, crop_size, 3) and the float64 vertices (n, 8) in crop
    pixels. Draws from ``rs`` in the references' order: 1, 1, then 2 per crop try. EXIF
    orientation is not applied, as in the references.
    """
    sakura = profile == "sakura"
    vertices = np.asarray(vertices).astype(np.float64 if sakura else np.float32)
    if image_size:
        img, vertices = _resize_long_side(img, vertices, image_size)
    img, vertices = _adjust_height(img, vertices, rs, truncate=sakura)
    img, vertices = _rotate(img, vertices, rs)
    return _crop(img, vertices, np.asarray(labels), crop_size, rs, fast)


def _brightness(img: np.ndarray, f: float) -> np.ndarray:
    return cv2.addWeighted(img, f, img, 0.0, 0.0)


def _contrast(img: np.ndarray, f: float) -> np.ndarray:
    mean = float(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).mean())
    return cv2.addWeighted(img, f, img, 0.0, mean * (1 - f))


def _saturation(img: np.ndarray, f: float) -> np.ndarray:
    gray = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
    return cv2.addWeighted(img, f, gray, 1 - f, 0.0)


def _hue(img: np.ndarray, f: float) -> np.ndarray:
    hsv = cv2.cvtColor(img, cv2.COLOR_RGB2HSV_FULL)  # hue 0..255 for a full turn
    hsv[..., 0] += np.uint8(int(round(f * 255)) % 256)  # wraps around like uint8 hue
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB_FULL)


def _color_jitter(img: np.ndarray, rs: np.random.RandomState, p: float) -> np.ndarray:
    """ColorJitter(0.5, 0.5, 0.5, 0.25) with probability ``p``: the four ops in random order."""
    if p < 1 and rs.rand() >= p:
        return img
    b, c, s = (rs.uniform(1 - j, 1 + j) for j in JITTER[:3])
    hue = rs.uniform(-JITTER[3], JITTER[3])
    ops = ((_brightness, b), (_contrast, c), (_saturation, s), (_hue, hue))
    for k in rs.permutation(4):
        op, factor = ops[k]
        img = op(img, factor)
    return img


def _normalize(img: np.ndarray) -> np.ndarray:
    """uint8 HWC RGB -> float32 CHW, (x / 255 - 0.5) / 0.5."""
    x = img.astype(np.float32)
    x /= 255
    x -= 0.5
    x /= 0.5
    return np.ascontiguousarray(x.transpose(2, 0, 1))


# ----------------------------------------------------------------------------- dataset


class EASTDataset(torch.utils.data.Dataset):
    """EAST training samples from an ICDAR-2015 folder or a UFO json.

    ``__getitem__`` returns (image [3, C, C] float32 in [-1, 1], score [1, M, M], geo [5, M, M],
    mask [1, M, M]): mask is the ROI (1 = valid) for ``upstage`` and the ignored map (1 = ignore)
    for ``sakura``. ``image_size``, ``crop_size`` and ``map_scale`` override the profile's
    defaults (``image_size=0`` turns resize_img off). Same (seed, epoch, index), same sample.
    ``fast=False`` (the default) computes the crop check and the geometry the way the reference
    code does (every word intersected, every grid point rotated per word); ``fast=True`` skips
    work that cannot change the result. Both give the same samples.
    """

    def __init__(self, source: Path, *, profile: str = "upstage",
                 image_size: Optional[int] = None, crop_size: Optional[int] = None,
                 map_scale: Optional[float] = None, seed: int = 0, epoch: int = 0,
                 image_dir: Optional[Path] = None, fast: bool = False) -> None:
        if profile not in PROFILES:
            raise ValueError(f"unknown profile {profile!r} (expected one of {sorted(PROFILES)})")
        size, crop, scale, jitter_p = PROFILES[profile]
        self.profile = profile
        self.image_size = size if image_size is None else image_size
        self.crop_size = crop if crop_size is None else crop_size
        self.map_scale = scale if map_scale is None else map_scale
        self.jitter_p = jitter_p
        self.seed, self.epoch = seed, epoch
        self.fast = fast
        source = Path(source)
        is_ufo = source.suffix == ".json"
        self.samples = read_ufo(source, image_dir) if is_ufo else read_icdar15(source)

    def set_epoch(self, epoch: int) -> None:
        """Selects the epoch mixed into every sample's random seed."""
        self.epoch = epoch

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> Tuple[torch.Tensor, ...]:
        sample = self.samples[index]
        rs = np.random.RandomState(
            np.random.SeedSequence([self.seed, self.epoch, index]).generate_state(1)[0])
        with Image.open(sample.image) as img:
            crop, vertices = augment(img, sample.vertices, sample.labels, rs, profile=self.profile,
                                     image_size=self.image_size, crop_size=self.crop_size, fast=self.fast)
        image = _normalize(_color_jitter(crop, rs, self.jitter_p))
        score, geo, mask = make_targets(vertices, sample.labels, self.crop_size, self.map_scale,
                                        self.profile, fast=self.fast)
        return (torch.from_numpy(image), torch.from_numpy(score[None]), torch.from_numpy(geo),
                torch.from_numpy(mask[None]))


def _main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sample = Path(__file__).resolve().parent.parent / "data" / "icdar15-sample"
    parser.add_argument("source", type=Path, nargs="?", default=sample,
                        help="ICDAR-2015 folder or UFO json (default: the sample in data/icdar15-sample)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="upstage")
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args(argv)
    dataset = EASTDataset(args.source, profile=args.profile)
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True,
                                         num_workers=args.workers, drop_last=False)
    for epoch in range(args.epochs):
        dataset.set_epoch(epoch)
        start, count = time.perf_counter(), 0
        for batch in loader:
            count += batch[0].shape[0]
        elapsed = time.perf_counter() - start
        print(f"epoch {epoch}: {count} samples, {elapsed:.2f} s, {count / elapsed:.1f} samples/s")


if __name__ == "__main__":
    _main()
