"""The golden reference outputs (tests/golden/README.md): where they are and how to read them.

The repository keeps them losslessly repacked to stay small; `load` gives back exactly the arrays
the reference wrote. A folder in the original layout (plain `.npz`, `.json`) reads the same way, so
TEXTFEED_EXTRA_GOLDEN may name a larger set that the golden tests then check as well.

Repacking a set in the original layout (verifies that every file reads back bit for bit):
    /usr/bin/python3 tests/python/golden_data.py pack SRC_DIR tests/golden/data
"""

import gzip
import json
import os
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "data"
SAMPLE_IMAGES = ROOT / "data" / "icdar15-sample" / "images"  # the replays' images (image_name)

ROW_DELTA = ".rowdelta"  # float32 map kept as uint32 differences of its bit patterns along rows
PNG = ".png"  # (H, W, 3) uint8 RGB image kept as PNG bytes


def extra_dir():
    """The folder TEXTFEED_EXTRA_GOLDEN names, or None. A name that is not a golden folder fails
    loudly: a set asked for must not be skipped in silence."""
    value = os.environ.get("TEXTFEED_EXTRA_GOLDEN", "")
    if not value:
        return None
    path = Path(value)
    if not (path / "index.json").is_file():
        raise FileNotFoundError(f"TEXTFEED_EXTRA_GOLDEN={value}: no index.json there")
    return path


def dirs():
    """The golden folders the tests check: the repository's, then the extra one if set."""
    extra = extra_dir()
    return [GOLDEN] if extra is None else [GOLDEN, extra]


def label(folder):
    """A short test-id prefix telling the folders apart ('' for the repository's)."""
    return "" if folder == GOLDEN else "extra-"


def load_json(folder, name):
    """`name` (e.g. 'units.json') from `folder`, plain or as `name.gz`."""
    path = Path(folder) / name
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    with gzip.open(path.with_name(name + ".gz"), "rt", encoding="utf-8") as f:
        return json.load(f)


def load(path):
    """Every array of one golden `.npz`, as the reference wrote it: {name: ndarray}."""
    out = {}
    with np.load(path) as z:
        for key in z.files:
            a = z[key]
            if key.endswith(ROW_DELTA):
                out[key[: -len(ROW_DELTA)]] = np.cumsum(a, axis=-1, dtype=np.uint32).view(np.float32)
            elif key.endswith(PNG):
                bgr = cv2.imdecode(a, cv2.IMREAD_UNCHANGED)
                if bgr is None:
                    raise ValueError(f"{path}: {key} is not a PNG")
                out[key[: -len(PNG)]] = np.ascontiguousarray(bgr[..., ::-1])
            else:
                out[key] = a
    return out


def _row_delta(a):
    """Row differences of a float32 map's bit patterns (uint32, wrapping), or None for other arrays.
    Distances to a box edge change by near-constant steps along a row, so these compress well."""
    if a.dtype != np.float32 or a.ndim < 2 or a.size < 4096:
        return None
    bits = a.view(np.uint32)
    return np.diff(bits, axis=-1, prepend=np.zeros_like(bits[..., :1]))


def _encode(arrays):
    """The packed form of one file's arrays (what `load` undoes); a map keeps its plain form
    where that compresses better."""
    out = {}
    for key, a in arrays.items():
        delta = _row_delta(a)
        if delta is not None and len(zlib.compress(delta.tobytes())) < len(zlib.compress(a.tobytes())):
            out[key + ROW_DELTA] = delta
        elif a.dtype == np.uint8 and a.ndim == 3 and a.shape[2] == 3:
            ok, png = cv2.imencode(".png", np.ascontiguousarray(a[..., ::-1]), [cv2.IMWRITE_PNG_COMPRESSION, 9])
            if not ok:
                raise ValueError(f"{key}: PNG encoding failed")
            out[key + PNG] = png.reshape(-1)
        else:
            out[key] = a
    return out


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def pack(src, dst):
    """Repacks the golden set in `src` (original layout) into `dst`; checks each file reads back
    bit for bit and that index.json lists every target file."""
    src, dst = Path(src), Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    for path in sorted(src.glob("*.npz")):
        with np.load(path) as z:
            arrays = {k: z[k] for k in z.files}
        np.savez_compressed(dst / path.name, **_encode(arrays))
        back = load(dst / path.name)
        if back.keys() != arrays.keys() or not all(_same(back[k], arrays[k]) for k in arrays):
            raise ValueError(f"{path.name}: does not read back bit for bit")
    for path in sorted(src.glob("*.json")):
        data = path.read_bytes()
        if path.name == "index.json":
            (dst / path.name).write_bytes(data)
            continue
        with open(dst / (path.name + ".gz"), "wb") as raw, gzip.GzipFile(path.name, "wb", 9, raw, mtime=0) as f:
            f.write(data)
        if load_json(dst, path.name) != json.loads(data):
            raise ValueError(f"{path.name}: does not read back")
    index = load_json(dst, "index.json")
    for kind in ("up_targets", "sr_targets"):
        listed = {c["file"] for c in index[kind]}
        if listed != {p.name for p in dst.glob(f"{kind}_*.npz")}:
            raise ValueError(f"index.json: {kind} does not list exactly the files present")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "pack":
        sys.exit(f"usage: {sys.argv[0]} pack SRC_DIR DST_DIR")
    pack(sys.argv[2], sys.argv[3])
