"""Seeded replay of the reference chains (docs/targets.md §2.5, §6.2): same draws, sizes, vertices, maps;
the one-warp crop against the reference's three PIL resamplings by PSNR."""

import cv2
import numpy as np
import pytest

import textfeed._core as core

import golden_data

IMAGES = golden_data.SAMPLE_IMAGES
UP_CASES = [c for d in golden_data.dirs() for c in golden_data.load_json(d, "up_replay.json")]
SR_FILES = [p for d in golden_data.dirs() for p in sorted(d.glob("sr_replay_*.npz"))]


@pytest.mark.parametrize("case", range(len(UP_CASES)))
def test_upstage_replay(case):
    c = UP_CASES[case]
    out = core.replay_geometry("upstage", c["image_w"], c["image_h"], np.array(c["vertices_in"], np.float64).reshape(-1, 8),
                               np.array(c["labels"], np.int64), c["seed"], crop_size=c["crop"], image_size=c["image_size"])
    assert out["draws"] == c["draws"]
    assert out["tries"] == (len(c["draws"]) - 2) // 2  # 1 height + 1 angle + 2 per crop try
    assert list(out["sizes"]["resized"]) == c["resized"]
    assert list(out["sizes"]["adjusted"]) == c["adjusted"]
    assert list(out["sizes"]["before_crop"]) == c["before_crop"]
    expected = np.array(c["vertices_out"], np.float64).reshape(-1, 8)
    np.testing.assert_allclose(out["vertices"], expected, rtol=0, atol=1e-4)


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 10 * np.log10(255.0**2 / mse)


@pytest.mark.parametrize("path", SR_FILES, ids=lambda p: golden_data.label(p.parent) + p.stem)
def test_sakura_replay(path):
    ref = golden_data.load(path)
    image = cv2.cvtColor(cv2.imread(str(IMAGES / str(ref["image_name"]))), cv2.COLOR_BGR2RGB)
    h, w = image.shape[:2]
    out = core.replay_geometry("sakura", w, h, ref["vertices_in"], ref["labels"], int(ref["seed"]))
    assert out["draws"] == list(ref["draws"])
    np.testing.assert_allclose(out["vertices"], ref["vertices_out"], rtol=0, atol=1e-4)
    crop = core.warp_crop(image, out["matrix"], 512)
    quality = psnr(crop, ref["crop_rgb"])
    print(f"{path.stem} {ref['image_name']}: one-warp crop vs reference PSNR {quality:.2f} dB")
    assert quality >= 35, f"PSNR {quality:.1f} dB"  # measured 45-52 dB
    np.testing.assert_array_equal(out["labels"], ref["labels"])
    maps = core.east_targets(out["vertices"], out["labels"], 512, 0.25, profile="sakura")
    np.testing.assert_array_equal(maps["score"], ref["score"])
    np.testing.assert_array_equal(maps["ignored"], ref["ignored"])
    np.testing.assert_array_equal(maps["geo"][4], ref["geo"][4])
    tol = np.maximum(np.abs(ref["geo"][:4]) * 1.2e-7, 1e-6)
    assert (np.abs(maps["geo"][:4] - ref["geo"][:4]) <= tol).all()


def test_pre_resized_input_plans_the_same_geometry():
    c = UP_CASES[0]
    v = np.array(c["vertices_in"], np.float64).reshape(-1, 8)
    lab = np.array(c["labels"], np.int64)
    full = core.replay_geometry("upstage", c["image_w"], c["image_h"], v, lab, c["seed"])
    r = np.float32(2048 / max(c["image_w"], c["image_h"]))
    rw, rh = c["resized"]
    pre = core.replay_geometry("upstage", rw, rh, (v.astype(np.float32) * r).astype(np.float64), lab, c["seed"], pre_resized=True)
    assert pre["draws"] == full["draws"] and pre["crop"] == full["crop"]
    np.testing.assert_array_equal(pre["vertices"], full["vertices"])
