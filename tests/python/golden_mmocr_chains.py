"""The mmocr chain goldens: where they are, their cases, and the comparisons both of their tests
make (test_golden_mmocr_chains.py for textfeed, test_mmocr_chain_transcription.py for the Python
transcription in bench/).

The full set is ../shared/golden-mmocr-chains when present (optional: the larger set); otherwise
the repository's subset tests/golden/mmocr/chains (named layouts, the drops and the crop-flip quirk
cases).
"""

import json
from pathlib import Path
from typing import Any, Dict, List

import numpy as np
import pytest
from numpy.typing import NDArray

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "golden-mmocr-chains"
SUBSET = ROOT / "tests" / "golden" / "mmocr" / "chains"
FOLDER = SHARED if (SHARED / "index.json").is_file() else SUBSET
Arrays = Dict[str, NDArray[Any]]


def cases() -> List[Any]:
    """One pytest.param(entry) per replay of FOLDER, with the file's stem and the case as id."""
    replays = json.loads((FOLDER / "index.json").read_text())["replays"]
    return [pytest.param(r, id=f"{Path(r['file']).stem}-{r['case']}") for r in replays]


def load(entry: Dict[str, Any]) -> Arrays:
    """Every array of the golden file of `entry`."""
    with np.load(FOLDER / entry["file"]) as z:
        return {k: z[k] for k in z.files}


def ragged(xy: NDArray[Any], lens: NDArray[Any]) -> List[NDArray[Any]]:
    """A ragged list stored as its points (total, 2) and the count of each."""
    ends = np.cumsum(lens)
    return [xy[e - n : e] for n, e in zip(lens, ends)]


def same_ring(a: NDArray[Any], b: NDArray[Any], tol_px: float) -> bool:
    """Equal within tol_px point by point, or as rings (closing point dropped, any cyclic shift,
    same direction): GEOS's first vertex is not a documented property (the goldens' README)."""
    if a.shape != b.shape:
        return False
    if a.size == 0 or np.abs(a - b).max() <= tol_px:
        return True
    closed = len(a) > 1 and np.array_equal(a[0], a[-1]) and np.abs(b[0] - b[-1]).max() <= tol_px
    ra, rb = (a[:-1], b[:-1]) if closed else (a, b)
    return any(np.abs(np.roll(ra, k, axis=0) - rb).max() <= tol_px for k in range(len(ra)))
