"""mmocr 1.x's four text-detection training pipelines, restated in plain Python as the reference
that bench/mmocr_loader.py times textfeed against.

The chains are the ``train_pipeline`` lists of the base configs (mmocr commit 966296f2):

  psenet     textdet/psenet/_base_psenet_resnet50_fpnf.py
  panet      textdet/panet/_base_panet_resnet18_fpem-ffm.py
  fcenet     textdet/fcenet/_base_fcenet_resnet50_fpn.py
  textsnake  textdet/textsnake/_base_textsnake_resnet50_fpn-unet.py

Every transform between LoadOCRAnnotations and PackTextDetInputs is restated here on a ``Sample``
(the image as OpenCV loads it, BGR uint8 HWC, and the words as mmocr holds them: flat
``[x1, y1, x2, y2, ...]`` arrays in the dtype mmocr leaves them in, float32 or float64). The work is
the reference's: the same numpy, OpenCV and shapely calls in the same order, the same draws from
numpy's legacy global generator and from Python's ``random`` module, torchvision's ColorJitter on
a PIL image in the RGB order mmocr's TorchVisionWrapper hands it. With ``img=None`` a Sample is
geometry only (its size and words), which is how tests/python/test_mmocr_chain_transcription.py
checks this module against the chain goldens.

imgaug (PSENet's and PANet's RandomRotate) is not a dependency. Its part is restated:

  * the angle: imgaug's global generator is numpy ``Generator(SFC64(seed))``; each call derives the
    Affine child from the second of two int32 draws (``SeedSequence(x).spawn(1)[0]``), takes two
    more draws for the Sequential around it, and the child advances four times before
    ``uniform(-max, max)``, rounded to float32. ``seed_streams`` seeds it as the goldens do; left
    unseeded it is created on first use from one numpy draw, as imgaug creates its global one.
  * the points: rotation about the image centre (x' = c + R(angle) (x - c), clockwise on screen),
    in float64 from float32 points, stored back as float32; a matrix within 1e-4 (mean absolute
    difference) of the identity leaves them as they are.
  * which words are dropped and how they are clipped: a word is dropped when its outline is not
    a valid shapely polygon, or when it is out of the image. imgaug decides the latter through the
    outline as a line string and then the polygon; this module decides it by "no vertex inside
    [0, w) x [0, h) and no area in common with the image", which differs only for a degenerate
    word whose edge crosses the image without enclosing any of it. Kept words are intersected with
    the image rectangle by shapely, the first piece is taken (without closing point), and its
    start is moved to the vertex nearest to any old vertex, as imgaug does.
  * the pixels: cv2.warpAffine, nearest neighbour, black border, the matrix about the centre of
    the pixel grid (imgaug's half-pixel shift for images).

The data preprocessor (``TextDetDataPreprocessor``: BGR to RGB, mean/std, pad to a multiple of 32)
is ``model_input``; every chain already ends on a multiple of 32.

Longer than 500 lines: one file holds the whole reference being timed, as targets.py does for the
targets.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import cv2
import numpy as np
from shapely.geometry import LineString, MultiLineString, MultiPoint, MultiPolygon, Point
from shapely.geometry import Polygon as ShapelyPolygon
from shapely.geometry.collection import GeometryCollection

CHAINS = ("psenet", "panet", "fcenet", "textsnake")
MEAN = (123.675, 116.28, 103.53)  # RGB, the four configs' data_preprocessor
STD = (58.395, 57.12, 57.375)
PAD_DIVISOR = 32


@dataclass
class Sample:
    """One image and its words between transforms. ``img`` None: geometry only (``hw`` is then the
    image size every transform works from). ``polys`` are flat [x1, y1, ...] arrays; ``ignored``
    (bool) and ``labels`` (int64, the input word each flag belongs to) run parallel to them."""

    img: Optional[np.ndarray]
    hw: Tuple[int, int]
    polys: List[np.ndarray]
    ignored: np.ndarray
    labels: np.ndarray

    def set_img(self, img: np.ndarray) -> None:
        self.img = img
        self.hw = (int(img.shape[0]), int(img.shape[1]))

    def keep(self, idx: Sequence[int]) -> None:
        """Keeps the words at ``idx`` (in that order), flags and labels with them."""
        idx = list(idx)
        self.polys = [self.polys[i] for i in idx]
        self.ignored = self.ignored[np.array(idx, dtype=np.int64)]
        self.labels = self.labels[np.array(idx, dtype=np.int64)]


def load_sample(img: Optional[np.ndarray], hw: Tuple[int, int], polys: Sequence[np.ndarray],
                ignored: Sequence[bool]) -> Sample:
    """A fresh Sample as LoadOCRAnnotations leaves it: float32 flat polygons, labels 0..N-1."""
    flat = [np.array(p, dtype=np.float32).reshape(-1) for p in polys]
    return Sample(img=img, hw=(int(hw[0]), int(hw[1])), polys=flat, ignored=np.array(ignored, dtype=bool),
                  labels=np.arange(len(flat), dtype=np.int64))


# --- random streams --------------------------------------------------------------------------------


class _ImgaugStream:
    """imgaug's global generator, only as far as RandomRotate's angle needs it (module docstring)."""

    def __init__(self) -> None:
        self.gen: Optional[np.random.Generator] = None

    def seed(self, seed: int) -> None:
        self.gen = np.random.Generator(np.random.SFC64(seed))

    def angle(self, max_angle: float) -> np.float32:
        if self.gen is None:  # imgaug seeds its global generator from numpy on first use
            self.seed(int(np.random.randint(0, 2**31 - 1)))
        child_seed = self.gen.integers(0, 2**31 - 1, dtype=np.int32, size=2)[-1]
        self.gen.integers(0, 2**31 - 1, dtype=np.int32, size=2)  # the Sequential's own, unused
        child = np.random.Generator(np.random.SFC64(np.random.SeedSequence(int(child_seed)).spawn(1)[0]))
        for _ in range(4):  # scale, translation and the range's two ends: constants, one advance each
            child.random()
        return np.float32(child.uniform(-max_angle, max_angle))


IMGAUG = _ImgaugStream()


def seed_streams(seed: int) -> None:
    """Seeds every generator the chains draw from, as the chain goldens' protocol does."""
    np.random.seed(seed)
    random.seed(seed)
    IMGAUG.seed(seed)
    try:
        import torch

        torch.manual_seed(seed)
    except ImportError:  # geometry only needs no torch
        pass


# --- polygon helpers (mmocr.utils) -----------------------------------------------------------------


def _shapely(flat: np.ndarray) -> ShapelyPolygon:
    return ShapelyPolygon(np.array(flat, dtype=np.float32).reshape(-1, 2))


def _made_valid(poly: ShapelyPolygon) -> ShapelyPolygon:
    """A valid polygon for a possibly self-touching one: buffer(0), a convex hull if it splits."""
    fixed = poly if poly.is_valid else poly.buffer(0)
    return fixed if isinstance(fixed, ShapelyPolygon) else fixed.convex_hull


def _box_ring(box: Sequence) -> np.ndarray:
    x1, y1, x2, y2 = box
    return np.array([x1, y1, x2, y1, x2, y2, x1, y2])


def _bbox(flat: np.ndarray) -> np.ndarray:
    p = np.array(flat, dtype=np.float32)
    x, y = p[::2], p[1::2]
    return np.array([min(x), min(y), max(x), max(y)])


def _overlap(a: ShapelyPolygon, b: ShapelyPolygon):
    """(area, geometry) of a and b made valid; area None when either stays invalid."""
    a, b = _made_valid(a), _made_valid(b)
    if not (a.is_valid and b.is_valid):
        return None, None
    if not a.intersects(b):
        return 0.0, ShapelyPolygon()
    inter = a.intersection(b)
    return inter.area, inter


def crop_to_box(flat: np.ndarray, box: Sequence) -> Optional[np.ndarray]:
    """The part of a word inside box [x1, y1, x2, y2] as float32, GEOS's ring reversed (closing point
    kept); None when nothing or more than one piece is left (mmocr.utils.crop_polygon)."""
    area, piece = _overlap(_shapely(flat), _shapely(_box_ring(box)))
    if area == 0 or area is None or not isinstance(piece, ShapelyPolygon):
        return None
    ring = np.array(_made_valid(piece).boundary.xy, dtype=np.float32).T
    return ring[::-1, :].reshape(-1)


def _inside_rect(flat: np.ndarray, rect: Sequence) -> bool:
    return _shapely(_box_ring(rect)).contains(_shapely(flat))


# --- transforms --------------------------------------------------------------------------------------


def fix_invalid_polygons(s: Sample) -> Optional[Sample]:
    """FixInvalidPolygon('fix', 4 points at least, from the bounding box when unfixable). None when
    no word is left (mmocr drops the sample)."""
    boxes = [_bbox(p).astype(np.float32) for p in s.polys]
    removed = []
    for i, flat in enumerate(list(s.polys)):
        if len(flat) < 6:
            removed.append(i)
            continue
        try:
            shape = _shapely(flat)
            if shape.is_valid and len(flat) >= 8:
                continue
            s.polys[i] = np.array(_made_valid(shape).exterior.coords).reshape(-1)
            if len(s.polys[i]) == 0:
                raise ValueError("empty")
        except Exception:  # a line or a point: its bounding box, if that is a polygon
            ring = _box_ring(boxes[i])
            s.polys[i] = ring
            box_shape = _shapely(ring)
            if not box_shape.is_valid or box_shape.is_empty:
                removed.append(i)
    if len(removed) == len(s.polys):
        return None
    s.keep([i for i in range(len(s.polys)) if i not in removed])
    return s


def resize_to(s: Sample, size_wh: Tuple[int, int], keep_ratio: bool) -> Sample:
    """mmocr's Resize (mmcv's with polygons): bilinear; with keep_ratio the largest size within
    ``size_wh``. Words are scaled, clipped to the image; one that is not a single piece afterwards
    becomes zeros of its old length."""
    h, w = s.hw
    if keep_ratio:
        factor = min(max(size_wh) / max(h, w), min(size_wh) / min(h, w))
        new_w, new_h = int(w * float(factor) + 0.5), int(h * float(factor) + 0.5)
    else:
        new_w, new_h = size_wh
    if s.img is not None:
        s.set_img(cv2.resize(s.img, (new_w, new_h), interpolation=cv2.INTER_LINEAR))
    else:
        s.hw = (new_h, new_w)
    factor_xy = np.array((new_w / w, new_h / h), dtype=float)
    out = []
    for flat in s.polys:
        scaled = (np.array(flat, dtype=np.float32).reshape(-1, 2) * factor_xy[None]).reshape(-1)
        clipped = crop_to_box(scaled, np.array([0, 0, new_w, new_h]))
        out.append(clipped.astype(np.float32) if clipped is not None else np.zeros_like(flat, dtype=np.float32))
    s.polys = out
    return s


def _uniform(lo: float, hi: float) -> float:
    return np.random.random_sample() * (hi - lo) + lo


def short_scale_aspect_jitter(s: Sample, short_size: int = 736, divisor: int = 32) -> Sample:
    """ShortScaleAspectJitter: short side to short_size x U(0.7, 1.3), aspect x U(0.9, 1.1), each
    side rounded and then up to a multiple of ``divisor``."""
    h, w = s.hw
    scale = (_uniform(0.7, 1.3) * short_size) / min(h, w)
    aspect = _uniform(0.9, 1.1)
    new_h = round(h * scale * math.sqrt(aspect))
    new_w = round(w * scale / math.sqrt(aspect))
    new_h = math.ceil(new_h / divisor) * divisor
    new_w = math.ceil(new_w / divisor) * divisor
    return resize_to(s, (new_w, new_h), keep_ratio=False)


def bounded_scale_aspect_jitter(s: Sample, long_bound: int = 800, short_bound: int = 480) -> Sample:
    """BoundedScaleAspectJitter: long side towards long_bound x U(0.7, 1.3), the short side kept
    above short_bound, aspect x U(0.9, 1.1), sides truncated."""
    h, w = s.hw
    base = long_bound / max(h, w) if max(h, w) > long_bound else 1
    ratio = base * _uniform(0.7, 1.3)
    if min(h, w) * ratio <= short_bound:
        ratio = (short_bound + 10) * 1.0 / min(h, w)
    aspect = _uniform(0.9, 1.1)
    new_h = int(h * ratio * math.sqrt(aspect))
    new_w = int(w * ratio / math.sqrt(aspect))
    return resize_to(s, (new_w, new_h), keep_ratio=False)


def random_resize(s: Sample, scale: int = 800, ratio_range: Tuple[float, float] = (0.75, 2.5)) -> Sample:
    """mmcv's RandomResize: a square target scale x U(ratio_range), truncated; keep ratio."""
    ratio = _uniform(*ratio_range)
    target = (int(scale * ratio), int(scale * ratio))
    return resize_to(s, target, keep_ratio=True)


def _choice(probs: Sequence[float]) -> int:
    """numpy's choice with probabilities: one random_sample against the cumulative sums."""
    cdf = np.cumsum(probs)
    cdf /= cdf[-1]
    return int(cdf.searchsorted(np.random.random_sample(), side="right"))


def random_flip(s: Sample, prob: float = 0.5) -> Sample:
    """RandomFlip(prob, horizontal): x -> w - x."""
    if _choice([prob, 1.0 - prob]) != 0:
        return s
    w = s.hw[1]
    if s.img is not None:
        s.set_img(np.flip(s.img, axis=1))
    flipped = []
    for flat in s.polys:
        new = flat.copy()
        new[0::2] = w - flat[0::2]
        flipped.append(new)
    s.polys = flipped
    return s


# --- PSENet / PANet rotation (imgaug's Affine, restated) --------------------------------------------


def _about_centre(angle_deg: np.float32, h: int, w: int, shift: float) -> np.ndarray:
    """3x3 rotation about (w/2 - shift, h/2 - shift), clockwise on screen; the angle goes to radians
    in float32 as imgaug's parameters do."""
    rad = float(np.deg2rad(np.float32(angle_deg)))
    cos, sin = math.cos(rad), math.sin(rad)
    cx, cy = w / 2.0 - shift, h / 2.0 - shift
    return np.array([[cos, -sin, cx - cos * cx + sin * cy], [sin, cos, cy - sin * cx - cos * cy], [0.0, 0.0, 1.0]])


def _near_identity(m: np.ndarray) -> bool:
    return float(np.average(np.abs(m - np.eye(3, dtype=np.float32)))) <= 1e-4


def _pieces_in_image(pts: np.ndarray, h: int, w: int) -> List[np.ndarray]:
    """imgaug's Polygon.clip_out_of_image: the float32 outlines (no closing point) of the word's
    pieces inside the image, each started at the vertex nearest to an old vertex."""
    inter = ShapelyPolygon([(float(x), float(y)) for x, y in pts]).intersection(
        ShapelyPolygon([(0, 0), (w, 0), (w, h), (0, h)]))
    if isinstance(inter, ShapelyPolygon):
        parts = [inter]
    elif isinstance(inter, MultiPolygon):
        parts = list(inter.geoms)
    elif isinstance(inter, (LineString, MultiLineString, Point, MultiPoint)):
        parts = []
    elif isinstance(inter, GeometryCollection):
        assert inter.is_empty
        return []
    else:
        raise TypeError(f"unexpected clip result {type(inter)}")
    out = []
    for part in parts:
        ext = np.zeros((0, 2), np.float32) if part.exterior is None else np.float32(part.exterior.coords)[:-1]
        assert len(ext) > 0, "a piece without points"
        best_idx, best_dist = None, None
        for x, y in pts:
            dist = np.sqrt((ext[:, 0] - x) ** 2 + (ext[:, 1] - y) ** 2)
            idx = int(np.argmin(dist))
            if best_idx is None or dist[idx] < best_dist:
                best_idx, best_dist = idx, dist[idx]
        out.append(np.concatenate((ext[best_idx:], ext[:best_idx]), axis=0))
    return out


def _rotated_word(pts: np.ndarray, h: int, w: int) -> Optional[np.ndarray]:
    """What mmocr's ImgAugWrapper keeps of one rotated word (float32 flat), or None (dropped)."""
    valid = len(pts) >= 3 and ShapelyPolygon([(float(x), float(y)) for x, y in pts]).is_valid
    if not valid:
        return None
    inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
    try:
        pieces = _pieces_in_image(pts, h, w)
    except Exception:  # imgaug raised inside the clip: mmocr warns and keeps the word unclipped
        pieces = None
    if not inside.any() and not pieces:
        return None
    kept = pieces[0] if pieces else pts
    flat = np.array([np.array(p, dtype=np.float32) for p in kept], dtype=np.float32).reshape(-1)
    return None if len(flat) <= 4 else flat


def imgaug_rotate(s: Sample, max_angle: int = 10) -> Optional[Sample]:
    """RandomRotate(max_angle) without canvas: imgaug's Affine(rotate) through ImgAugWrapper, which
    then runs FixInvalidPolygon. None when no word is left."""
    angle = IMGAUG.angle(max_angle)
    h, w = s.hw
    matrix = _about_centre(angle, h, w, 0.0)
    moved = []
    for flat in s.polys:
        pts = np.array(flat, dtype=np.float32).reshape(-1, 2)
        if not _near_identity(matrix):
            src = np.vstack((pts[:, 0], pts[:, 1], np.ones_like(pts[:, 0])))
            pts = (src.T @ matrix.T)[:, :2].astype(np.float32)
        moved.append(pts)
    kept, polys = [], []
    for i, pts in enumerate(moved):
        word = _rotated_word(pts, h, w)
        if word is not None:
            kept.append(i)
            polys.append(word)
    if not polys:
        return None
    s.keep(kept)
    s.polys = polys
    if s.img is not None:
        image_matrix = _about_centre(angle, h, w, 0.5)
        if not _near_identity(image_matrix):
            s.set_img(cv2.warpAffine(s.img, image_matrix[:2], (w, h), flags=cv2.INTER_NEAREST,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0)))
    return fix_invalid_polygons(s)


def text_det_random_crop(s: Sample, target: int = 736, positive_ratio: float = 5.0 / 8.0) -> Sample:
    """TextDetRandomCrop(target x target): a crop through the words with probability 5/8 (its
    offset range read from the halves of each flat polygon, as mmocr does), words clipped to it."""
    h, w = s.hw
    if (target, target) == (w, h):
        return s
    t_h, t_w = min(target, h), min(target, w)
    if len(s.polys) > 0 and np.random.random_sample() < positive_ratio:
        tl = np.array([h + 1, w + 1], dtype=np.int32)
        br = np.array([0, 0], dtype=np.int32)
        for flat in s.polys:
            low = np.min(flat.reshape(2, -1), axis=1)
            tl[0] = low[0] if low[0] <= tl[0] else tl[0]
            tl[1] = low[1] if low[1] <= tl[1] else tl[1]
        for flat in s.polys:
            high = np.max(flat.reshape(2, -1), axis=1)
            br[0] = high[0] if high[0] > br[0] else br[0]
            br[1] = high[1] if high[1] > br[1] else br[1]
        tl = tl - (t_h, t_w)
        tl[tl < 0] = 0
        br = br - (t_h, t_w)
        br[br < 0] = 0
        br[0], br[1] = min(br[0], h - t_h), min(br[1], w - t_w)
        y0 = random.randint(tl[0], br[0]) if tl[0] < br[0] else 0
        x0 = random.randint(tl[1], br[1]) if tl[1] < br[1] else 0
    else:
        y0 = random.randint(0, h - t_h) if h - t_h > 0 else 0
        x0 = random.randint(0, w - t_w) if w - t_w > 0 else 0
    y1, x1 = min(y0 + target, h), min(x0 + target, w)
    box = np.array([x0, y0, x1, y1])
    if s.img is not None:
        s.set_img(s.img[y0:y1, x0:x1])
    else:
        s.hw = (y1 - y0, x1 - x0)
    kept, polys = [], []
    for i, flat in enumerate(s.polys):
        if flat.size < 6:
            continue
        piece = crop_to_box(flat, box)
        if piece is not None:
            polys.append((piece.reshape(-1, 2) - (box[0], box[1])).reshape(-1))
            kept.append(i)
    s.keep(kept)
    s.polys = polys
    return s


def pad_to(s: Sample, size: int = 736) -> Sample:
    """mmcv's Pad(size x size): zeros at the bottom and the right."""
    h, w = s.hw
    if s.img is not None:
        s.set_img(cv2.copyMakeBorder(s.img, 0, size - h, 0, size - w, cv2.BORDER_CONSTANT, value=(0, 0, 0)))
    else:
        s.hw = (size, size)
    return s


# --- FCENet / TextSnake transforms -----------------------------------------------------------------


def _start_end(free: np.ndarray, min_len: int, max_start: int, min_end: int) -> Tuple[int, int]:
    """RandomCrop's draw on one axis: a start in a free run before max_start, an end in a free run
    from max(start + min_len, min_end) on (each run picked uniformly, then a point in it)."""
    starts = free.copy()
    starts[min(len(starts) - min_len, max_start):] = 0
    starts[0] = 1
    diff = np.hstack([0, starts]) - np.hstack([starts, 0])
    run_begin, run_end = np.where(diff < 0)[0], np.where(diff > 0)[0]
    run = np.random.randint(0, len(run_begin))
    start = np.random.randint(run_begin[run], run_end[run])
    ends = free.copy()
    ends[:max(start + min_len, min_end)] = 0
    ends[-1] = 1
    diff = np.hstack([0, ends]) - np.hstack([ends, 0])
    run_begin, run_end = np.where(diff < 0)[0], np.where(diff > 0)[0]
    run = np.random.randint(0, len(run_begin))
    end = np.random.randint(run_begin[run], run_end[run])
    return start, end


def random_crop(s: Sample, min_side_ratio: float = 0.3) -> Sample:
    """mmocr's RandomCrop: a crop that cuts no word's bounding span and holds one drawn word whole;
    words not wholly inside are dropped."""
    if len(s.polys) < 1:
        return s
    h, w = s.hw
    free_x, free_y = np.ones(w + 1, dtype=np.int32), np.ones(h + 1, dtype=np.int32)
    chosen = np.random.randint(0, len(s.polys))
    for i, flat in enumerate(s.polys):
        pts = flat.reshape((-1, 2))
        cx, cy = np.clip(pts[:, 0], 0, w), np.clip(pts[:, 1], 0, h)
        x0, y0 = np.floor(np.min(cx)).astype(np.int32), np.floor(np.min(cy)).astype(np.int32)
        x1, y1 = np.ceil(np.max(cx)).astype(np.int32), np.ceil(np.max(cy)).astype(np.int32)
        free_x[x0:x1] = 0
        free_y[y0:y1] = 0
        if i == chosen:
            span = (x0, x1, y0, y1)
    cx0, cx1 = _start_end(free_x, int(w * min_side_ratio), span[0], span[1])
    cy0, cy1 = _start_end(free_y, int(h * min_side_ratio), span[2], span[3])
    box = np.array([cx0, cy0, cx1, cy1])
    if s.img is not None:
        s.set_img(s.img[box[1]:box[3], box[0]:box[2]])
    else:
        s.hw = (int(box[3] - box[1]), int(box[2] - box[0]))
    kept, polys = [], []
    for i, flat in enumerate(s.polys):
        moved = (flat.reshape(-1, 2) - (box[0], box[1])).flatten()
        if _inside_rect(moved, [0, 0, box[2] - box[0], box[3] - box[1]]):
            polys.append(moved)
            kept.append(i)
    s.keep(kept)
    s.polys = polys
    return s


def _canvas_hw(h: int, w: int, angle: float) -> Tuple[int, int]:
    rad = angle * math.pi / 180.0
    cos, sin = math.fabs(math.cos(rad)), math.fabs(math.sin(rad))
    return int(w * sin + h * cos), int(w * cos + h * sin)


def _turn_points(flat: np.ndarray, cx: float, cy: float, angle: float, shift: Tuple[int, int]) -> np.ndarray:
    """mmocr's RandomRotate._rotate_points, in the polygon's own dtype, y flipped up and back."""
    cy = -cy
    x, y = flat[::2], -flat[1::2]
    rad = angle / 180 * math.pi
    cos, sin = math.cos(rad), math.sin(rad)
    x, y = x - cx, y - cy
    flat[::2] = cx + x * cos - y * sin + shift[0]
    flat[1::2] = -(cy + x * sin + y * cos) + shift[1]
    return flat


def canvas_rotate(s: Sample, max_angle: int) -> Sample:
    """RandomRotate(max_angle, use_canvas=True): the image turned on a canvas that holds it, the
    corners filled from a random ninth of the image stretched over the canvas."""
    angle = np.random.random_sample() * 2 * max_angle - max_angle
    h, w = s.hw
    canvas_h, canvas_w = _canvas_hw(h, w, angle)
    shift = (int((canvas_w - w) / 2), int((canvas_h - h) / 2))
    fill_y, fill_x = np.random.randint(0, h * 7 // 8), np.random.randint(0, w * 7 // 8)
    if s.img is not None:
        matrix = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1)
        matrix[0, 2] += shift[0]
        matrix[1, 2] += shift[1]
        patch = s.img[fill_y:fill_y + h // 9, fill_x:fill_x + w // 9]
        patch = cv2.resize(patch, (canvas_w, canvas_h), interpolation=cv2.INTER_LINEAR)
        mask = cv2.warpAffine(np.zeros_like(s.img), matrix, (canvas_w, canvas_h), borderValue=[1, 1, 1])
        turned = cv2.warpAffine(s.img, matrix, (canvas_w, canvas_h), borderValue=[0, 0, 0])
        s.set_img(turned + patch * mask)
    s.polys = [_turn_points(flat, w / 2, h / 2, angle, shift) for flat in s.polys]
    s.hw = (canvas_h, canvas_w)
    return s


def _free_axes(hw: Tuple[int, int], polys: Sequence[np.ndarray], pad_h: int, pad_w: int):
    """TextDetRandomCropFlip's free rows and columns (padded): those no word's min-area box covers
    (np.intp is the np.int0 mmocr truncates the box corners with)."""
    h, w = hw
    rows, cols = np.zeros(h + pad_h * 2, dtype=np.int32), np.zeros(w + pad_w * 2, dtype=np.int32)
    boxes = []
    for flat in polys:
        box = np.intp(cv2.boxPoints(cv2.minAreaRect(flat.astype(np.int32).reshape(-1, 2))))
        boxes.append([box[0], box[1], box[2], box[3]])
    for box in np.array(boxes, dtype=np.int32):
        box = np.round(box, decimals=0).astype(np.int32)
        cols[np.min(box[:, 0]) + pad_w:np.max(box[:, 0]) + pad_w] = 1
        rows[np.min(box[:, 1]) + pad_h:np.max(box[:, 1]) + pad_h] = 1
    return np.where(rows == 0)[0], np.where(cols == 0)[0]


def _crop_flip_attempt(s: Sample, axes, pads, eps: float = 1e-2):
    """One box of TextDetRandomCropFlip: (box, ok, kept, inside, partial). A box that cuts a word
    stops at it, with the lists as far as they got (mmocr goes on with them after ten failures)."""
    (rows, cols), (pad_h, pad_w), (h, w) = axes, pads, s.hw
    xx, yy = np.random.choice(cols, size=2), np.random.choice(rows, size=2)
    xmin, xmax = np.clip(np.min(xx) - pad_w, 0, w - 1), np.clip(np.max(xx) - pad_w, 0, w - 1)
    ymin, ymax = np.clip(np.min(yy) - pad_h, 0, h - 1), np.clip(np.max(yy) - pad_h, 0, h - 1)
    if (xmax - xmin) * (ymax - ymin) < h * w * 0.2:  # too small: nothing about the words is decided
        return (xmin, xmax, ymin, ymax), False, [], [], []
    box = ShapelyPolygon(np.stack([[xmin, xmax, xmax, xmin], [ymin, ymin, ymax, ymax]]).T.astype(np.int32))
    kept, inside, partial = [], [], []
    for i, flat in enumerate(s.polys):
        word = ShapelyPolygon(flat.reshape(-1, 2))
        common, _ = _overlap(word, box)
        if np.abs(common - float(word.area)) > eps and np.abs(common) > eps:
            return (xmin, xmax, ymin, ymax), False, kept, inside, partial
        kept.append(i)
        (inside if np.abs(common - float(word.area)) < eps else partial).append(flat)
    return (xmin, xmax, ymin, ymax), True, kept, inside, partial


def random_crop_flip(s: Sample, crop_ratio: float = 0.5, pad_ratio: float = 0.1) -> Sample:
    """TextDetRandomCropFlip(0.5, 1 iteration, min area 0.2): a patch that cuts no word is mirrored
    (left-right, up-down or both) with the words wholly inside it; up to ten boxes are tried and
    mmocr goes on with the last one even when it failed (its quirks are kept)."""
    if len(s.polys) == 0 or random.random() > crop_ratio:
        return s
    h, w = s.hw
    pads = (int(h * pad_ratio), int(w * pad_ratio))
    axes = _free_axes(s.hw, s.polys, *pads)
    if len(axes[0]) == 0 or len(axes[1]) == 0:
        return s
    for _ in range(10):
        box, ok, kept, inside, partial = _crop_flip_attempt(s, axes, pads)
        if ok:
            break
    kind = np.random.randint(3)
    xmin, xmax, ymin, ymax = box
    if s.img is not None:
        _mirror_patch(s.img, xmin, xmax, ymin, ymax, kind)
    if inside:
        width, height = xmax - xmin, ymax - ymin
        for i, flat in enumerate(inside):
            pts = flat.reshape(-1, 2)
            if kind in (0, 2):
                pts[:, 0] = width - pts[:, 0] + 2 * xmin
            if kind in (1, 2):
                pts[:, 1] = height - pts[:, 1] + 2 * ymin
            inside[i] = pts.reshape(-1, )
        s.polys = partial + inside
        s.ignored, s.labels = s.ignored[kept], s.labels[kept]
    return s


def _mirror_patch(img: np.ndarray, xmin: int, xmax: int, ymin: int, ymax: int, kind: int) -> None:
    patch = img[ymin:ymax, xmin:xmax, :]
    flips = {0: patch[:, ::-1], 1: patch[::-1, :], 2: patch[::-1, ::-1]}
    img[ymin:ymax, xmin:xmax, :] = np.ascontiguousarray(flips[kind])


def source_image_pad(s: Sample, target: int = 800, crop_ratio: float = 1.0 / 9) -> Sample:
    """SourceImagePad(target): the image at the top left of a target x target canvas filled with a
    random crop_ratio patch of itself stretched over it."""
    h, w = s.hw
    fill_y = np.random.randint(0, int(h - h * crop_ratio) + 1)
    fill_x = np.random.randint(0, int(w - w * crop_ratio) + 1)
    if s.img is not None:
        patch = s.img[fill_y:int(fill_y + h * crop_ratio), fill_x:int(fill_x + w * crop_ratio)]
        canvas = cv2.resize(patch, (target, target), interpolation=cv2.INTER_LINEAR)
        canvas[0:h, 0:w] = s.img
        s.set_img(canvas)
    else:
        s.hw = (target, target)
    return s


def resize_choice(s: Sample, keep_prob: float, size: int = 800) -> Sample:
    """RandomChoice([[Resize(size, keep ratio), SourceImagePad(size)], Resize(size x size)])."""
    if _choice([keep_prob, 1.0 - keep_prob]) == 0:
        return source_image_pad(resize_to(s, (size, size), keep_ratio=True), size)
    return resize_to(s, (size, size), keep_ratio=False)


def random_apply(s: Sample, prob: float, transform: Callable[[Sample], Sample]) -> Sample:
    return transform(s) if np.random.rand() < prob else s


# --- colour, chains, model input ---------------------------------------------------------------------


class ColorJitter:
    """TorchVisionWrapper(op='ColorJitter', ...): torchvision's ColorJitter on the PIL image of the
    RGB view, back to BGR. Draws from torch's generator only; geometry-only samples skip it."""

    def __init__(self, **factors: float) -> None:
        from torchvision.transforms import ColorJitter as TorchvisionColorJitter  # python3-torchvision

        self.jitter = TorchvisionColorJitter(**factors)

    def __call__(self, s: Sample) -> Sample:
        if s.img is None:
            return s
        from PIL import Image

        rgb = Image.fromarray(s.img[..., ::-1])
        s.set_img(np.asarray(self.jitter(rgb))[..., ::-1])
        return s


def _color(**factors: float) -> Callable[[Sample], Sample]:
    """A ColorJitter built on first use, so that geometry alone needs no torchvision."""
    built: List[ColorJitter] = []

    def apply(s: Sample) -> Sample:
        if s.img is None:
            return s
        if not built:
            built.append(ColorJitter(**factors))
        return built[0](s)

    return apply


Step = Tuple[str, Callable[[Sample], Optional[Sample]]]


def chain_steps(chain: str) -> List[Step]:
    """The named steps of ``chain`` (the goldens' trace names), in the config's order."""
    psenet_color = _color(brightness=32.0 / 255, saturation=0.5)
    if chain == "psenet":
        return [("ColorJitter", psenet_color), ("FixInvalidPolygon", fix_invalid_polygons),
                ("ShortScaleAspectJitter", short_scale_aspect_jitter), ("RandomFlip", random_flip),
                ("RandomRotate", imgaug_rotate), ("TextDetRandomCrop", text_det_random_crop), ("Pad", pad_to)]
    if chain == "panet":
        return [("ShortScaleAspectJitter", short_scale_aspect_jitter), ("RandomFlip", random_flip),
                ("RandomRotate", imgaug_rotate), ("TextDetRandomCrop", text_det_random_crop), ("Pad", pad_to),
                ("ColorJitter", psenet_color)]
    if chain == "fcenet":
        return [("RandomResize", random_resize), ("TextDetRandomCropFlip", random_crop_flip),
                ("RandomApply(RandomCrop)", lambda s: random_apply(s, 0.8, random_crop)),
                ("RandomApply(RandomRotate)", lambda s: random_apply(s, 0.5, lambda t: canvas_rotate(t, 30))),
                ("RandomChoice(Resize)", lambda s: resize_choice(s, 0.6)), ("RandomFlip", random_flip),
                ("ColorJitter", _color(brightness=32.0 / 255, saturation=0.5, contrast=0.5))]
    if chain == "textsnake":
        return [("ColorJitter", psenet_color),
                ("RandomApply(RandomCrop)", lambda s: random_apply(s, 0.65, random_crop)),
                ("RandomRotate", lambda s: canvas_rotate(s, 20)),
                ("BoundedScaleAspectJitter", bounded_scale_aspect_jitter),
                ("RandomChoice(Resize)", lambda s: resize_choice(s, 0.4)), ("RandomFlip", random_flip)]
    raise ValueError(f"unknown chain {chain!r}: one of {', '.join(CHAINS)}")


def run_chain(steps: Sequence[Step], s: Sample) -> Optional[Sample]:
    """The sample after every step, or None where a step drops it (mmocr's dataset then draws
    another index)."""
    for _, step in steps:
        s = step(s)
        if s is None:
            return None
    return s


def model_input(img: np.ndarray):
    """PackTextDetInputs then TextDetDataPreprocessor for one image: a float32 (3, H, W) tensor, RGB,
    (x - mean) / std, zero-padded to a multiple of 32."""
    import torch

    if not img.flags.c_contiguous:
        chw = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
    else:
        chw = torch.from_numpy(img).permute(2, 0, 1).contiguous()
    x = chw[[2, 1, 0], ...].float()
    x = (x - torch.tensor(MEAN).view(-1, 1, 1)) / torch.tensor(STD).view(-1, 1, 1)
    h, w = x.shape[-2:]
    pad_h, pad_w = -h % PAD_DIVISOR, -w % PAD_DIVISOR
    if pad_h or pad_w:
        x = torch.nn.functional.pad(x, (0, pad_w, 0, pad_h), value=0)
    return x
