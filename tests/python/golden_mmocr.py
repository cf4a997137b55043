"""The mmocr target goldens: where they are, their cases, and textfeed's targets for one of them.

The full set is ../shared/golden-mmocr (its README gives every field and the tolerances); where it
is absent, the repository's subset of a group (tests/golden/mmocr/kernels, .../curves) is read
instead. Each group's index.json lists, per family, the files and the named case each one holds.
"""

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pytest
from numpy.typing import NDArray

from textfeed import errors, reference

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "golden-mmocr"
SUBSET_MAX_BYTES = 1_500_000  # the repository's subset of one group, all files together
SUBSET_MIN_CASES = 6  # per family

Arrays = Dict[str, NDArray[Any]]


def subset(group: str) -> Path:
    """The repository's subset of `group` ('kernels' or 'curves')."""
    return ROOT / "tests" / "golden" / "mmocr" / group


def folder(group: str) -> Path:
    """The folder the golden tests of `group` check: the full set if present, else the subset."""
    return SHARED if (SHARED / "index.json").is_file() else subset(group)


def index(where: Path) -> Dict[str, List[Dict[str, Any]]]:
    """index.json's entries of `where`, per family ({'file', 'case', ...})."""
    families: Dict[str, List[Dict[str, Any]]] = json.loads((where / "index.json").read_text())["families"]
    return families


def cases(group: str, families: Sequence[str]) -> List[Any]:
    """One pytest.param(family, entry) per case of `families`, with the file's stem and the case as id."""
    entries = index(folder(group))
    return [pytest.param(fam, e, id=f"{Path(e['file']).stem}-{e['case']}") for fam in families for e in entries[fam]]


def check_subset(group: str, families: Sequence[str]) -> None:
    """The subset of `group` lists exactly the files it holds, enough cases per family, and stays small."""
    where = subset(group)
    entries = index(where)
    listed = {e["file"] for fam in families for e in entries[fam]}
    present = {p.name for p in where.glob("*.npz")}
    assert listed == present
    for fam in families:
        assert len(entries[fam]) >= SUBSET_MIN_CASES, fam
    assert sum((where / f).stat().st_size for f in present) < SUBSET_MAX_BYTES


def load(group: str, case: Dict[str, Any]) -> Arrays:
    """Every array of the golden file of `case`: {name: ndarray}."""
    with np.load(folder(group) / case["file"]) as z:
        return {k: z[k] for k in z.files}


def inputs(ref: Arrays) -> Tuple[List[NDArray[Any]], NDArray[Any], Tuple[int, int]]:
    """The reference's input: the polygons (each (n, 2) float32), the ignore flags and (H, W)."""
    npts = ref["npts"]
    polys = [np.asarray(ref["polys"][i, : int(npts[i])], np.float32) for i in range(len(npts))]
    h, w = (int(v) for v in ref["img_shape"])
    return polys, np.asarray(ref["ignored"], bool), (h, w)


def run(family: str, ref: Arrays) -> Arrays:
    """textfeed's targets of `family` for the input of golden file `ref`."""
    polys, ignored, hw = inputs(ref)
    out: Arrays = reference.mmocr_targets(family, polys, ignored, hw)
    return out


def run_or_refuse(family: str, ref: Arrays, refusal: str) -> Optional[Arrays]:
    """run(family, ref); None where the reference raised (the file holds 'error'), after checking that
    textfeed refuses the input with an InvalidArgumentError matching `refusal`."""
    if "error" not in ref:
        return run(family, ref)
    with pytest.raises(errors.InvalidArgumentError, match=refusal):
        run(family, ref)
    return None


def box(x: float, y: float, w: float, h: float) -> NDArray[Any]:
    """The (4, 2) float32 quad of the box at (x, y) that is w wide and h high, clockwise."""
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)
