"""The geometry of bench/mmocr_reference/chains.py (the plain-Python mmocr chains that
bench/mmocr_loader.py times) against the chain goldens: each replay seeded as the goldens' README
says (numpy, Python and imgaug's streams, once), then the drop, the output size, the words (as
rings, 1e-3 px), their flags and labels.

The full set is ../shared/golden-mmocr-chains when present, else the repository's subset
tests/golden/mmocr/chains. No pixels: ColorJitter is skipped on a geometry-only sample.
"""

import json
import sys
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from mmocr_reference import chains  # noqa: E402

SHARED = ROOT.parent / "shared" / "golden-mmocr-chains"
SUBSET = ROOT / "tests" / "golden" / "mmocr" / "chains"
FOLDER = SHARED if (SHARED / "index.json").is_file() else SUBSET
TOL_PX = 1e-3


def _cases() -> List[Any]:
    replays = json.loads((FOLDER / "index.json").read_text())["replays"]
    return [pytest.param(r, id=f"{Path(r['file']).stem}-{r['case']}") for r in replays]


def _ragged(xy: np.ndarray, lens: np.ndarray) -> List[np.ndarray]:
    ends = np.cumsum(lens)
    return [xy[e - n:e] for n, e in zip(lens, ends)]


def _ring(pts: np.ndarray) -> np.ndarray:
    """The outline without its closing point (when it repeats the first)."""
    if len(pts) > 1 and np.allclose(pts[0], pts[-1], atol=TOL_PX, rtol=0):
        return pts[:-1]
    return pts


def _same_ring(got: np.ndarray, want: np.ndarray) -> bool:
    """Same points in the same direction from any start, within TOL_PX."""
    got, want = _ring(got), _ring(want)
    if got.shape != want.shape:
        return False
    return any(np.abs(np.roll(got, -k, axis=0) - want).max() <= TOL_PX for k in range(len(got)))


def _replay(z: Dict[str, np.ndarray]) -> Any:
    chain = str(z["chain"])
    sample = chains.load_sample(None, tuple(int(v) for v in z["image_hw"]),
                                _ragged(z["polys_xy"], z["polys_len"]), z["ignored"])
    chains.seed_streams(int(z["seed"]))
    return chains.run_chain(chains.chain_steps(chain), sample)


@pytest.mark.parametrize("entry", _cases())
def test_chain_geometry(entry: Dict[str, Any]) -> None:
    with np.load(FOLDER / entry["file"]) as npz:
        z = {k: npz[k] for k in npz.files}
    out = _replay(z)
    if str(z["dropped"]):
        assert out is None, f"the reference dropped the sample at {z['dropped']}"
        return
    assert out is not None, "dropped, the reference was not"
    assert list(out.hw) == [int(v) for v in z["out_hw"]]
    want = _ragged(z["out_xy"], z["out_len"])
    assert len(out.polys) == len(want)
    for i, (flat, ref) in enumerate(zip(out.polys, want)):
        got = np.asarray(flat, dtype=np.float64).reshape(-1, 2)
        assert _same_ring(got, ref), f"word {i}: {got.tolist()} vs {ref.tolist()}"
    assert out.ignored.tolist() == z["out_ignored"].astype(bool).tolist()
    assert out.labels.tolist() == z["out_labels"].astype(np.int64).tolist()
