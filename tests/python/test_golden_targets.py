"""EAST targets against the reference outputs in shared/golden (TARGETS.md §3, tolerances §6.3)."""

import json
from pathlib import Path

import numpy as np
import pytest

import textfeed._core as core

GOLDEN = Path(__file__).resolve().parents[2].parent / "shared" / "golden"
UP_FILES = sorted(GOLDEN.glob("up_targets_*.npz"))
SR_FILES = sorted(GOLDEN.glob("sr_targets_*.npz"))
UNITS = json.loads((GOLDEN / "units.json").read_text())


def assert_distances_close(actual, expected):
    # <= 1 float32 ulp of the value (TARGETS.md §6.3), with a floor for values near 0.
    tol = np.maximum(np.abs(expected) * 1.2e-7, 1e-6)
    bad = np.abs(actual - expected) > tol
    assert not bad.any(), f"{bad.sum()} geometry values differ; max diff {np.abs(actual - expected).max()}"


def check(out, ref, mask_name):
    np.testing.assert_array_equal(out["score"], ref["score"])
    np.testing.assert_array_equal(out[mask_name], ref[mask_name])
    np.testing.assert_array_equal(out["geo"][4], ref["geo"][4])
    assert_distances_close(out["geo"][:4], ref["geo"][:4])


def test_golden_files_are_there():
    assert len(UP_FILES) == 62 and len(SR_FILES) == 31


@pytest.mark.parametrize("path", UP_FILES, ids=lambda p: p.stem)
def test_upstage_targets_match_the_reference(path):
    ref = np.load(path)
    out = core.east_targets(ref["vertices"], ref["labels"], int(ref["crop"]), float(ref["map_scale"]), "upstage")
    check(out, ref, "roi")


@pytest.mark.parametrize("path", SR_FILES, ids=lambda p: p.stem)
def test_sakura_targets_match_the_reference(path):
    ref = np.load(path)
    out = core.east_targets(ref["vertices"], ref["labels"], int(ref["crop"]), float(ref["map_scale"]), "sakura")
    check(out, ref, "ignored")


@pytest.mark.parametrize("case", range(len(UNITS)))
def test_shrink_and_angle_units(case):
    u = UNITS[case]
    quad = np.array(u["quad"], dtype=np.float64)
    np.testing.assert_allclose(core.shrink_poly(quad), u["sr_shrink"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(core.shrink_poly(quad), u["up_shrink"], rtol=0, atol=1e-9)
    assert core.find_min_rect_angle(quad, "sr") == u["sr_angle"]
    assert core.find_min_rect_angle(quad, "up") == u["up_angle"]


def test_empty_annotation_gives_background():
    up = core.east_targets(np.zeros((0, 8)), np.zeros(0, np.int64), 1024, 0.5, "upstage")
    assert up["score"].shape == (512, 512) and not up["score"].any() and not up["geo"].any()
    assert (up["roi"] == 1).all()
    sr = core.east_targets(np.zeros((0, 8)), np.zeros(0, np.int64), 512, 0.25, "sakura")
    assert not sr["ignored"].any()


def test_degenerate_boxes_never_give_nan():
    v = np.array([[5, 5, 5, 5, 5, 5, 5, 5], [0, 0, 40, 0, 80, 0, 120, 0], [np.nan] * 8, [1e30] * 8], np.float64)
    out = core.east_targets(v, np.ones(4, np.int64), 512, 0.25, "sakura")
    for a in out.values():
        assert np.isfinite(a).all()


def test_union_fill_rule_differs_from_even_odd_on_overlaps():
    v = np.array([[100, 100, 300, 100, 300, 200, 100, 200], [150, 120, 350, 120, 350, 220, 150, 220]], np.float64)
    lab = np.ones(2, np.int64)
    even_odd = core.east_targets(v, lab, 512, 0.25, "sakura")
    union = core.east_targets(v, lab, 512, 0.25, "sakura", fill_rule="union")
    assert union["score"].sum() > even_odd["score"].sum()
    # Where both boxes claim a pixel and the score is 1, geometry is summed (angle 2t = 0 here, d's double).
    last = core.east_targets(v, lab, 512, 0.25, "sakura", overlap="last")
    assert (last["geo"][:4] <= even_odd["geo"][:4] + 1e-3).all()


def test_bad_flag_value_raises():
    from textfeed import errors

    with pytest.raises(errors.InvalidArgumentError, match="fill_rule"):
        core.east_targets(np.zeros((0, 8)), np.zeros(0, np.int64), 512, 0.25, "sakura", fill_rule="nope")
