"""The per-sample functions of textfeed._core with their arguments checked first.

east_targets, db_targets, shrink_poly and find_min_rect_angle check every argument here and name the one that
is wrong (ArgumentTypeError for a type, InvalidArgumentError for a value: non-finite coordinates,
bad shapes). The geometry functions keep the checks of their bindings; a call with arguments of the
wrong types raises ArgumentTypeError (a TypeError, as before) instead of a bare TypeError.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, Optional

import numpy as np

from . import _args, _core, errors

_INT32 = (-(2**31), 2**31 - 1)


def _finite_array(name: str, value: Any, dtype: type, shape_text: str) -> np.ndarray:
    """``value`` as a C-contiguous array of ``dtype``; numbers only, all finite."""
    if value is None or isinstance(value, (str, bytes)) or np.ndim(value) == 0:
        raise errors.ArgumentTypeError(f"{name} must be an array of numbers {shape_text}, got {type(value).__name__}")
    try:
        array: np.ndarray = np.ascontiguousarray(value, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise errors.ArgumentTypeError(f"{name} must be an array of numbers {shape_text}: {e}") from None
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise errors.InvalidArgumentError(f"{name} holds a NaN or infinite value")
    return array


def _optional_text(name: str, value: Any) -> Optional[str]:
    return None if value is None else _args.text(name, value, 64)


def east_targets(vertices: Any, labels: Any, crop_size: int, map_scale: float, profile: str = "upstage", *,
                 fill_rule: Optional[str] = None, overlap: Optional[str] = None,
                 ignored_targets: Optional[str] = None, roi_resize: Optional[str] = None,
                 fix_orientation: Optional[bool] = None, clamp_geo: Optional[float] = None,
                 angle_error: Optional[str] = None) -> dict:
    vertices = _finite_array("vertices", vertices, np.float64, "of shape (n, 8)")
    labels = _finite_array("labels", labels, np.int64, "of shape (n,)")
    return _core.east_targets(
        vertices, labels, _args.integer("crop_size", crop_size, *_INT32),
        _args.real("map_scale", map_scale, 0, 1, lo_open=True), _args.choice("profile", profile, ("upstage", "sakura", "bc7")),
        fill_rule=_optional_text("fill_rule", fill_rule), overlap=_optional_text("overlap", overlap),
        ignored_targets=_optional_text("ignored_targets", ignored_targets),
        roi_resize=_optional_text("roi_resize", roi_resize),
        fix_orientation=None if fix_orientation is None else _args.boolean("fix_orientation", fix_orientation),
        clamp_geo=None if clamp_geo is None else _args.real("clamp_geo", clamp_geo, -math.inf, math.inf),
        angle_error=_optional_text("angle_error", angle_error))


east_targets.__doc__ = _core.east_targets.__doc__


def _db_polygons(polys: Any) -> tuple[np.ndarray, np.ndarray]:
    """(N, P, 2) array or sequence of (Pi, 2) arrays -> flat (T, 2) float64 points and (N,) ends."""
    if not isinstance(polys, (np.ndarray, list, tuple)):
        raise errors.ArgumentTypeError(f"polys must be an (N, P, 2) array or a list of (P, 2) arrays, got {type(polys).__name__}")
    if isinstance(polys, np.ndarray) and polys.size == 0:
        return np.zeros((0, 2)), np.zeros(0, np.uint32)
    items = list(polys) if not isinstance(polys, np.ndarray) or polys.ndim == 3 else None
    if items is None:
        raise errors.InvalidArgumentError(f"polys must be (N, P, 2), got shape {np.shape(polys)}")
    flat: list[np.ndarray] = []
    ends: list[int] = []
    for k, item in enumerate(items):
        try:
            poly = np.asarray(item)
            if poly.dtype.kind not in "iuf":
                raise TypeError(f"dtype {poly.dtype}")
            poly = np.ascontiguousarray(poly, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as e:
            raise errors.ArgumentTypeError(f"polys[{k}] must be an array of numbers: {e}") from None
        if poly.ndim != 2 or poly.shape[1] != 2:
            raise errors.InvalidArgumentError(f"polys[{k}] must be (P, 2), got shape {poly.shape}")
        flat.append(poly)
        ends.append((ends[-1] if ends else 0) + poly.shape[0])
    if not flat:
        return np.zeros((0, 2)), np.zeros(0, np.uint32)
    if ends[-1] >= 2**32:
        raise errors.InvalidArgumentError(f"polys hold {ends[-1]} points")
    return np.concatenate(flat), np.asarray(ends, dtype=np.uint32)


def db_targets(polys: Any, ignore_tags: Any, canvas_hw: Any, shrink_ratio: float = 0.4, min_text_size: float = 8,
               thresh_min: float = 0.3, thresh_max: float = 0.7, exact: bool = False) -> dict:
    """PaddleOCR's DB targets (MakeBorderMap, then MakeShrinkMap) of one canvas.

    polys: (N, P, 2) array (shorter polygons padded by repeating their last point, as
    DetLabelEncode does) or a list of (Pi, 2) arrays; ignore_tags: (N,) bool (True = ignored);
    canvas_hw: (H, W). Returns 'threshold_map', 'threshold_mask', 'shrink_map', 'shrink_mask'
    ((H, W) float32) and 'ignore_tags' ((N,) bool, as after MakeShrinkMap: tiny, zero-area and
    unshrinkable polygons are marked). The masks, the shrink map and the tags are the reference's
    bit for bit; the threshold map is within a few float32 ulps of it (its distances computed
    stably, in float32 where that suffices), or bit for bit with exact=True (slower, for checking).
    docs/targets.md, "DB targets", has every rule.
    """
    xy, ends = _db_polygons(polys)
    tags = np.asarray(ignore_tags)
    if tags.size == 0:
        tags = np.zeros(0, bool)
    if tags.dtype.kind not in "biu":
        raise errors.ArgumentTypeError(f"ignore_tags must be booleans, got dtype {tags.dtype}")
    if tags.ndim != 1 or tags.shape[0] != ends.shape[0]:
        raise errors.InvalidArgumentError(f"ignore_tags must be ({ends.shape[0]},), got shape {tags.shape}")
    hw = np.asarray(canvas_hw)
    if hw.shape != (2,) or hw.dtype.kind not in "iu":
        raise errors.ArgumentTypeError(f"canvas_hw must be two integers (H, W), got {canvas_hw!r}")
    return _core.db_targets_flat(
        xy, ends, tags.astype(bool), (_args.integer("canvas_hw[0]", int(hw[0]), 1, 16384),
                                      _args.integer("canvas_hw[1]", int(hw[1]), 1, 16384)),
        shrink_ratio=_args.real("shrink_ratio", shrink_ratio, 0, 1, lo_open=True),
        min_text_size=_args.real("min_text_size", min_text_size, 0, 16384),
        thresh_min=_args.real("thresh_min", thresh_min, 0, 1), thresh_max=_args.real("thresh_max", thresh_max, 0, 1),
        exact=_args.boolean("exact", exact))


def _quad(value: Any) -> np.ndarray:
    quad = _finite_array("quad", value, np.float64, "of 8 coordinates")
    if quad.size != 8:
        raise errors.InvalidArgumentError(f"quad must hold 8 coordinates (x1, y1, ..., x4, y4), got {quad.size}")
    return quad.reshape(8)


def shrink_poly(quad: Any) -> np.ndarray:
    return _core.shrink_poly(_quad(quad))


shrink_poly.__doc__ = _core.shrink_poly.__doc__


def find_min_rect_angle(quad: Any, metric: str = "sr") -> float:
    return _core.find_min_rect_angle(_quad(quad), _args.choice("metric", metric, ("sr", "up")))


find_min_rect_angle.__doc__ = _core.find_min_rect_angle.__doc__


def typed(function: Callable) -> Callable:
    """``function`` (a binding) raising ArgumentTypeError where the binding refuses the types."""

    @functools.wraps(function)
    def call(*args: Any, **kw: Any) -> Any:
        try:
            return function(*args, **kw)
        except TypeError as e:
            if isinstance(e, errors.TextfeedError) or "incompatible function arguments" not in str(e):
                raise
            raise errors.ArgumentTypeError(str(e)) from None

    return call
