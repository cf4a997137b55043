"""The geometry of bench/mmocr_reference/chains.py (the plain-Python mmocr chains that
bench/mmocr_loader.py times) against the chain goldens: each replay seeded as the goldens' README
says (numpy, Python and imgaug's streams, once), then the drop, the output size, the words (as
rings, 1e-3 px), their flags and labels.

The full set is ../shared/golden-mmocr-chains when present, else the repository's subset
tests/golden/mmocr/chains. No pixels: ColorJitter is skipped on a geometry-only sample.
"""

import sys
from typing import Any, Dict

import numpy as np
import pytest

from golden_mmocr_chains import ROOT, cases, load, ragged, same_ring

sys.path.insert(0, str(ROOT / "bench"))
from mmocr_reference import chains  # noqa: E402

TOL_PX = 1e-3


def _replay(z: Dict[str, np.ndarray]) -> Any:
    chain = str(z["chain"])
    sample = chains.load_sample(None, tuple(int(v) for v in z["image_hw"]),
                                ragged(z["polys_xy"], z["polys_len"]), z["ignored"])
    chains.seed_streams(int(z["seed"]))
    return chains.run_chain(chains.chain_steps(chain), sample)


@pytest.mark.parametrize("entry", cases())
def test_chain_geometry(entry: Dict[str, Any]) -> None:
    z = load(entry)
    out = _replay(z)
    if str(z["dropped"]):
        assert out is None, f"the reference dropped the sample at {z['dropped']}"
        return
    assert out is not None, "dropped, the reference was not"
    assert list(out.hw) == [int(v) for v in z["out_hw"]]
    want = ragged(z["out_xy"], z["out_len"])
    assert len(out.polys) == len(want)
    for i, (flat, ref) in enumerate(zip(out.polys, want)):
        got = np.asarray(flat, dtype=np.float64).reshape(-1, 2)
        assert same_ring(got, ref, TOL_PX), f"word {i}: {got.tolist()} vs {ref.tolist()}"
    assert out.ignored.tolist() == z["out_ignored"].astype(bool).tolist()
    assert out.labels.tolist() == z["out_labels"].astype(np.int64).tolist()
