"""DB targets against PaddleOCR's MakeBorderMap + MakeShrinkMap outputs (docs/targets.md, "DB targets").

tests/golden/db holds a subset of the reference set (the named cases and a few random ones);
TEXTFEED_EXTRA_GOLDEN_DB may name a folder of the same layout (index.json + db_targets_NNN.npz)
whose files are checked as well. Tolerances: the masks, the shrink map and the ignore tags exactly
equal, the threshold map within 1e-6 (its default, fast distances) and bit for bit with exact=True.
"""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from textfeed import errors, reference

ROOT = Path(__file__).resolve().parents[2]
GOLDEN_DB = ROOT / "tests" / "golden" / "db"


def _dirs():
    value = os.environ.get("TEXTFEED_EXTRA_GOLDEN_DB", "")
    if not value:
        return [GOLDEN_DB]
    extra = Path(value)
    if not (extra / "index.json").is_file():
        raise FileNotFoundError(f"TEXTFEED_EXTRA_GOLDEN_DB={value}: no index.json there")
    return [GOLDEN_DB, extra]


DIRS = _dirs()


def _cases():
    out = []
    for d in DIRS:
        prefix = "" if d == GOLDEN_DB else "extra-"
        for c in json.loads((d / "index.json").read_text())["db_targets"]:
            out.append(pytest.param(d, c, id=f"{prefix}{Path(c['file']).stem}-{c['case']}"))
    return out


def _run(ref, exact=False):
    polys = ref["polys"]
    return reference.db_targets(polys, ref["ignore_tags"], tuple(int(v) for v in ref["canvas_hw"]),
                                shrink_ratio=float(ref["shrink_ratio"]),
                                min_text_size=int(ref["min_text_size"]),
                                thresh_min=float(ref["thresh_min"]), thresh_max=float(ref["thresh_max"]),
                                exact=exact)


def test_the_repository_subset_is_listed_and_present():
    index = json.loads((GOLDEN_DB / "index.json").read_text())["db_targets"]
    assert {c["file"] for c in index} == {p.name for p in GOLDEN_DB.glob("db_targets_*.npz")}
    assert len(index) >= 16


@pytest.mark.parametrize("folder,case", _cases())
def test_db_targets_match_the_reference(folder, case):
    ref = np.load(folder / case["file"])
    out = _run(ref)
    h, w = (int(v) for v in ref["canvas_hw"])
    for name in ("threshold_map", "threshold_mask", "shrink_map", "shrink_mask"):
        assert out[name].dtype == np.float32 and out[name].shape == (h, w), name
    np.testing.assert_array_equal(out["threshold_mask"], ref["threshold_mask"])
    np.testing.assert_array_equal(out["shrink_map"], ref["shrink_map"])
    np.testing.assert_array_equal(out["shrink_mask"], ref["shrink_mask"])
    np.testing.assert_array_equal(out["ignore_tags"], ref["ignore_tags_out"])
    np.testing.assert_allclose(out["threshold_map"], ref["threshold_map"], rtol=0, atol=1e-6)
    exact = _run(ref, exact=True)
    np.testing.assert_array_equal(exact["threshold_map"], ref["threshold_map"])
    for name in ("threshold_mask", "shrink_map", "shrink_mask", "ignore_tags"):
        np.testing.assert_array_equal(exact[name], out[name])


def test_a_list_of_unpadded_polygons_equals_the_padded_array():
    ref = np.load(GOLDEN_DB / "db_targets_018.npz")  # mixed point counts, padded
    padded = ref["polys"]
    unpadded = []
    for p in padded:
        n = len(p)
        while n > 1 and (p[n - 1] == p[n - 2]).all():
            n -= 1
        unpadded.append(p[:n])
    assert len({len(p) for p in unpadded}) > 1
    a = _run(ref)
    b = reference.db_targets(unpadded, ref["ignore_tags"], (640, 640), shrink_ratio=float(ref["shrink_ratio"]))
    # The band and the offsets see the same ring either way: only repeated points differ.
    np.testing.assert_array_equal(a["shrink_map"], b["shrink_map"])
    np.testing.assert_array_equal(a["threshold_mask"], b["threshold_mask"])


def test_no_polygon_gives_the_blank_maps():
    out = reference.db_targets(np.zeros((0,)), np.zeros((0,), bool), (20, 30))
    assert (out["threshold_map"] == np.float32(0.3)).all() and not out["threshold_mask"].any()
    assert not out["shrink_map"].any() and (out["shrink_mask"] == 1).all()
    assert out["ignore_tags"].shape == (0,)


SQUARE = np.array([[10.0, 10.0], [50.0, 10.0], [50.0, 50.0], [10.0, 50.0]])


@pytest.mark.parametrize("polys,tags,hw,kind,text", [
    ("abc", [False], (64, 64), errors.ArgumentTypeError, "polys"),
    (np.zeros((1, 4, 3)), [False], (64, 64), errors.InvalidArgumentError, "polys[0] must be (P, 2)"),
    (np.zeros((4, 2)), [False], (64, 64), errors.InvalidArgumentError, "(N, P, 2)"),
    ([SQUARE.astype(str)], [False], (64, 64), errors.ArgumentTypeError, "polys[0]"),
    ([SQUARE], [False, True], (64, 64), errors.InvalidArgumentError, "ignore_tags"),
    ([SQUARE], [0.5], (64, 64), errors.ArgumentTypeError, "ignore_tags"),
    ([SQUARE], [False], (64,), errors.ArgumentTypeError, "canvas_hw"),
    ([SQUARE], [False], (0, 64), errors.InvalidArgumentError, "canvas_hw[0]"),
    ([SQUARE[:2]], [False], (64, 64), errors.InvalidArgumentError, "polygon 0 has 2 points"),
    ([SQUARE, np.where(SQUARE == 50.0, np.nan, SQUARE)], [False, True], (64, 64), errors.InvalidArgumentError,
     "polygon 1: coordinate"),
    ([SQUARE * 1e7], [False], (64, 64), errors.InvalidArgumentError, "polygon 0: coordinate"),
    ([np.zeros((2000, 2))], [False], (64, 64), errors.InvalidArgumentError, "2000 points"),
])
def test_bad_inputs_raise_clear_errors(polys, tags, hw, kind, text):
    with pytest.raises(kind, match=text.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("]", r"\]")):
        reference.db_targets(polys, np.asarray(tags), hw)


def test_bad_options_raise():
    with pytest.raises(errors.InvalidArgumentError, match="shrink_ratio"):
        reference.db_targets([SQUARE], [False], (64, 64), shrink_ratio=0)
    with pytest.raises(errors.InvalidArgumentError, match="shrink_ratio"):
        reference.db_targets([SQUARE], [False], (64, 64), shrink_ratio=1.0)
    with pytest.raises(errors.InvalidArgumentError, match="thresh_min"):
        reference.db_targets([SQUARE], [False], (64, 64), thresh_min=0.8, thresh_max=0.7)
    for not_a_bool in ("yes", 1, None):
        with pytest.raises(errors.ArgumentTypeError, match="exact must be True or False"):
            reference.db_targets([SQUARE], [False], (64, 64), exact=not_a_bool)
