"""bench/mmocr_reference, the plain-Python mmocr targets that bench/mmocr_targets.py times textfeed
against, gives the golden outputs (PSENet, PANet, TextSnake, FCENet) within the tolerances of
test_golden_mmocr_kernels.py and test_golden_mmocr_curves.py, and raises where the reference raised.

Every case of the repository's subset is checked. Against the full set (../shared/golden-mmocr) the
cases the subset names are checked together with every third other case, which keeps the test
within a few seconds (the full set takes about 14 s on one core).
"""

import sys
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

import golden_mmocr
import test_golden_mmocr_curves as curves
from golden_mmocr import Arrays

sys.path.insert(0, str(golden_mmocr.ROOT))
from bench.mmocr_reference import mmocr_targets  # noqa: E402

GROUPS = {"pse": "kernels", "pan": "kernels", "textsnake": "curves", "fce": "curves"}
FULL_SET_STRIDE = 3  # of the cases the subset does not name


def _chosen(family: str) -> List[Any]:
    group = GROUPS[family]
    entries = golden_mmocr.index(golden_mmocr.folder(group))[family]
    if golden_mmocr.folder(group) != golden_mmocr.subset(group):
        named = {e["file"] for e in golden_mmocr.index(golden_mmocr.subset(group))[family]}
        entries = [e for i, e in enumerate(entries) if e["file"] in named or i % FULL_SET_STRIDE == 0]
    return [pytest.param(family, e, id=f"{Path(e['file']).stem}-{e['case']}") for e in entries]


def _check_kernels(out: Arrays, ref: Arrays) -> None:
    assert set(out) == {"gt_kernels", "gt_mask"}
    for name in out:
        assert out[name].dtype == np.float32, name
        np.testing.assert_array_equal(out[name], ref[name], err_msg=name)


def _check_fce(out: Arrays, ref: Arrays) -> None:
    assert set(out) == {"p3_map", "p4_map", "p5_map"}
    for level in range(3):
        name = f"p{level + 3}_map"
        mine, gold = out[name], ref[name]
        assert mine.dtype == np.float32 and mine.shape == gold.shape, name
        np.testing.assert_array_equal(mine[0, :3], gold[0, :3], err_msg=f"{name} masks")
        # Words whose orientation the reference's own FFT rounding chose are left out, as in
        # test_golden_mmocr_curves.py.
        compared = np.ones(mine.shape[2:], bool)
        margin = ref[f"lvl{level}_cw_margin"]
        for k in np.flatnonzero(np.abs(margin) < curves.DEGENERATE_MARGIN):
            compared &= ~curves._degenerate_pixels(gold[0], ref[f"lvl{level}_coeff"][k])
        np.testing.assert_allclose(mine[0, 3:][:, compared], gold[0, 3:][:, compared], rtol=curves.FCE_RTOL,
                                   atol=curves.FCE_ATOL, err_msg=f"{name} Fourier")


def _check_textsnake(out: Arrays, ref: Arrays) -> None:
    assert set(out) == set(curves.TEXTSNAKE_MASKS) | set(curves.TEXTSNAKE_ATOL)
    for name in curves.TEXTSNAKE_MASKS:
        assert out[name].dtype == np.uint8, name
        np.testing.assert_array_equal(out[name], ref[name], err_msg=name)
    for name, atol in curves.TEXTSNAKE_ATOL.items():
        assert out[name].dtype == np.float32, name
        np.testing.assert_allclose(out[name], ref[name], rtol=0, atol=atol, err_msg=name)


CHECKS = {"pse": _check_kernels, "pan": _check_kernels, "fce": _check_fce, "textsnake": _check_textsnake}


@pytest.mark.parametrize("family,case", [p for fam in GROUPS for p in _chosen(fam)])
def test_the_transcription_gives_the_golden_targets(family: str, case: Dict[str, Any]) -> None:
    ref = golden_mmocr.load(GROUPS[family], case)
    polys, ignored, hw = golden_mmocr.inputs(ref)
    if "error" in ref:
        # Only TextSnake's zero_area_repeated: its edge search asserts four distinct vertices.
        assert ref["error"] == "AssertionError"
        with pytest.raises(AssertionError):
            mmocr_targets(family, polys, ignored, hw)
        return
    CHECKS[family](mmocr_targets(family, polys, ignored, hw), ref)


def test_an_unknown_family_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown family"):
        mmocr_targets("db", [], np.zeros(0, bool), (32, 32))
