"""The DB crop goldens (tests/golden/db_crop): PaddleOCR's EastRandomCropData replays, kept small.

Each file holds the reference's arrays as written, except `image_out` (the 640x640 canvas of the
replays made on data/icdar15-sample images): it is stored as `image_out.cvresid`, the int16
difference between the reference's canvas and OpenCV's own cv2.resize of the crop box of
cv2.imread(image) placed on a zero canvas. The reference made its canvas with exactly that call, so
the difference is all zeros and the file stays small; `load` adds it back and returns the
reference's canvas bit for bit (`pack` checks that). The image's name is in index.json.

Repacking from a folder in the original layout:
    /usr/bin/python3 tests/python/golden_db.py pack SRC_DIR tests/golden/db_crop
"""

import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "db_crop"
SAMPLE_IMAGES = ROOT / "data" / "icdar15-sample" / "images"
RESID = ".cvresid"


def index(folder=GOLDEN):
    """index.json's db_crop entries of `folder` ({'file', 'seed', 'image', ...})."""
    return json.loads((Path(folder) / "index.json").read_text(encoding="utf-8"))["db_crop"]


def predicted_canvas(image_name, crop_xywh, scale, size=640):
    """OpenCV's canvas for a crop of a sample image: what the residual is taken against."""
    image = cv2.imread(str(SAMPLE_IMAGES / image_name), cv2.IMREAD_COLOR)
    if image is None:
        raise FileNotFoundError(SAMPLE_IMAGES / image_name)
    x, y, w, h = (int(v) for v in crop_xywh)
    ow, oh = int(w * float(scale)), int(h * float(scale))
    canvas = np.zeros((size, size, 3), np.uint8)
    canvas[:oh, :ow] = cv2.resize(image[y : y + h, x : x + w], (ow, oh))
    return canvas



def step_by_step_canvas(image, p, size=640):
    """The reference's canvas (uint8, the image's channel order) for a db plan `p`
    (reference.db_sample_params), one imgaug/PaddleOCR operation at a time: flip,
    cv2.warpAffine about (W/2 - 0.5, H/2 - 0.5), bicubic resize, bilinear resize of the crop
    into the top-left of a zero canvas."""
    h, w = image.shape[:2]
    a = cv2.flip(image, 1) if p["flip"] else image
    if p["rotate_image"]:
        rad = float(np.deg2rad(np.float32(p["angle_deg"])))
        c, s = math.cos(rad), math.sin(rad)
        cx, cy = w / 2 - 0.5, h / 2 - 0.5
        m = np.array([[c, -s, cx - c * cx + s * cy], [s, c, cy - s * cx - c * cy]])
        a = cv2.warpAffine(a, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    if tuple(p["resized_wh"]) != (w, h):
        a = cv2.resize(a, tuple(p["resized_wh"]), interpolation=cv2.INTER_CUBIC)
    x, y, cw, ch = p["crop_xywh"]
    ow, oh = p["out_wh"]
    canvas = np.zeros((size, size, 3), np.uint8)
    canvas[:oh, :ow] = cv2.resize(a[y:y + ch, x:x + cw], (ow, oh))
    return canvas

def load(path, image_name=None):
    """Every array of one golden file as the reference wrote it: {name: ndarray}."""
    out = {}
    with np.load(path) as z:
        for key in z.files:
            out[key] = z[key]
    for key in [k for k in out if k.endswith(RESID)]:
        resid = out.pop(key)
        base = predicted_canvas(image_name, out["crop_xywh"], out["scale"]).astype(np.int16)
        out[key[: -len(RESID)]] = (base + resid).astype(np.uint8)
    return out


def pack(src, dst):
    src, dst = Path(src), Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    entries = json.loads((src / "index.json").read_text(encoding="utf-8"))["db_crop"]
    for entry in entries:
        with np.load(src / entry["file"]) as z:
            arrays = {k: z[k] for k in z.files}
        packed = dict(arrays)
        if "image_out" in packed:
            base = predicted_canvas(entry["image"], arrays["crop_xywh"], arrays["scale"]).astype(np.int16)
            packed["image_out" + RESID] = arrays["image_out"].astype(np.int16) - base
            del packed["image_out"]
        np.savez_compressed(dst / entry["file"], **packed)
        back = load(dst / entry["file"], entry["image"])
        if back.keys() != arrays.keys() or not all(
            back[k].dtype == arrays[k].dtype and np.array_equal(back[k], arrays[k]) for k in arrays
        ):
            raise ValueError(f"{entry['file']}: does not read back bit for bit")
    (dst / "index.json").write_text(json.dumps({"db_crop": entries}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "pack":
        sys.exit(f"usage: {sys.argv[0]} pack SRC_DIR DST_DIR")
    pack(sys.argv[2], sys.argv[3])
