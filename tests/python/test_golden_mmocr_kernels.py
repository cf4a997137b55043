"""mmocr's segmentation-kernel targets (PSENet, PANet, mmocr's DBNet) against the reference's outputs.

The full set is ../shared/golden-mmocr (its README gives every field and the tolerances); where it
is absent, the subset in tests/golden/mmocr/kernels (named cases covering the quirks: a quad, a
curved polygon, ignored words, a bowtie, split kernels, boxes outside the canvas, the case where
the reference raises) is checked instead. Tolerances (docs/targets.md §9.1): every kernel and mask
exactly equal, mmocr DB's threshold map within 1e-6.
"""

from typing import Any, Dict

import numpy as np
import pytest

import golden_mmocr
from golden_mmocr import Arrays
from textfeed import errors, reference

GROUP = "kernels"
FAMILIES = ("pse", "pan", "db_mmocr")
KERNEL_COUNT = {"pse": 7, "pan": 2}
THR_ATOL = 1e-6


def _check_kernels(family: str, out: Arrays, ref: Arrays) -> None:
    h, w = (int(v) for v in ref["img_shape"])
    assert set(out) == {"gt_kernels", "gt_mask"}
    assert out["gt_kernels"].dtype == np.float32 and out["gt_kernels"].shape == (KERNEL_COUNT[family], h, w)
    assert out["gt_mask"].dtype == np.float32 and out["gt_mask"].shape == (h, w)
    np.testing.assert_array_equal(out["gt_kernels"], ref["gt_kernels"])
    np.testing.assert_array_equal(out["gt_mask"], ref["gt_mask"])


def _check_db(out: Arrays, ref: Arrays) -> None:
    h, w = (int(v) for v in ref["img_shape"])
    planes = ("gt_shrink", "gt_shrink_mask", "gt_thr", "gt_thr_mask")
    assert set(out) == set(planes) | {"ignored_out"}
    for name in planes:
        assert out[name].dtype == np.float32 and out[name].shape == (1, h, w), name
    for name in ("gt_shrink", "gt_shrink_mask", "gt_thr_mask", "ignored_out"):
        np.testing.assert_array_equal(out[name], ref[name], err_msg=name)
    assert out["ignored_out"].dtype == np.bool_
    np.testing.assert_allclose(out["gt_thr"], ref["gt_thr"], rtol=0, atol=THR_ATOL)


def test_the_repository_subset_is_listed_and_present() -> None:
    golden_mmocr.check_subset(GROUP, FAMILIES)


@pytest.mark.parametrize("family,case", golden_mmocr.cases(GROUP, FAMILIES))
def test_targets_match_the_reference(family: str, case: Dict[str, Any]) -> None:
    # Where the reference raises (outside_right_box_at_W: numpy's empty slice cannot broadcast),
    # textfeed refuses the input with a message naming the polygon.
    ref = golden_mmocr.load(GROUP, case)
    out = golden_mmocr.run_or_refuse(family, ref, "polygon")
    if out is None:
        return
    if family == "db_mmocr":
        _check_db(out, ref)
    else:
        _check_kernels(family, out, ref)


def _square(x: float, y: float, side: float) -> np.ndarray:
    return golden_mmocr.box(x, y, side, side)


@pytest.mark.parametrize("family", FAMILIES)
def test_no_words_give_blank_targets(family: str) -> None:
    out = reference.mmocr_targets(family, [], np.zeros(0, bool), (32, 48))
    if family == "db_mmocr":
        assert out["gt_shrink"].shape == (1, 32, 48) and not out["gt_shrink"].any()
        assert (out["gt_shrink_mask"] == 1).all() and not out["gt_thr_mask"].any()
        np.testing.assert_array_equal(out["gt_thr"], np.float32(0.3))
        assert out["ignored_out"].shape == (0,)
    else:
        assert out["gt_kernels"].shape == (KERNEL_COUNT[family], 32, 48) and not out["gt_kernels"].any()
        assert (out["gt_mask"] == 1).all()


@pytest.mark.parametrize("family", FAMILIES)
def test_a_two_point_polygon_is_refused_by_name(family: str) -> None:
    polys = [_square(10, 10, 20), np.array([[1, 1], [5, 5]], np.float32)]
    with pytest.raises(errors.InvalidArgumentError, match="polygon 1 has 2 points"):
        reference.mmocr_targets(family, polys, np.zeros(2, bool), (64, 64))


@pytest.mark.parametrize("family", FAMILIES)
def test_a_nan_coordinate_is_refused_by_name(family: str) -> None:
    bad = _square(10, 10, 20)
    bad[2, 0] = np.nan
    with pytest.raises(errors.InvalidArgumentError, match="polygon 0: coordinate"):
        reference.mmocr_targets(family, [bad], np.zeros(1, bool), (64, 64))


@pytest.mark.parametrize("family", FAMILIES)
def test_flags_that_do_not_match_the_polygons_are_refused(family: str) -> None:
    with pytest.raises(errors.InvalidArgumentError):
        reference.mmocr_targets(family, [_square(10, 10, 20)], np.zeros(2, bool), (64, 64))


@pytest.mark.parametrize("family", FAMILIES)
def test_an_empty_canvas_is_refused(family: str) -> None:
    with pytest.raises(errors.InvalidArgumentError, match="img_hw|canvas"):
        reference.mmocr_targets(family, [_square(10, 10, 20)], np.zeros(1, bool), (0, 64))


def test_pan_kernels_are_the_instance_ids() -> None:
    polys = [_square(10, 10, 40), _square(100, 10, 40)]
    out = reference.mmocr_targets("pan", polys, np.zeros(2, bool), (80, 160))
    for k in range(2):
        assert set(np.unique(out["gt_kernels"][k]).tolist()) == {0.0, 1.0, 2.0}
    # The shrunk kernel lies inside the text region of the same instance.
    inner = out["gt_kernels"][1] > 0
    np.testing.assert_array_equal(out["gt_kernels"][1][inner], out["gt_kernels"][0][inner])
