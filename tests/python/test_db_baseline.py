"""Checks the plain-Python DB baseline examples/db_paddle_pipeline.py against the DB goldens.

bench/db.sh times it beside the db profile: it must compute what PaddleOCR computes, or the ratio
means nothing. Its maps against tests/golden/db (masks and tags exact, threshold map within 1e-6),
its crop search against tests/golden/db_crop (box, scale, kept polygons, pixels), its imgaug
keypoint mapping against textfeed's, and its whole sample's shapes and determinism.
"""

import importlib.util
import json
import sys

import cv2
import numpy as np
import pytest

import golden_db
from support import ROOT, SAMPLE
from textfeed import reference

GOLDEN_TARGETS = ROOT / "tests" / "golden" / "db"


def load_example():
    spec = importlib.util.spec_from_file_location("db_paddle_pipeline", ROOT / "examples" / "db_paddle_pipeline.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


dbp = load_example()


def polys_of(z, key="polys"):
    p = z[key]
    return np.zeros((0, 4, 2)) if p.ndim == 1 else p


@pytest.mark.parametrize("case", json.loads((GOLDEN_TARGETS / "index.json").read_text())["db_targets"],
                         ids=lambda c: c["case"])
def test_maps_equal_the_golden_files(case):
    z = np.load(GOLDEN_TARGETS / case["file"])
    out = dbp.db_targets(polys_of(z), z["ignore_tags"], tuple(int(v) for v in z["canvas_hw"]),
                         float(z["shrink_ratio"]))
    for key in ("threshold_mask", "shrink_map", "shrink_mask"):
        np.testing.assert_array_equal(out[key], z[key], err_msg=key)
    np.testing.assert_array_equal(out["ignore_tags"], z["ignore_tags_out"])
    np.testing.assert_allclose(out["threshold_map"], z["threshold_map"], rtol=0, atol=1e-6)


@pytest.mark.parametrize("case", golden_db.index(), ids=lambda c: c["file"])
def test_crop_search_replays_the_golden_files(case):
    z = golden_db.load(golden_db.GOLDEN / case["file"], case.get("image"))
    h, w = (int(v) for v in z["image_hw"])
    image = (cv2.imread(str(golden_db.SAMPLE_IMAGES / case["image"]), cv2.IMREAD_COLOR) if case.get("image")
             else np.zeros((h, w, 3), np.uint8))
    out = dbp.random_crop(image, polys_of(z), z["ignore_tags"], np.random.RandomState(int(z["seed"])))
    assert tuple(out["crop_xywh"]) == tuple(int(v) for v in z["crop_xywh"])
    assert abs(out["scale"] - float(z["scale"])) <= 1e-9
    np.testing.assert_array_equal(out["kept"], z["kept"])
    np.testing.assert_array_equal(out["ignore_tags"], z["ignore_tags_out"])
    if len(z["polys_out"]):
        np.testing.assert_allclose(out["polys"], z["polys_out"], rtol=0, atol=1e-4)
    if "image_out" in z:
        assert np.abs(out["image"].astype(int) - z["image_out"].astype(int)).max() <= 1


@pytest.mark.parametrize("flip,angle,factor", [(False, 7.5, 1.25), (True, -9.0, 0.6), (True, 0.0, 2.5)])
def test_keypoints_follow_imgaug_as_textfeed_maps_them(flip, angle, factor):
    rs = np.random.RandomState(0)
    polys = rs.uniform(0, 300, size=(3, 6, 2))

    class Fixed:  # the three draws iaa_augment makes, in its order
        def __init__(self):
            self.values = iter([0.0 if flip else 0.99, angle, factor])

        def random_sample(self):
            return next(self.values)

        def uniform(self, lo, hi):
            return next(self.values)

    image, moved = dbp.iaa_augment(np.zeros((240, 320, 3), np.uint8), polys, Fixed())
    expected, (w, h) = reference.db_map_keypoints(polys.reshape(-1, 2), 320, 240, flip=flip, angle_deg=angle,
                                                  resize=factor)
    assert image.shape[:2] == (h, w)
    np.testing.assert_allclose(moved.reshape(-1, 2), expected, rtol=0, atol=1e-3)


def test_a_sample_is_paddleocrs_keep_keys_and_deterministic():
    dataset = dbp.DBDataset(SAMPLE, seed=3)
    assert len(dataset) == 10
    a, b = dataset[4], dataset[4]
    assert [x.shape for x in a] == [(3, 640, 640), (640, 640), (640, 640), (640, 640), (640, 640)]
    assert all(x.dtype == np.float32 for x in a)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    dataset.set_epoch(1)
    assert any(not np.array_equal(x, y) for x, y in zip(a, dataset[4]))
    assert 0.3 - 1e-6 <= float(a[1].min()) and float(a[1].max()) <= 0.7 + 1e-6
    dataset.total_epochs = 10
    dataset.set_epoch(5)
    assert dataset.shrink_ratio() == pytest.approx(0.5)
