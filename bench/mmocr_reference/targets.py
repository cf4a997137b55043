"""mmocr 1.x's training targets of one image for PSENet, PANet, FCENet and TextSnake, restated in plain
Python on numpy, OpenCV, pyclipper and shapely (Debian's python3-* packages, /usr/bin/python3).

What each family's module loss builds for one data sample (mmocr commit 966296f2,
mmocr/models/textdet/module_losses/):
  pse        PSEModuleLoss.get_targets, per sample: kernels at shrink ratios 1.0, 0.9, ..., 0.4 with
             a shrink distance capped at 20 px, and the effective mask of the ignored words.
  pan        PANModuleLoss, the same with ratios 1.0 and 0.5.
  fce        FCEModuleLoss._get_target_single: fourier degree 5, resample step 4, centre-region
             shrink 0.3, three levels (size divisors 8, 16, 32; size proportion ranges (0, 0.4),
             (0.3, 0.7), (0.6, 1.0)).
  textsnake  TextSnakeModuleLoss._get_target_single with its defaults.

The arithmetic is the reference's, operation for operation and dtype for dtype (float32 polygons
stay float32 where mmocr keeps them so, numpy's own sums, argsort and FFT), so the outputs equal the
golden files (../shared/golden-mmocr, tests/golden/mmocr). The work is also the reference's: the
same per-word full-map numpy passes and Python loops, since this module is the baseline that
bench/mmocr_targets.py times textfeed against. Where the reference raises (an outline with fewer than
four distinct vertices in TextSnake), this module raises the same AssertionError.

mmocr_targets(family, polygons, ignored, (h, w)) returns the arrays under the names that
textfeed.reference.mmocr_targets uses for them.
"""

from typing import Dict, List, Optional, Sequence, Tuple

import cv2
import numpy as np
import pyclipper
from numpy.fft import fft
from numpy.linalg import norm
from shapely.geometry import Polygon

FAMILIES = ("pse", "pan", "fce", "textsnake")

PSE_RATIOS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4)
PAN_RATIOS = (1.0, 0.5)
MAX_SHRINK_DIST = 20

EPS = 1e-8  # TextSnakeModuleLoss.eps, also FCENet's (it derives from TextSnake's loss)
ORIENTATION_THR = 2.0  # a quad's head/tail pair swaps when the other pair is this much longer
RESAMPLE_STEP = 4.0  # px between centre-line samples
CENTRE_SHRINK = 0.3  # the centre band's half width, as a fraction of the half height

FOURIER_DEGREE = 5
OUTLINE_POINTS = 400  # FCENet's outline resampling budget
LEVEL_DIVISORS = (8, 16, 32)
LEVEL_RANGES = ((0, 0.4), (0.3, 0.7), (0.6, 1.0))

HW = Tuple[int, int]
Arrays = Dict[str, np.ndarray]


# --- segmentation kernels (PSENet, PANet) -------------------------------------------------------


def _shrunk_outline(int_poly: np.ndarray, distance: int) -> np.ndarray:
    """mmocr.utils.offset_polygon: the flat float32 outline of Clipper's round-joined offset of
    `int_poly` by `distance`, or an empty array when Clipper gives nothing or a split.

    mmocr packs Clipper's pieces into one object array. Pieces of one point count stack into a 3-D
    array, whose first piece is kept; pieces of different counts give a 1-D array of lists, which it
    takes for a split and drops."""
    clipper = pyclipper.PyclipperOffset()
    clipper.AddPath(int_poly, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
    packed = np.array(clipper.Execute(distance), dtype=object)
    if len(packed) > 0 and isinstance(packed[0], list):
        packed = np.array([])
    packed = packed.astype(np.float32)
    if len(packed) == 0:
        return packed
    return packed[0].flatten()


def _kernel(hw: HW, polys: Sequence[np.ndarray], ratio: float, max_dist: int) -> np.ndarray:
    """SegBasedModuleLoss._generate_kernels without ignore flags (as PAN and PSE call it): every
    word's shrunk outline filled with its index + 1, later words on top."""
    canvas = np.zeros(hw, dtype=np.float32)
    for index, poly in enumerate(polys):
        vertices = poly.reshape(-1, 2).astype(np.int32)
        shape = Polygon(vertices)
        # Vatti's shrink distance from the truncated outline's area and perimeter, rounded half up.
        distance = min(int(shape.area * (1 - ratio * ratio) / (shape.length + 0.001) + 0.5), max_dist)
        outline = _shrunk_outline(vertices, -distance)
        if len(outline) == 0:
            continue
        cv2.fillPoly(canvas, [outline.reshape(-1, 2).astype(np.int32)], index + 1)
    return canvas


def _effective_mask(hw: HW, ignored_polys: Sequence[np.ndarray]) -> np.ndarray:
    """SegBasedModuleLoss._generate_effective_mask: uint8 ones, 0 inside every ignored word."""
    mask = np.ones(hw, dtype=np.uint8)
    for poly in ignored_polys:
        cv2.fillPoly(mask, poly.astype(np.int32).reshape(1, -1, 2), 0)
    return mask


def kernel_targets(polys: Sequence[np.ndarray], ignored: np.ndarray, hw: HW, ratios: Sequence[float]) -> Arrays:
    """PANModuleLoss._get_target_single (PSE's too): the (K, H, W) kernels, ignored words included,
    and the (H, W) effective mask, both float32."""
    kernels = np.stack([_kernel(hw, polys, r, MAX_SHRINK_DIST) for r in ratios], axis=0)
    mask = _effective_mask(hw, [p for p, skip in zip(polys, ignored) if skip])
    return {"gt_kernels": kernels.astype(np.float32, copy=False), "gt_mask": mask.astype(np.float32)}


# --- centre lines (TextSnake, FCENet) -----------------------------------------------------------


def _slope(vec: np.ndarray) -> float:
    return abs(vec[1] / (vec[0] + EPS))


def _unit(vec: np.ndarray) -> np.ndarray:
    if vec.ndim > 1:
        return vec / (norm(vec, axis=-1) + EPS).reshape((-1, 1))
    return vec / (norm(vec, axis=-1) + EPS)


def _angle(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The angle between vectors (rows) a and b, in [0, pi]."""
    return np.arccos(np.clip(np.sum(_unit(a) * _unit(b), axis=-1), -1.0, 1.0))


def _edge_scores(points: np.ndarray) -> np.ndarray:
    """Per edge of a polygon of more than 4 points: how much it looks like a head or tail edge."""
    count = len(points)
    closed = np.vstack([points, points[0]])
    edges = closed[1:] - closed[:-1]
    bend, neighbour_turn = [], []
    for i, edge in enumerate(edges):
        around = edges[[(i - 1) % len(edges), (i + 1) % len(edges)]]
        bend.append(np.sum(_angle(edge, around)))
        neighbour_turn.append(_angle(around[0], around[1]))
    centre = np.mean(points, axis=0)
    reach = np.maximum(norm(closed[1:] - centre, axis=-1), norm(closed[:-1] - centre, axis=-1))
    score = 0.5 * (np.array(bend) / np.pi) + 0.15 * (np.array(neighbour_turn) / np.pi)
    score += 0.35 * (reach / (np.max(reach) + EPS))
    bonus = np.zeros(len(edges))
    if count % 2 == 0:
        bonus[(len(score) // 2 - 1)] += 1
        bonus[-1] += 1
    score += 0.1 * bonus
    return score


def _head_tail_curved(points: np.ndarray) -> Tuple[List[int], List[int]]:
    """The best-scoring pair of edges, at least two apart, weighted by a Gaussian over their gap."""
    score = _edge_scores(points)
    m = len(score)
    doubled = np.concatenate([score, score])
    gap = np.arange(m - 3) / float(m - 4)
    weight = 1.0 / (np.sqrt(2.0 * np.pi) * 0.5) * np.exp(-np.power((gap - 0.5) / 0.5, 2.0) / 2)
    weight = weight / np.max(weight)
    pair_score = np.zeros((m, m - 3))
    for i in range(m):
        pair_score[i, :] = score[i] + doubled[(i + 2) : (i + m - 1)] * weight * 0.3
    first, step = np.unravel_index(pair_score.argmax(), pair_score.shape)
    count = len(points)
    second = (first + step + 2) % count
    first_end, second_end = (first + 1) % count, (second + 1) % count
    if first_end > second_end:
        first, second, first_end, second_end = second, first, second_end, first_end
    return [first, first_end], [second, second_end]


def _head_tail_quad(points: np.ndarray) -> Tuple[List[int], List[int]]:
    """The short (head and tail) edges of a quad: the flatter opposite pair are the sides, unless
    the other pair is more than ORIENTATION_THR times as long (a vertical word)."""
    p = points
    if _slope(p[1] - p[0]) + _slope(p[3] - p[2]) < _slope(p[2] - p[1]) + _slope(p[0] - p[3]):
        sides, ends = [[0, 1], [2, 3]], [[3, 0], [1, 2]]
    else:
        sides, ends = [[3, 0], [1, 2]], [[0, 1], [2, 3]]
    ends_len = norm(p[ends[0][0]] - p[ends[0][1]]) + norm(p[ends[1][0]] - p[ends[1][1]])
    sides_len = norm(p[sides[0][0]] - p[sides[0][1]]) + norm(p[sides[1][0]] - p[sides[1][1]])
    if ends_len > sides_len * ORIENTATION_THR:
        return sides[0], sides[1]
    return ends[0], ends[1]


def _sidelines(points: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """TextSnakeModuleLoss._reorder_poly_edge: the (top, bottom) vertex runs between head and tail."""
    assert points.ndim == 2 and points.shape[0] >= 4 and points.shape[1] == 2
    head, tail = _head_tail_curved(points) if len(points) > 4 else _head_tail_quad(points)
    doubled = np.vstack([points, points])
    if tail[1] < 1:
        tail[1] = len(points)
    run_a = doubled[head[1] : tail[1]]
    run_b = doubled[tail[1] : (head[1] + len(points))]
    shift = np.mean(run_a, axis=0) - np.mean(run_b, axis=0)
    return (run_b, run_a) if shift[1] > 0 else (run_a, run_b)


def _curve_length(line: np.ndarray) -> Tuple[np.ndarray, float]:
    pieces = np.sqrt((line[1:, 0] - line[:-1, 0]) ** 2 + (line[1:, 1] - line[:-1, 1]) ** 2)
    return pieces, np.sum(pieces)


def _resample_line(line: np.ndarray, n: int) -> np.ndarray:
    """n points equally spaced by arc length along `line`, its ends kept; float32 weights."""
    pieces, total = _curve_length(line)
    marks = np.insert(np.cumsum(pieces), 0, 0)
    wanted = np.arange(1, n - 1, dtype=np.float32) * (total / (n - 1))
    out = [line[0]]
    seg = 0
    for t in wanted:
        while seg < len(pieces) - 1 and t > marks[seg + 1]:
            seg += 1
        lo, hi = marks[seg], marks[seg + 1]
        weight = np.array([hi - t, t - lo], dtype=np.float32) / (hi - lo + EPS)
        out.append(np.dot(weight, line[[seg, seg + 1]]))
    out.append(line[-1])
    return np.vstack(out)


def _resample_pair(a: np.ndarray, b: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    _, len_a = _curve_length(a)
    _, len_b = _curve_length(b)
    n = max(int(float((len_a + len_b) / 2) / RESAMPLE_STEP) + 1, 3)
    return _resample_line(a, n), _resample_line(b, n)


def _centre_band(points: np.ndarray, reorient: bool) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(top, bottom, centre) lines of a word, point i of each facing point i of the others, with
    a quarter of the end heights trimmed off in RESAMPLE_STEP steps. TextSnake (`reorient`) first
    turns the centre line left to right, or top to bottom when it is steep."""
    top, bottom = _sidelines(points)
    top, bottom = _resample_pair(top, bottom)
    bottom = bottom[::-1]
    centre = (top + bottom) / 2
    if reorient:
        span = centre[-1] - centre[0]
        backwards = span[1] < 0 if _slope(span) > 0.9 else span[0] < 0
        if backwards:
            centre, top, bottom = centre[::-1], top[::-1], bottom[::-1]
    head_cut = int((norm(top[0] - bottom[0]) / 4.0) // RESAMPLE_STEP)
    tail_cut = int((norm(top[-1] - bottom[-1]) / 4.0) // RESAMPLE_STEP)
    if len(centre) > head_cut + tail_cut + 2:
        centre = centre[head_cut : len(centre) - tail_cut]
        top = top[head_cut : len(top) - tail_cut]
        bottom = bottom[head_cut : len(bottom) - tail_cut]
    return top, bottom, centre


def _band_quad(top: np.ndarray, bottom: np.ndarray, centre: np.ndarray, i: int) -> np.ndarray:
    """The int32 quad of centre segment i, its corners pulled CENTRE_SHRINK of the way out."""
    corners = [
        centre[i] + (top[i] - centre[i]) * CENTRE_SHRINK,
        centre[i + 1] + (top[i + 1] - centre[i + 1]) * CENTRE_SHRINK,
        centre[i + 1] + (bottom[i + 1] - centre[i + 1]) * CENTRE_SHRINK,
        centre[i] + (bottom[i] - centre[i]) * CENTRE_SHRINK,
    ]
    return np.vstack(corners).astype(np.int32)


def _region_mask(hw: HW, polys: Sequence[np.ndarray]) -> np.ndarray:
    """TextSnakeModuleLoss._generate_text_region_mask: uint8, 1 inside every given word."""
    mask = np.zeros(hw, dtype=np.uint8)
    for poly in polys:
        cv2.fillPoly(mask, np.array(poly, dtype=np.int32).reshape((1, -1, 2)), 1)
    return mask


# --- TextSnake ----------------------------------------------------------------------------------


def _distinct_vertices(poly: np.ndarray) -> np.ndarray:
    """The vertices that lie more than 1e-5 from the next one (cyclically)."""
    points = np.array(poly).reshape(-1, 2)
    n = len(points)
    keep = [i for i in range(n) if norm(points[i] - points[(i + 1) % n]) > 1e-5]
    return points[keep]


def _draw_snake_word(maps: Tuple[np.ndarray, ...], poly: np.ndarray) -> None:
    """One word's centre quads into (centre mask, radius, sin, cos), later quads on top."""
    centre_mask, radius_map, sin_map, cos_map = maps
    top, bottom, centre = _centre_band(_distinct_vertices(poly), reorient=True)
    for i in range(len(centre) - 1):
        half_height = norm((top[i] + top[i + 1]) / 2 - (bottom[i] + bottom[i + 1]) / 2) / 2
        heading = centre[i + 1] - centre[i]
        length = norm(heading) + EPS
        sin_value, cos_value = heading[1] / length, heading[0] / length
        quad = [_band_quad(top, bottom, centre, i)]
        cv2.fillPoly(centre_mask, quad, color=1)
        cv2.fillPoly(sin_map, quad, color=sin_value)
        cv2.fillPoly(cos_map, quad, color=cos_value)
        cv2.fillPoly(radius_map, quad, color=half_height)


def textsnake_targets(polys: Sequence[np.ndarray], ignored: np.ndarray, hw: HW) -> Arrays:
    """TextSnakeModuleLoss._get_target_single: three uint8 masks and three float32 maps, (H, W)."""
    words = [p for p, skip in zip(polys, ignored) if not skip]
    out = {
        "gt_text_mask": _region_mask(hw, words),
        "gt_mask": _effective_mask(hw, [p for p, skip in zip(polys, ignored) if skip]),
    }
    maps = (
        np.zeros(hw, np.uint8),
        np.zeros(hw, dtype=np.float32),
        np.zeros(hw, dtype=np.float32),
        np.zeros(hw, dtype=np.float32),
    )
    for poly in words:
        _draw_snake_word(maps, poly)
    out.update(zip(("gt_center_region_mask", "gt_radius_map", "gt_sin_map", "gt_cos_map"), maps))
    return out


# --- FCENet -------------------------------------------------------------------------------------


def _resample_outline(outline: np.ndarray) -> np.ndarray:
    """FCEModuleLoss._resample_polygon: about OUTLINE_POINTS points, each edge getting its share by
    length (truncated), spaced evenly from its first vertex."""
    count = len(outline)
    lengths = []
    for i in range(count):
        a, b = outline[i], outline[(i + 1) % count]
        lengths.append(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5)
    shares = ((np.array(lengths) / (sum(lengths) + 1e-8)) * OUTLINE_POINTS).astype(np.int32)
    points = []
    for i in range(count):
        num = shares[i]
        if num == 0:
            continue
        a, b = outline[i], outline[(i + 1) % count]
        step = (b - a) / num
        points.extend(a + step * j for j in range(num))
    return np.array(points)


def _start_rightmost(outline: np.ndarray) -> np.ndarray:
    """FCEModuleLoss._normalize_polygon: rotate the outline to start at the highest of the 8 points
    nearest the vertical through its mean (numpy's argsort decides ties)."""
    off = outline - outline.mean(axis=0)
    nearest = np.argsort(np.abs(off[:, 0]))
    start = nearest[np.argmin(off[:, 1][nearest[:8]])]
    return np.concatenate([outline[start:], outline[:start]])


def _clockwise(coeff: np.ndarray) -> np.ndarray:
    """Reverse the coefficients unless c1 outweighs c-1 (on a tie: unless c2 outweighs c-2)."""
    k = FOURIER_DEGREE
    plus, minus = np.abs(coeff[k + 1]), np.abs(coeff[k - 1])
    if plus > minus:
        return coeff
    if plus < minus:
        return coeff[::-1]
    return coeff if np.abs(coeff[k + 2]) > np.abs(coeff[k - 2]) else coeff[::-1]


def _fourier_signature(outline: np.ndarray) -> np.ndarray:
    """(2K+1, 2) float64: Re and Im of c_-K..c_K of the word's resampled, restarted outline."""
    points = _start_rightmost(_resample_outline(outline))
    spectrum = fft(points[:, 0] + points[:, 1] * 1j) / len(points)
    k = FOURIER_DEGREE
    coeff = _clockwise(np.hstack((spectrum[-k:], spectrum[: k + 1])))
    return np.hstack([np.real(coeff).reshape((-1, 1)), np.imag(coeff).reshape((-1, 1))])


def _fourier_maps(hw: HW, polys: Sequence[np.ndarray]) -> Tuple[np.ndarray, np.ndarray]:
    """FCEModuleLoss._generate_fourier_maps: (2K+1, h, w) float32 Re and Im maps; each word
    overwrites its fill, the k = 0 channels holding c0 minus the pixel's (x, y)."""
    k = FOURIER_DEGREE
    real = np.zeros((k * 2 + 1,) + hw, dtype=np.float32)
    imag = np.zeros((k * 2 + 1,) + hw, dtype=np.float32)
    for poly in polys:
        fill = np.zeros(hw, dtype=np.uint8)
        outline = np.array(poly).reshape((1, -1, 2))
        cv2.fillPoly(fill, outline.astype(np.int32), 1)
        sig = _fourier_signature(outline[0])
        for c in range(k * 2 + 1):
            if c == k:
                continue
            # The reference's blend: the word's value on its fill, the map's own value elsewhere.
            real[c] = fill * sig[c, 0] + (1 - fill) * real[c]
            imag[c] = fill * sig[c, 1] + (1 - fill) * imag[c]
        yx = np.argwhere(fill > 0.5)
        channel = np.ones((len(yx)), dtype=np.int64) * k
        ys, xs = yx[:, 0], yx[:, 1]
        real[channel, ys, xs] = sig[k, 0] - xs
        imag[channel, ys, xs] = sig[k, 1] - ys
    return real, imag


def _level_centre_mask(hw: HW, polys: Sequence[np.ndarray]) -> np.ndarray:
    """FCEModuleLoss._generate_center_region_mask: every centre quad of the level in one even-odd
    fill."""
    quads = []
    for poly in polys:
        top, bottom, centre = _centre_band(poly.reshape(-1, 2), reorient=False)
        quads.extend(_band_quad(top, bottom, centre, i) for i in range(len(centre) - 1))
    mask = np.zeros(hw, np.uint8)
    cv2.fillPoly(mask, quads, 1)
    return mask


def _split_levels(polys: Sequence[np.ndarray], ignored: np.ndarray, h: int) -> Tuple[List[list], List[list]]:
    """Per level, the words and the ignored words whose truncated box fits its size range, in
    level units (float64)."""
    words: List[list] = [[] for _ in LEVEL_DIVISORS]
    dropped: List[list] = [[] for _ in LEVEL_DIVISORS]
    for index, poly in enumerate(polys):
        vertices = np.array(poly, dtype=np.int_).reshape((1, -1, 2))
        _, _, box_w, box_h = cv2.boundingRect(vertices)
        share = max(box_h, box_w) / (h + 1e-8)
        for level, (lo, hi) in enumerate(LEVEL_RANGES):
            if lo < share < hi:
                (dropped if ignored[index] else words)[level].append(vertices[0] / LEVEL_DIVISORS[level])
    return words, dropped


def fce_targets(polys: Sequence[np.ndarray], ignored: np.ndarray, hw: HW) -> Arrays:
    """FCEModuleLoss._get_target_single: p3_map, p4_map, p5_map, each (1, 25, H // d, W // d)
    float32 (text region, centre region, effective mask, 11 Re, 11 Im)."""
    h, w = hw
    words, dropped = _split_levels(polys, ignored, h)
    out = {}
    for level, divisor in enumerate(LEVEL_DIVISORS):
        size = (h // divisor, w // divisor)
        real, imag = _fourier_maps(size, words[level])
        planes = [
            _region_mask(size, words[level])[None],
            _level_centre_mask(size, words[level])[None],
            _effective_mask(size, dropped[level])[None],
            real,
            imag,
        ]
        out[f"p{level + 3}_map"] = np.concatenate(planes).astype(np.float32, copy=False)[None]
    return out


# --- entry point --------------------------------------------------------------------------------


def mmocr_targets(family: str, polys: Sequence[np.ndarray], ignored: Optional[np.ndarray], hw: HW) -> Arrays:
    """The targets of `family` ('pse', 'pan', 'fce', 'textsnake') for one image of (h, w) = `hw`:
    `polys` holds each word's (n, 2) float32 vertices (x, y in px), `ignored` a flag per word."""
    hw = (int(hw[0]), int(hw[1]))
    flags = np.zeros(len(polys), bool) if ignored is None else np.asarray(ignored, bool)
    if family == "pse":
        return kernel_targets(polys, flags, hw, PSE_RATIOS)
    if family == "pan":
        return kernel_targets(polys, flags, hw, PAN_RATIOS)
    if family == "fce":
        return fce_targets(polys, flags, hw)
    if family == "textsnake":
        return textsnake_targets(polys, flags, hw)
    raise ValueError(f"unknown family {family!r}: one of {', '.join(FAMILIES)}")
