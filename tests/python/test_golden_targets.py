"""EAST targets against the golden reference outputs, tests/golden (docs/targets.md §3, tolerances §6.3)."""

from pathlib import Path

import numpy as np
import pytest

import textfeed._core as core
from textfeed import errors

import golden_data

DIRS = golden_data.dirs()
INDEX = {d: golden_data.load_json(d, "index.json") for d in DIRS}
UNITS = [(d, u) for d in DIRS for u in golden_data.load_json(d, "units.json")]


def cases(kind):
    return [pytest.param(d, c, id=f"{golden_data.label(d)}{Path(c['file']).stem}-{c['case']}")
            for d in DIRS for c in INDEX[d][kind]]


def assert_distances_close(actual, expected):
    # d1..d4: <= 1 float32 ulp relative (docs/targets.md §6.3), a tiny floor for values near 0.
    np.testing.assert_allclose(actual, expected, rtol=1.2e-7, atol=1e-6)


def check(out, ref, mask_name):
    assert out["score"].dtype == np.float32 and out["geo"].dtype == np.float32
    assert out["geo"].shape == ref["geo"].shape
    np.testing.assert_array_equal(out["score"], ref["score"])
    np.testing.assert_array_equal(out[mask_name], ref[mask_name])
    np.testing.assert_array_equal(out["geo"][4], ref["geo"][4])
    assert_distances_close(out["geo"][:4], ref["geo"][:4])


def test_index_lists_every_golden_file():
    for d in DIRS:
        for kind, pattern in (("up_targets", "up_targets_*.npz"), ("sr_targets", "sr_targets_*.npz")):
            listed = {c["file"] for c in INDEX[d][kind]}
            assert listed == {p.name for p in d.glob(pattern)}
            assert len(listed) > 0


@pytest.mark.parametrize("folder,case", cases("up_targets"))
def test_upstage_targets_match_the_reference(folder, case):
    ref = golden_data.load(folder / case["file"])
    assert float(ref["map_scale"]) == case["map_scale"] and int(ref["crop"]) == 1024
    assert len(ref["labels"]) == case["boxes"]
    out = core.east_targets(ref["vertices"], ref["labels"], 1024, case["map_scale"], "upstage")
    assert set(out) == {"score", "geo", "roi"}
    check(out, ref, "roi")


@pytest.mark.parametrize("folder,case", cases("sr_targets"))
def test_sakura_targets_match_the_reference(folder, case):
    ref = golden_data.load(folder / case["file"])
    assert int(ref["crop"]) == 512 and float(ref["map_scale"]) == 0.25
    assert len(ref["labels"]) == case["boxes"]
    out = core.east_targets(ref["vertices"], ref["labels"], 512, 0.25, "sakura")
    assert set(out) == {"score", "geo", "ignored"}
    check(out, ref, "ignored")


@pytest.mark.parametrize("case", range(len(UNITS)))
def test_shrink_and_angle_units(case):
    u = UNITS[case][1]
    quad = np.array(u["quad"], dtype=np.float64)
    shrunk = core.shrink_poly(quad)
    np.testing.assert_allclose(shrunk, u["sr_shrink"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(shrunk, u["up_shrink"], rtol=0, atol=1e-9)
    assert core.find_min_rect_angle(quad, "sr") == u["sr_angle"]
    assert core.find_min_rect_angle(quad, "up") == u["up_angle"]


def test_empty_annotation_gives_background():
    up = core.east_targets(np.zeros((0, 8)), np.zeros(0, np.int64), 1024, 0.5, "upstage")
    assert up["score"].shape == (512, 512) and up["geo"].shape == (5, 512, 512)
    assert not up["score"].any() and not up["geo"].any() and (up["roi"] == 1).all()
    sr = core.east_targets(np.zeros(0), np.zeros(0, np.int64), 512, 0.25, "sakura")
    assert sr["ignored"].shape == (128, 128) and not sr["ignored"].any() and not sr["score"].any()


def test_degenerate_boxes_never_give_nan():
    v = np.array([[5] * 8, [0, 0, 40, 0, 80, 0, 120, 0], [np.nan] * 8, [1e30] * 8], np.float64)
    for profile, crop, scale in (("sakura", 512, 0.25), ("upstage", 1024, 0.5)):
        for label in (0, 1):
            out = core.east_targets(v, np.full(4, label, np.int64), crop, scale, profile)
            for a in out.values():
                assert np.isfinite(a).all()


PAIR = np.array([[100, 100, 300, 100, 300, 200, 100, 200], [150, 120, 350, 120, 350, 220, 150, 220]], np.float64)


def test_union_fill_rule_fills_the_even_odd_hole():
    lab = np.ones(2, np.int64)
    even_odd = core.east_targets(PAIR, lab, 512, 0.25, "sakura")
    union = core.east_targets(PAIR, lab, 512, 0.25, "sakura", fill_rule="union")
    assert even_odd["score"][40, 55] == 0 and union["score"][40, 55] == 1
    assert union["score"].sum() > even_odd["score"].sum()
    np.testing.assert_array_equal(union["geo"], even_odd["geo"])  # geometry is summed either way
    assert even_odd["geo"][0, 40, 55] == (160 - 100) + (160 - 120)


def test_overlap_flags():
    lab = np.ones(2, np.int64)
    last = core.east_targets(PAIR, lab, 512, 0.25, "sakura", overlap="last")
    assert last["geo"][0, 40, 55] == 160 - 120
    ignore = core.east_targets(PAIR, lab, 512, 0.25, "sakura", overlap="ignore")
    assert ignore["score"][40, 55] == 0 and ignore["ignored"][40, 55] == 1 and not ignore["geo"][:, 40, 55].any()


def test_upstage_ignored_words_keep_targets_unless_asked():
    v = PAIR[:1]
    keep = core.east_targets(v, np.zeros(1, np.int64), 1024, 0.5, "upstage")
    none = core.east_targets(v, np.zeros(1, np.int64), 1024, 0.5, "upstage", ignored_targets="none")
    assert keep["score"].sum() > 0 and none["score"].sum() == 0
    np.testing.assert_array_equal(keep["roi"], none["roi"])
    assert set(np.unique(keep["roi"])) == {0.0, 0.5, 0.75, 1.0}  # border cells, corner cell: 3 of 4
    at_map = core.east_targets(v, np.zeros(1, np.int64), 1024, 0.5, "upstage", roi_resize="rasterize_at_map")
    assert set(np.unique(at_map["roi"])) == {0.0, 1.0}


def test_fix_orientation_and_clamp():
    ccw = np.array([[100, 100, 100, 160, 300, 160, 300, 100]], np.float64)
    cw = np.array([[100, 100, 300, 100, 300, 160, 100, 160]], np.float64)
    lab = np.ones(1, np.int64)
    raw = core.east_targets(ccw, lab, 512, 0.25, "sakura")
    fixed = core.east_targets(ccw, lab, 512, 0.25, "sakura", fix_orientation=True)
    plain = core.east_targets(cw, lab, 512, 0.25, "sakura")
    assert raw["geo"][4, 32, 50] == np.float32(89 / 180 * np.pi)
    np.testing.assert_array_equal(fixed["geo"], plain["geo"])
    clamped = core.east_targets(cw, lab, 512, 0.25, "sakura", clamp_geo=50.0)
    assert clamped["geo"][:4].max() == 50 and plain["geo"][:4].max() > 50


def test_bad_arguments_raise():
    with pytest.raises(errors.InvalidArgumentError, match="fill_rule"):
        core.east_targets(np.zeros((0, 8)), np.zeros(0, np.int64), 512, 0.25, "sakura", fill_rule="nope")
    with pytest.raises(errors.InvalidArgumentError, match="vertices"):
        core.east_targets(np.zeros((2, 8)), np.zeros(3, np.int64), 512, 0.25, "sakura")
    with pytest.raises(errors.InvalidArgumentError):
        core.east_targets(np.zeros((0, 8)), np.zeros(0, np.int64), 512, 0.25, "nope")
    with pytest.raises(errors.InvalidArgumentError, match="metric"):
        core.find_min_rect_angle(np.zeros(8), "nope")
