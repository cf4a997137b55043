"""mmocr's training chains replayed against the chain goldens (docs/targets.md "mmocr's training
chains"): every numpy, Python and imgaug draw in order and bit for bit, every transform's image
size, polygon count, sources and polygons (1e-4 px), and the outputs (sizes, kept flags, sources,
flags exact).

The full set is ../shared/golden-mmocr-chains when present; otherwise the repository's subset
tests/golden/mmocr/chains (named layouts, the drops and the crop-flip quirk cases).
"""

import json
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest

from textfeed import errors, reference
from golden_mmocr_chains import SUBSET, Arrays, cases, load, ragged, same_ring

TOL_PX = 1e-4


def _replay(ref: Arrays) -> Dict[str, Any]:
    polys = [p.astype(np.float32) for p in ragged(ref["polys_xy"], ref["polys_len"])]
    h, w = (int(v) for v in ref["image_hw"])
    out: Dict[str, Any] = reference.replay_mmocr_chain(str(ref["chain"]), (h, w), polys, ref["ignored"],
                                                       int(ref["seed"]))
    return out


def _draws(ref: Arrays) -> List[Tuple[str, str, str, List[float]]]:
    values = ragged(ref["draw_values"], ref["draw_len"]) if len(ref["draw_len"]) else []
    rows = zip(ref["draw_step"], ref["draw_name"], ref["draw_rng"], values)
    return [(str(s), str(n), str(r), [float(v) for v in vals]) for s, n, r, vals in rows if str(r) != "torch"]


def _check_draws(ref: Arrays, got: Dict[str, Any]) -> None:
    want = _draws(ref)
    have = _draws({k: np.asarray(v) for k, v in got.items() if k.startswith("draw_")})
    for i, (w, h) in enumerate(zip(want, have)):
        assert w == h, f"draw {i}: golden {w}, replay {h}"
    assert len(want) == len(have), f"golden has {len(want)} draws, replay {len(have)}: {have[len(want):]}"


def _check_trace(ref: Arrays, got: Dict[str, Any]) -> None:
    steps = [str(s) for s in ref["trace_step"]]
    assert [str(s) for s in got["trace_step"]] == steps
    at_ref, at_got, polys_ref, polys_got = 0, 0, ragged(ref["trace_xy"], ref["trace_len"]), ragged(
        got["trace_xy"], got["trace_len"])
    for i, step in enumerate(steps):
        n = int(ref["trace_npoly"][i])
        assert list(got["trace_hw"][i]) == list(ref["trace_hw"][i]), f"{step}: image size"
        assert int(got["trace_npoly"][i]) == n, f"{step}: polygon count"
        assert list(got["trace_src"][at_got : at_got + n]) == list(ref["trace_src"][at_ref : at_ref + n]), (
            f"{step}: sources")
        for k in range(n):
            a, b = polys_got[at_got + k], polys_ref[at_ref + k]
            assert same_ring(a, b, TOL_PX), f"{step}: polygon {k}: replay {a.tolist()} golden {b.tolist()}"
        at_ref += n
        at_got += n


@pytest.mark.parametrize("entry", cases())
def test_chain_replay(entry: Dict[str, Any]) -> None:
    ref = load(entry)
    got = _replay(ref)
    _check_draws(ref, got)
    _check_trace(ref, got)
    assert got["dropped"] == str(ref["dropped"])
    for field in ("out_hw", "out_len", "out_src", "out_labels", "out_ignored", "out_zero", "out_f32", "kept"):
        assert np.array_equal(np.asarray(got[field]).astype(np.int64), ref[field].astype(np.int64)), field
    for k, (a, b) in enumerate(zip(ragged(got["out_xy"], got["out_len"]), ragged(ref["out_xy"], ref["out_len"]))):
        assert same_ring(a, b, TOL_PX), f"output polygon {k}"


def test_subset_is_listed_and_small() -> None:
    listed = {r["file"] for r in json.loads((SUBSET / "index.json").read_text())["replays"]}
    assert listed == {p.name for p in SUBSET.glob("*.npz")}
    assert sum((SUBSET / f).stat().st_size for f in listed) < 1_000_000
    chains = json.loads((SUBSET / "index.json").read_text())["replays"]
    for chain in ("psenet", "panet", "fcenet", "textsnake"):
        assert sum(r["chain"] == chain for r in chains) >= 10, chain


@pytest.mark.parametrize(
    "args, error",
    [
        (("east", (10, 10), [], [], 1), errors.InvalidArgumentError),
        (("psenet", (0, 10), [], [], 1), errors.InvalidArgumentError),
        (("psenet", (10, 10), [np.zeros((2, 2))], [False], 1), errors.InvalidArgumentError),
        (("psenet", (10, 10), [np.full((4, 2), np.nan)], [False], 1), errors.InvalidArgumentError),
        (("psenet", (10, 10), [np.zeros((4, 2))], [False, True], 1), errors.InvalidArgumentError),
        (("psenet", (10, 10), [], [], -1), errors.InvalidArgumentError),
        (("psenet", (10, 10), "polys", [], 1), errors.ArgumentTypeError),
    ],
)
def test_bad_arguments_raise(args: Tuple[Any, ...], error: type) -> None:
    with pytest.raises(error):
        reference.replay_mmocr_chain(*args)


@pytest.mark.parametrize("chain", ["psenet", "panet", "fcenet", "textsnake"])
def test_hostile_polygons_do_not_crash(chain: str) -> None:
    """Self-intersecting, zero-area, many-point and outside polygons: a replay, never a crash."""
    t = np.linspace(0, 2 * np.pi, 300, endpoint=False)
    polys = [
        np.array([[0, 0], [50, 50], [50, 0], [0, 50]], np.float32),  # a bow tie
        np.array([[10, 10], [20, 10], [30, 10], [40, 10]], np.float32),  # zero area
        np.stack([200 + 80 * np.cos(t), 200 + 30 * np.sin(t)], 1).astype(np.float32),
        np.array([[-500, -500], [-400, -500], [-400, -400], [-500, -400]], np.float32),  # outside
        np.array([[600, 300], [900, 300], [900, 350], [600, 350]], np.float32),  # partly outside
    ]
    for seed in range(8):
        got = reference.replay_mmocr_chain(chain, (480, 640), polys, [False, False, False, True, False], seed)
        if not got["dropped"]:
            assert len(got["out_hw"]) == 2 and int(got["out_len"].sum()) == len(got["out_xy"])
            assert np.isfinite(got["out_xy"]).all()
