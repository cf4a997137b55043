"""mmocr's training targets of the text-detection families, one sample at a time (textfeed.reference).

mmocr_targets(family, polys, ignored, img_shape) builds what mmocr 1.x's module loss builds in
``_get_target_single`` for one image (docs/targets.md "mmocr's targets"), with its arguments
checked here: ``polys`` a list of (n, 2) arrays (n >= 3, any point count), ``ignored`` one flag
per polygon, ``img_shape`` (H, W). The dict's keys, shapes and dtypes are those of the reference's
outputs (and of the golden files tests/golden/mmocr/ holds).

replay_mmocr_chain(chain, image_hw, polys, ignored, seed) replays the geometry of mmocr's training
chain ``chain`` (psenet, panet, fcenet, textsnake) seeded as the chain goldens are (docs/targets.md
"mmocr's training chains"): a dict of the golden files' fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable, Dict, Tuple

import numpy as np

from . import _args, _core, errors

# The families and the _core function that builds each one's targets.
_BUILDERS: Dict[str, Callable[..., Dict[str, np.ndarray]]] = {
    "pse": _core.mmocr_pse_targets,
    "pan": _core.mmocr_pan_targets,
    "fce": _core.mmocr_fce_targets,
    "textsnake": _core.mmocr_textsnake_targets,
    "db_mmocr": _core.mmocr_db_mmocr_targets,
}
FAMILIES: Tuple[str, ...] = tuple(_BUILDERS)
_INT32_MAX = 2**31 - 1


def _polygon(i: int, value: Any) -> np.ndarray:
    """Polygon ``i`` as a C-contiguous float32 (n, 2) array. Complex coordinates are refused, not
    cut to their real part."""
    try:
        given = np.asarray(value)
        complex_dtype = np.iscomplexobj(given)
        array = None if complex_dtype else np.ascontiguousarray(given, dtype=np.float32)
    except (TypeError, ValueError, OverflowError) as e:
        raise errors.ArgumentTypeError(f"polys[{i}] must be an array of numbers of shape (n, 2): {e}") from None
    if array is None:
        raise errors.ArgumentTypeError(f"polys[{i}] holds complex numbers ({given.dtype}): coordinates are real "
                                       "numbers")
    if array.ndim != 2 or array.shape[1] != 2:
        raise errors.InvalidArgumentError(f"polys[{i}] must have shape (n, 2), got {array.shape}")
    return array  # its point count and coordinates are the builder's to check, naming the polygon


def _polygons(polys: Any) -> Iterable[Any]:
    """``polys``: a sequence (list, tuple) of polygons or a (k, n, 2) array; a mapping (whose
    iteration gives its keys), a text, None or a lone number are not."""
    if isinstance(polys, np.ndarray):
        if polys.ndim != 3:
            raise errors.ArgumentTypeError(f"polys must be a list of (n, 2) arrays, got an array of shape "
                                           f"{polys.shape}")
        return polys
    if isinstance(polys, (str, bytes, Mapping)) or not isinstance(polys, Sequence):
        raise errors.ArgumentTypeError(f"polys must be a list of (n, 2) arrays, got {type(polys).__name__} "
                                       f"{polys!r:.80}")
    return polys


def _flags(ignored: Any, count: int) -> np.ndarray:
    if isinstance(ignored, (str, bytes)) or np.ndim(ignored) != 1:
        raise errors.ArgumentTypeError("ignored must be a sequence of bools, one per polygon")
    flags = np.asarray(ignored).reshape(-1)
    if flags.size != count:
        raise errors.InvalidArgumentError(f"ignored has {flags.size} flags for {count} polygons")
    if flags.size and flags.dtype != np.bool_:
        if not np.isin(flags, (0, 1)).all():
            raise errors.InvalidArgumentError("ignored must hold bools (or 0 and 1)")
    return np.ascontiguousarray(flags, dtype=np.bool_)


def _shape(img_shape: Any) -> Tuple[int, int]:
    if isinstance(img_shape, (str, bytes)) or np.ndim(img_shape) != 1 or len(img_shape) < 2:
        raise errors.ArgumentTypeError("img_shape must be (H, W) (or (H, W, C))")
    # Integers here; the canvas's bounds are the builder's to check.
    return (_args.integer("img_shape[0]", img_shape[0], -_INT32_MAX, _INT32_MAX),
            _args.integer("img_shape[1]", img_shape[1], -_INT32_MAX, _INT32_MAX))


def mmocr_targets(family: str, polys: Sequence[Any], ignored: Any, img_shape: Any) -> Dict[str, np.ndarray]:
    """mmocr 1.x's targets of ``family`` (``"pse"``, ``"pan"``, ``"fce"``, ``"textsnake"`` or
    ``"db_mmocr"``) for one image: a dict of the reference's output fields (e.g. ``gt_kernels`` and
    ``gt_mask`` for pse). Raises InvalidArgumentError where the reference raises (naming the polygon
    and the reason), and for inputs outside the builders' documented bounds."""
    build = _BUILDERS[_args.choice("family", family, FAMILIES)]
    arrays = [_polygon(i, p) for i, p in enumerate(_polygons(polys))]
    xy = np.concatenate(arrays) if arrays else np.zeros((0, 2), np.float32)
    npts = np.array([len(a) for a in arrays], dtype=np.int32)
    return build(xy, npts, _flags(ignored, len(arrays)), _shape(img_shape))


CHAINS: Tuple[str, ...] = ("psenet", "panet", "fcenet", "textsnake")


def replay_mmocr_chain(chain: str, image_hw: Any, polys: Sequence[Any], ignored: Any,
                       seed: int) -> Dict[str, Any]:
    """One replay of mmocr 1.x's training chain ``chain`` (``"psenet"``, ``"panet"``, ``"fcenet"``,
    ``"textsnake"``) on an image of ``image_hw`` (H, W) with polygons ``polys`` (a list of (n, 2)
    arrays, n >= 3) and one ``ignored`` flag each, its numpy, Python and imgaug streams seeded with
    ``seed`` once before the first transform. Returns the chain goldens' fields: ``dropped`` ('' or
    the step that dropped the sample), ``out_hw``, ``out_xy``/``out_len`` (the final polygons,
    ragged), ``out_f32``, ``out_zero``, ``out_src``, ``out_ignored``, ``out_labels``, ``kept``, the
    draws (``draw_step``, ``draw_name``, ``draw_rng``, ``draw_len``, ``draw_values``; torch's
    colour draws are not replayed) and the trace after every transform (``trace_*``)."""
    name = _args.choice("chain", chain, CHAINS)
    arrays = [_polygon(i, p) for i, p in enumerate(_polygons(polys))]
    xy = np.concatenate(arrays) if arrays else np.zeros((0, 2), np.float32)
    npts = np.array([len(a) for a in arrays], dtype=np.int32)
    h, w = _shape(image_hw)
    seed_value = _args.integer("seed", seed, 0, 2**32 - 1)
    return _core.replay_mmocr_chain(name, (h, w), xy, npts, _flags(ignored, len(arrays)), seed_value)
