"""The DB (PaddleOCR) geometric chain of textfeed._core with its arguments checked first.

Polygons may have any number of points: an (N, P, 2) array (padded as PaddleOCR pads, or not), or
a sequence of N arrays of shape (P_i, 2). Every argument is checked and the wrong one named
(ArgumentTypeError for a type, InvalidArgumentError for a value).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _args, _core, errors


def _points(name: str, value: Any) -> np.ndarray:
    if value is None or isinstance(value, (str, bytes)) or np.ndim(value) == 0:
        raise errors.ArgumentTypeError(f"{name} must be an array of (x, y) points, got {type(value).__name__}")
    try:
        array = np.ascontiguousarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as e:
        raise errors.ArgumentTypeError(f"{name} must be an array of (x, y) points: {e}") from None
    if array.ndim != 2 or array.shape[1] != 2 or array.shape[0] < 1:
        raise errors.InvalidArgumentError(f"{name} must have shape (P, 2) with P >= 1, got {array.shape}")
    if not np.isfinite(array).all():
        raise errors.InvalidArgumentError(f"{name} holds a NaN or infinite coordinate")
    return array


def flat_polygons(value: Any) -> tuple[np.ndarray, np.ndarray]:
    """``value`` (polygons) as flat float64 xy and int32 ends (polygon i = points ends[i-1]..ends[i])."""
    if isinstance(value, np.ndarray) and value.dtype != object:
        if value.size == 0:
            return np.zeros(0, np.float64), np.zeros(0, np.int32)
        if value.ndim != 3:
            raise errors.InvalidArgumentError(f"polys must have shape (N, P, 2), got {value.shape}")
        polys = [value[i] for i in range(value.shape[0])]
    elif isinstance(value, (list, tuple)):
        polys = list(value)
    else:
        raise errors.ArgumentTypeError(f"polys must be an (N, P, 2) array or a sequence of (P, 2) arrays, "
                                       f"got {type(value).__name__}")
    points = [_points(f"polys[{i}]", p) for i, p in enumerate(polys)]
    if not points:
        return np.zeros(0, np.float64), np.zeros(0, np.int32)
    ends = np.cumsum([len(p) for p in points]).astype(np.int32)
    return np.concatenate(points).reshape(-1), ends


def _tags(value: Any, n: int) -> np.ndarray:
    try:
        tags = np.asarray(value)
    except (TypeError, ValueError) as e:
        raise errors.ArgumentTypeError(f"ignore_tags must be an array of booleans: {e}") from None
    if tags.size == 0 and tags.ndim == 1:
        tags = tags.astype(bool)
    if tags.dtype.kind not in "bui" or tags.ndim != 1:
        raise errors.ArgumentTypeError(f"ignore_tags must be a 1-D array of booleans, got {tags.dtype} {tags.shape}")
    if tags.shape[0] != n:
        raise errors.InvalidArgumentError(f"ignore_tags has {tags.shape[0]} entries for {n} polygons")
    return np.ascontiguousarray(tags != 0, dtype=np.uint8)


def _unflatten(xy: np.ndarray, ends: np.ndarray) -> list:
    points = xy.reshape(-1, 2)
    starts = np.concatenate([[0], ends[:-1]]) if len(ends) else ends
    return [points[b:e].copy() for b, e in zip(starts, ends)]


def _image_hw(value: Any) -> tuple[int, int]:
    try:
        items = list(value)
    except TypeError:
        raise errors.ArgumentTypeError(f"image_hw must be (height, width), got {type(value).__name__}") from None
    if len(items) < 2:
        raise errors.InvalidArgumentError(f"image_hw must be (height, width), got {len(items)} values")
    return _args.integer("image_hw[0]", items[0], 1, 1 << 20), _args.integer("image_hw[1]", items[1], 1, 1 << 20)


def replay_db_crop(image_hw: Any, polys: Any, ignore_tags: Any, seed: int, size: int = 640, max_tries: int = 50,
                   min_crop_side_ratio: float = 0.1, *, image: Optional[Any] = None) -> dict:
    """PaddleOCR's EastRandomCropData(size=(size, size), max_tries, keep_ratio=True, min_crop_side_ratio)
    after ``np.random.seed(seed)``, replayed bit for bit.

    Returns a dict: ``crop_xywh`` (crop_area's box; the whole image when no try succeeded),
    ``scale`` (min(size / w, size / h)), ``polys`` (the kept polygons in canvas px, a list of
    (P_i, 2) float64 arrays), ``ignore_tags`` (their tags), ``kept`` (per input polygon),
    ``fallback`` and ``tries``; with ``image`` ((H, W, 3) uint8, any channel order) also ``image``,
    the (size, size, 3) canvas the reference makes (the crop resized into its top-left).
    """
    h, w = _image_hw(image_hw)
    xy, ends = flat_polygons(polys)
    tags = _tags(ignore_tags, len(ends))
    pixels = _image(image, h, w)
    out = _core.replay_db_crop(
        h, w, xy, ends, tags, _args.integer("seed", seed, 0, 2**32 - 1), _args.integer("size", size, 1, 16384),
        _args.integer("max_tries", max_tries, 0, 100000),
        _args.real("min_crop_side_ratio", min_crop_side_ratio, 0, 1, lo_open=True),
        pixels)
    result = {
        "crop_xywh": out["crop_xywh"],
        "scale": out["scale"],
        "polys": _unflatten(out["xy"], out["ends"]),
        "ignore_tags": out["ignore_tags"],
        "kept": out["kept"],
        "fallback": out["fallback"],
        "tries": out["tries"],
    }
    if image is not None:
        result["image"] = out["image"]
    return result


def _image(value: Any, h: int, w: int) -> Optional[np.ndarray]:
    if value is None:
        return None
    if not isinstance(value, np.ndarray) or value.dtype != np.uint8:
        raise errors.ArgumentTypeError(f"image must be a uint8 numpy array, got {type(value).__name__}")
    if value.shape != (h, w, 3):
        raise errors.InvalidArgumentError(f"image must have shape ({h}, {w}, 3), got {value.shape}")
    return np.ascontiguousarray(value)


def db_sample_params(image_w: int, image_h: int, polys: Any, ignore_tags: Any, seed: int, epoch: int, index: int,
                     size: int = 640, *, image: Optional[Any] = None) -> dict:
    """The DB geometry plan of sample ``index`` in ``epoch`` as the pipeline draws it from
    Rng(seed, epoch, index) (a copy c of a sample uses index | c << 32): ``flip``, ``angle_deg``,
    ``resize``, ``resized_wh``, ``rotate_image``, the crop (as replay_db_crop returns it, in the
    resized frame; ``polys`` in canvas px) and ``matrix``, the (2, 3) map of source pixel indices to
    canvas pixel indices. With ``image`` ((image_h, image_w, 3) uint8) also ``image``, the canvas
    made from it by one warp (docs/targets.md §8.4)."""
    xy, ends = flat_polygons(polys)
    tags = _tags(ignore_tags, len(ends))
    image_w = _args.integer("image_w", image_w, 1, 65536)
    image_h = _args.integer("image_h", image_h, 1, 65536)
    pixels = _image(image, image_h, image_w)
    out = _core.db_sample_params(
        image_w, image_h, xy, ends, tags, _args.integer("seed", seed, 0, 2**64 - 1),
        _args.integer("epoch", epoch, 0, 2**64 - 1), _args.integer("index", index, 0, 2**64 - 1),
        _args.integer("size", size, 1, 16384), pixels)
    out["polys"] = _unflatten(out.pop("xy"), out.pop("ends"))
    return out


def db_map_keypoints(points: Any, image_w: int, image_h: int, *, flip: bool, angle_deg: float,
                     resize: float) -> tuple[np.ndarray, tuple[int, int]]:
    """imgaug 0.4.0's keypoint mapping of Fliplr, Affine(rotate=angle_deg) and Resize(resize) with
    known parameters, on (P, 2) points of an image_w x image_h image: (mapped points, (new_w, new_h))."""
    xy = _points("points", points)
    out, wh = _core.db_map_keypoints(
        xy.reshape(-1), _args.integer("image_w", image_w, 1, 1 << 20), _args.integer("image_h", image_h, 1, 1 << 20),
        _args.boolean("flip", flip), _args.real("angle_deg", angle_deg, -360, 360),
        _args.real("resize", resize, 0, 16, lo_open=True))
    return out.reshape(-1, 2), wh
