"""textfeed.reference.mmocr_targets checks its arguments and names the one that is wrong; the
builders' own checks (point counts, coordinates, the canvas) come through as textfeed errors."""
from typing import Any

import numpy as np
import pytest

from textfeed import errors, reference

SQUARE = np.array([[10, 10], [40, 10], [40, 40], [10, 40]], np.float32)
FAMILIES = ("pse", "pan", "fce", "textsnake", "db_mmocr")


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_takes_lists_tuples_and_arrays_alike(family: str) -> None:
    a = reference.mmocr_targets(family, [SQUARE], [False], (64, 64))
    b = reference.mmocr_targets(family, (SQUARE.astype(np.float64).tolist(),), np.zeros(1, bool), (64, 64, 3))
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


@pytest.mark.parametrize("family,error,said", [
    ("psenet", errors.InvalidArgumentError, "family must be one of"),
    (3, errors.ArgumentTypeError, "family must be one of"),
])
def test_an_unknown_family_is_named(family: Any, error: type, said: str) -> None:
    with pytest.raises(error, match=said):
        reference.mmocr_targets(family, [SQUARE], [False], (64, 64))


@pytest.mark.parametrize("polys,error,said", [
    ("polygons", errors.ArgumentTypeError, "list of"),
    ([SQUARE.reshape(-1)], errors.InvalidArgumentError, r"polys\[0\] must have shape \(n, 2\)"),
    ([[["a", "b"]] * 4], errors.ArgumentTypeError, r"polys\[0\] must be an array of numbers"),
])
def test_bad_polygons_are_named(polys: Any, error: type, said: str) -> None:
    with pytest.raises(error, match=said):
        reference.mmocr_targets("pse", polys, [False], (64, 64))


@pytest.mark.parametrize("ignored,error,said", [
    ("no", errors.ArgumentTypeError, "ignored must be a sequence"),
    ([False, True], errors.InvalidArgumentError, "2 flags for 1 polygons"),
    ([2], errors.InvalidArgumentError, "bools"),
])
def test_bad_flags_are_named(ignored: Any, error: type, said: str) -> None:
    with pytest.raises(error, match=said):
        reference.mmocr_targets("pan", [SQUARE], ignored, (64, 64))


@pytest.mark.parametrize("shape,error", [
    ("64x64", errors.ArgumentTypeError),
    ((64,), errors.ArgumentTypeError),
    ((64.5, 64), errors.ArgumentTypeError),
    ((0, 64), errors.InvalidArgumentError),
    ((64, 2**40), errors.InvalidArgumentError),
])
def test_a_bad_canvas_is_refused(shape: Any, error: type) -> None:
    with pytest.raises(error):
        reference.mmocr_targets("textsnake", [SQUARE], [False], shape)


def test_no_polygons_give_empty_targets_of_the_canvas_shape() -> None:
    out = reference.mmocr_targets("pse", [], [], (32, 48))
    assert out["gt_kernels"].shape == (7, 32, 48) and not out["gt_kernels"].any()
    assert (out["gt_mask"] == 1).all()
