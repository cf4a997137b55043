"""mmocr's centre-line targets (TextSnake, FCENet) against the reference's outputs.

The full set is ../shared/golden-mmocr (its README gives every field and the tolerances); where it
is absent, the subset in tests/golden/mmocr/curves (quads, a vertical word, curved words of odd and
even point counts, ignored words, a bowtie, repeated vertices, FCENet's level boundaries, start-point
ties and a degenerate outline, and the case where the reference raises) is checked instead.
Tolerances (docs/targets.md §9.2): every mask exactly equal; TextSnake's sin and cos within 1e-5
and its radius within 1e-4; FCENet's coefficient channels within 1e-4 + 1e-6 relative, except over
a word whose orientation the reference decided by rounding (|cw_margin| < 1e-6).
"""

from typing import Any, Dict

import numpy as np
import pytest
from numpy.typing import NDArray

import golden_mmocr
from golden_mmocr import Arrays, box
from textfeed import errors, reference

GROUP = "curves"
FAMILIES = ("textsnake", "fce")
TEXTSNAKE_MASKS = ("gt_text_mask", "gt_mask", "gt_center_region_mask")
TEXTSNAKE_ATOL = {"gt_sin_map": 1e-5, "gt_cos_map": 1e-5, "gt_radius_map": 1e-4}
FCE_STRIDES = (8, 16, 32)
FCE_CHANNELS = 25
FCE_COEFFS = 11
FCE_ATOL = 1e-4
FCE_RTOL = 1e-6
DEGENERATE_MARGIN = 1e-6
LEVEL_DEBUG = ("text_index", "ignore_index", "coeff", "resampled_n", "start_index", "start_tie", "cw_margin")


def _check_textsnake(out: Arrays, ref: Arrays) -> None:
    h, w = (int(v) for v in ref["img_shape"])
    assert set(out) == set(TEXTSNAKE_MASKS) | set(TEXTSNAKE_ATOL)
    for name in TEXTSNAKE_MASKS:
        assert out[name].dtype == np.uint8 and out[name].shape == (h, w), name
        np.testing.assert_array_equal(out[name], ref[name], err_msg=name)
    for name, atol in TEXTSNAKE_ATOL.items():
        assert out[name].dtype == np.float32 and out[name].shape == (h, w), name
        np.testing.assert_allclose(out[name], ref[name], rtol=0, atol=atol, err_msg=name)


def _degenerate_pixels(level_map: NDArray[Any], coeff: NDArray[Any]) -> NDArray[Any]:
    """Where the reference's map holds a degenerate word's coefficients (every k != 0 channel)."""
    hit = np.ones(level_map.shape[1:], bool)
    for j in range(FCE_COEFFS):
        if j == FCE_COEFFS // 2:
            continue
        hit &= level_map[3 + j] == np.float32(coeff[j, 0])
        hit &= level_map[3 + FCE_COEFFS + j] == np.float32(coeff[j, 1])
    return hit


def _check_fce_level(out: Arrays, ref: Arrays, level: int) -> None:
    h, w = (int(v) for v in ref["img_shape"])
    stride = FCE_STRIDES[level]
    name = f"p{level + 3}_map"
    mine, gold = out[name], ref[name]
    assert mine.dtype == np.float32 and mine.shape == (1, FCE_CHANNELS, h // stride, w // stride), name
    np.testing.assert_array_equal(mine[0, :3], gold[0, :3], err_msg=f"{name} masks")
    pre = f"lvl{level}_"
    for field in ("text_index", "ignore_index", "resampled_n", "start_index", "start_tie"):
        np.testing.assert_array_equal(out[pre + field], ref[pre + field], err_msg=pre + field)
    margin = ref[pre + "cw_margin"]
    np.testing.assert_allclose(out[pre + "cw_margin"], margin, rtol=0, atol=1e-9)
    compared = np.ones(mine.shape[2:], bool)
    for k in np.flatnonzero(np.abs(margin) < DEGENERATE_MARGIN):
        # The reference's own FFT rounding chose this word's orientation: left out (README).
        compared &= ~_degenerate_pixels(gold[0], ref[pre + "coeff"][k])
    sound = np.abs(margin) >= DEGENERATE_MARGIN
    np.testing.assert_allclose(out[pre + "coeff"][sound], ref[pre + "coeff"][sound], rtol=FCE_RTOL, atol=FCE_ATOL)
    np.testing.assert_allclose(
        mine[0, 3:][:, compared], gold[0, 3:][:, compared], rtol=FCE_RTOL, atol=FCE_ATOL, err_msg=f"{name} Fourier"
    )


def test_the_repository_subset_is_listed_and_present() -> None:
    golden_mmocr.check_subset(GROUP, FAMILIES)


@pytest.mark.parametrize("family,case", golden_mmocr.cases(GROUP, FAMILIES))
def test_targets_match_the_reference(family: str, case: Dict[str, Any]) -> None:
    # Where the reference raises (zero_area_repeated: two distinct vertices left, where its
    # _reorder_poly_edge asserts 4), textfeed refuses the input naming the polygon.
    ref = golden_mmocr.load(GROUP, case)
    out = golden_mmocr.run_or_refuse(family, ref, "polygon 0")
    if out is None:
        return
    if family == "textsnake":
        _check_textsnake(out, ref)
        return
    assert {f"p{level + 3}_map" for level in range(3)} <= set(out)
    for level in range(3):
        assert {f"lvl{level}_{f}" for f in LEVEL_DEBUG} <= set(out)
        _check_fce_level(out, ref, level)


def test_textsnake_without_words_gives_blank_targets() -> None:
    out = reference.mmocr_targets("textsnake", [], np.zeros(0, bool), (40, 56))
    for name in ("gt_text_mask", "gt_center_region_mask", *TEXTSNAKE_ATOL):
        assert out[name].shape == (40, 56) and not out[name].any(), name
    assert (out["gt_mask"] == 1).all()


def test_textsnake_draws_a_horizontal_centre_line() -> None:
    out = reference.mmocr_targets("textsnake", [box(20, 30, 120, 40)], np.zeros(1, bool), (100, 200))
    rows, cols = np.nonzero(out["gt_center_region_mask"])
    # 0.3 of the half height around y = 50, the ends shrunk by (40 / 4) // 4 = 2 steps of 4 px.
    assert rows.min() == 44 and rows.max() == 56
    assert 20 < cols.min() <= 30 and 130 <= cols.max() < 140
    on = out["gt_center_region_mask"] == 1
    np.testing.assert_array_equal(out["gt_cos_map"][on], np.float32(1.0))
    np.testing.assert_array_equal(out["gt_sin_map"][on], np.float32(0.0))
    np.testing.assert_allclose(out["gt_radius_map"][on], 20.0, atol=1e-4)


def test_textsnake_refuses_a_word_of_three_distinct_vertices_by_name() -> None:
    tri = np.array([[10, 10], [50, 10], [50, 10], [30, 40]], np.float32)
    with pytest.raises(errors.InvalidArgumentError, match="polygon 1"):
        reference.mmocr_targets("textsnake", [box(5, 5, 20, 10), tri], np.zeros(2, bool), (64, 64))
    # Ignored, it has no centre line and is only masked out.
    out = reference.mmocr_targets("textsnake", [tri], np.ones(1, bool), (64, 64))
    assert out["gt_mask"][20, 30] == 0 and not out["gt_text_mask"].any()


def test_fce_sends_each_word_to_the_levels_of_its_size() -> None:
    small, middle, large = box(10, 10, 100, 30), box(10, 200, 320, 40), box(-20, 300, 700, 60)
    out = reference.mmocr_targets("fce", [small, middle, large], np.zeros(3, bool), (640, 640))
    # 101 / 640 is in level 0 only, 321 / 640 in level 1 only, 701 / 640 in none.
    assert list(out["lvl0_text_index"]) == [0] and list(out["lvl1_text_index"]) == [1]
    assert list(out["lvl2_text_index"]) == []
    assert out["p3_map"].shape == (1, 25, 80, 80) and out["p5_map"].shape == (1, 25, 20, 20)
    assert not out["p5_map"][0, 0].any() and (out["p5_map"][0, 2] == 1).all()


def test_fce_refuses_a_canvas_with_an_empty_level() -> None:
    with pytest.raises(errors.InvalidArgumentError, match="under 32 px"):
        reference.mmocr_targets("fce", [box(2, 2, 10, 10)], np.zeros(1, bool), (31, 640))
