"""Profile bc7 (docs/targets.md §2.6): the 7th-generation boostcamp baseline is upstage's geometry and
targets with albumentations 1.4.12's ColorJitter(). Its colour distributions are tested as
upstage's are (test_statistics.py: KS, binomial, chi-square; N = 10^4, alpha = 0.01), its uint8
arithmetic pixel for pixel against the operations written out below with numpy and OpenCV, and its
geometry and targets against upstage's for the same seed and words."""
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

import textfeed
import textfeed._core as core
from textfeed import errors
from support import SAMPLE
from test_statistics import BOX, CHI2_CRIT, N, chi2_uniform, ks_uniform

OPS = ("brightness", "contrast", "saturation", "hue")


@pytest.fixture(scope="module")
def bc7_params():
    return [core.sample_params("bc7", 1280, 720, BOX, np.ones(1, np.int64), 7, 0, i) for i in range(N)]


def test_colour_factors_hue_p_and_order(bc7_params):
    colours = [p["color"] for p in bc7_params]
    applied = sum(c["applied"] for c in colours)
    assert abs(applied - N / 2) < 4 * math.sqrt(N / 4)  # p = 0.5, binomial 4 sigma
    for name, lo, hi in [("brightness", 0.8, 1.0), ("contrast", 0.8, 1.0), ("saturation", 0.8, 1.0),
                         ("hue", -0.5, 0.5)]:
        values = [c[name] for c in colours]
        assert lo <= min(values) and max(values) <= hi, name
        d, crit = ks_uniform(values, lo, hi)
        assert d < crit, name
        # and not upstage's range: the statistic against U[0.5, 1.5] / U[-0.25, 0.25] is far off
        assert ks_uniform(values, *((0.5, 1.5) if name != "hue" else (-0.25, 0.25)))[0] > 5 * crit, name
    perms = {}
    for c in colours:
        perms[tuple(c["order"])] = perms.get(tuple(c["order"]), 0) + 1
    assert len(perms) == 24
    assert chi2_uniform(list(perms.values())) < CHI2_CRIT[23]


def test_same_seed_and_words_give_upstages_geometry(bc7_params):
    """Only the photometric step differs: the same draws, tries, crop and vertices for every sample."""
    words = np.array([[100 + 60 * k, 300, 150 + 60 * k, 300, 150 + 60 * k, 330, 100 + 60 * k, 330] for k in range(15)],
                     np.float64)
    labels = np.ones(len(words), np.int64)
    labels[::4] = 0
    for i in range(300):
        up = core.sample_params("upstage", 1280, 720, words, labels, 5, 2, i)
        bc7 = core.sample_params("bc7", 1280, 720, words, labels, 5, 2, i)
        for key in ("sizes", "crop", "tries", "fallback", "height_ratio", "angle_deg"):
            assert up[key] == bc7[key], (i, key)
        np.testing.assert_array_equal(up["vertices"], bc7["vertices"])
        np.testing.assert_array_equal(up["labels"], bc7["labels"])
        np.testing.assert_array_equal(up["matrix"], bc7["matrix"])
        # the colour draws come after the geometric ones, from the same stream, in the same number
        assert up["color"]["applied"] == bc7["color"]["applied"] and up["color"]["order"] == bc7["color"]["order"]
    replay = {p: core.replay_geometry(p, 1280, 720, words, labels, 3) for p in ("upstage", "bc7")}
    assert replay["upstage"]["draws"] == replay["bc7"]["draws"]
    np.testing.assert_array_equal(replay["upstage"]["vertices"], replay["bc7"]["vertices"])
    up = core.east_targets(replay["upstage"]["vertices"], labels, 1024, 0.5, "upstage")
    bc7 = core.east_targets(replay["bc7"]["vertices"], labels, 1024, 0.5, "bc7")
    assert up.keys() == bc7.keys() == {"score", "geo", "roi"}
    for key in up:
        np.testing.assert_array_equal(up[key], bc7[key])


# ---- albumentations' uint8 arithmetic, written out (docs/targets.md §2.6) ----

def _table(factor, add, f32):
    """x -> clip(x * factor + add) truncated to uint8: 1.4.12 (albucore 0.0.13) in float32, 1.3.1 in float64."""
    if f32:
        lut = np.arange(256, dtype=np.float32) * np.float32(factor) + np.float32(add)
    else:
        lut = np.arange(256) * factor + add
    return np.clip(lut, 0, 255).astype(np.uint8)


def _op(img, name, value, f32):
    if name == "brightness":
        return np.zeros_like(img) if value == 0 else img if value == 1 else cv2.LUT(img, _table(value, 0, f32))
    if name == "contrast":
        if value == 1:
            return img
        mean = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).mean()
        if value == 0:
            return np.full_like(img, int(mean + 0.5))
        return cv2.LUT(img, _table(value, mean * (1 - value), f32))
    if name == "saturation":
        if value == 1:
            return img
        grey = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
        return grey if value == 0 else cv2.addWeighted(img, value, grey, 1 - value, 0)
    if value == 0:
        return img
    hsv = cv2.cvtColor(img, cv2.COLOR_RGB2HSV)
    hsv[..., 0] = cv2.LUT(hsv[..., 0], np.mod(np.arange(256, dtype=np.int16) + 180 * value, 180).astype(np.uint8))
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)


def albumentations_jitter(img, params, f32):
    for name in params["order"]:
        img = _op(img, name, params[name], f32)
    return img


def crop_under_test():
    rng = np.random.default_rng(4)
    crop = rng.integers(0, 256, (40, 56, 3), dtype=np.uint8)
    crop[:8] = rng.integers(0, 256, (8, 56, 1), dtype=np.uint8)  # grey rows
    crop[8:12, :, 0] = 255  # saturated red
    crop[12:14] = (90, 90, 90)  # 0.7 * 90: 62.99999999999999 in float64, 63 in float32
    return crop


@pytest.mark.parametrize("color_math,f32", [(None, True), ("albumentations_1_4_12", True),
                                            ("albumentations_1_3_1", False)])
def test_bc7_pixels_are_albumentations_uint8_arithmetic(color_math, f32):
    crop = crop_under_test()
    applied = 0
    for i in range(120):
        out, params = core.photometric(crop, "bc7", 3, 0, i, color_math=color_math)
        pixels = (out.astype(np.float64) * 0.5 + 0.5) * 255  # undo Normalize(0.5, 0.5)
        assert np.abs(pixels - np.rint(pixels)).max() < 1e-3
        got = np.rint(pixels).astype(np.uint8).transpose(1, 2, 0)
        want = albumentations_jitter(crop, params, f32) if params["applied"] else crop
        np.testing.assert_array_equal(got, want, err_msg=f"sample {i}: {params}")
        applied += params["applied"]
    assert 30 < applied < 90


GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "bc7" / "color_jitter.npz"


@pytest.mark.parametrize("tag,color_math", [("1_4_12", None), ("1_3_1", "albumentations_1_3_1")])
def test_pixels_equal_the_reference_functions_outputs(tag, color_math):
    """tests/golden/bc7: albumentations' own adjust_*_torchvision functions of each version, run on
    a crop with the parameters textfeed drew (which must not change either)."""
    ref = np.load(GOLDEN)
    crop = ref["crop"]
    for k, i in enumerate(ref[f"index_{tag}"]):
        out, p = core.photometric(crop, "bc7", int(ref[f"seed_{tag}"]), 0, int(i), color_math=color_math)
        assert p["applied"]
        assert [p[name] for name in OPS] == list(ref[f"params_{tag}"][k]), (tag, i)
        assert [OPS.index(name) for name in p["order"]] == list(ref[f"order_{tag}"][k]), (tag, i)
        got = np.rint((out.astype(np.float64) * 0.5 + 0.5) * 255).astype(np.uint8).transpose(1, 2, 0)
        np.testing.assert_array_equal(got, ref[f"out_{tag}"][k], err_msg=f"{tag} sample {i}: {p}")


def test_the_two_albumentations_versions_differ_where_float32_rounds_up():
    assert _table(0.7, 0, True)[90] == 63 and _table(0.7, 0, False)[90] == 62
    # bc7 draws factors below 1: among many, a few build different tables in the two versions
    factors = np.random.default_rng(0).uniform(0.8, 1.0, 20000)
    differ = sum(bool((_table(f, 0, True) != _table(f, 0, False)).any()) for f in factors)
    assert 0 < differ < 200


def test_fused_arithmetic_is_close_to_albumentations_on_bc7_draws():
    """upstage's fused float arithmetic under bc7's ranges: the same params, pixels within a few levels
    except where 8-bit HSV quantizes the hue (the median stays small)."""
    crop = crop_under_test()
    for i in range(40):
        fused, params = core.photometric(crop, "bc7", 9, 0, i, color_math="fused")
        exact, same = core.photometric(crop, "bc7", 9, 0, i)
        assert params == same
        assert np.median(np.abs(fused - exact)) * 127.5 <= 3


def loader(profile, **kw):
    args = dict(dataset=str(SAMPLE), batch_size=2, profile=profile, seed=5, image_size=512, crop_size=256,
                threads=2, prefetch=2, pin_memory=False)
    args.update(kw)
    return textfeed.Loader(**args)


def batches(l, count=3):
    out = []
    for i, b in enumerate(l):
        if i == count:
            break
        out.append([t.clone() for t in b])
        del b
    return out


def test_loader_batches_differ_from_upstages_only_in_the_image():
    with loader("upstage") as up, loader("bc7") as bc7:
        a, b = batches(up), batches(bc7)
    changed = 0
    for x, y in zip(a, b):
        for t in range(1, 4):  # score, geo, mask
            assert (x[t] == y[t]).all()
        changed += int(not (x[0] == y[0]).all())
    assert changed > 0
    with loader("upstage", color_jitter_p=0.0) as up, loader("bc7", color_jitter_p=0.0) as bc7:
        for x, y in zip(batches(up), batches(bc7)):
            for t in range(4):
                assert (x[t] == y[t]).all()


def test_ranges_as_python_tuples_rebuild_bc7_from_upstage():
    colour = dict(brightness=(0.8, 1.0), contrast=[0.8, 1], saturation=(np.float64(0.8), 1.0), hue=(-0.5, 0.5),
                  color_math="albumentations_1_4_12")
    with loader("upstage", **colour) as up, loader("bc7") as bc7:
        for x, y in zip(batches(up), batches(bc7)):
            for t in range(4):
                assert (x[t] == y[t]).all()
    with loader("upstage", brightness=0.5) as scalar, loader("upstage", brightness=(0.5, 1.5)) as pair:
        assert all((x[0] == y[0]).all() for x, y in zip(batches(scalar, 1), batches(pair, 1)))


@pytest.mark.parametrize("kw,error,message", [
    (dict(brightness=(0.8,)), errors.ArgumentTypeError, "brightness must be a (lo, hi) pair"),
    (dict(brightness=(0.8, 1.0, 1.2)), errors.ArgumentTypeError, "brightness must be a (lo, hi) pair"),
    (dict(contrast=("0.8", 1.0)), errors.ArgumentTypeError, "contrast must be a (lo, hi) pair"),
    (dict(saturation=(True, 1.0)), errors.ArgumentTypeError, "saturation must be a (lo, hi) pair"),
    (dict(hue=(float("nan"), 0.1)), errors.InvalidArgumentError, "hue = [nan, 0.1]: need -0.5 <= lo <= hi <= 0.5"),
    (dict(brightness=(1.0, 0.8)), errors.InvalidArgumentError, "lo must not exceed hi"),
    (dict(brightness=-0.1), errors.InvalidArgumentError, "a single number must not be negative"),
    (dict(contrast=(0.0, 11.0)), errors.InvalidArgumentError, "contrast = [0, 11]: need 0 <= lo <= hi <= 10"),
    (dict(hue=(-0.6, 0.0)), errors.InvalidArgumentError, "hue = [-0.6, 0]: need -0.5 <= lo <= hi <= 0.5"),
    (dict(rotate_deg=(1.0, 2.0)), errors.ArgumentTypeError, "rotate_deg must be a number"),
    (dict(color_math="albumentations"), errors.InvalidArgumentError,
     "color_math must be one of ('fused', 'albumentations_1_3_1', 'albumentations_1_4_12')"),
])
def test_bad_ranges_are_refused_naming_the_option(kw, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
                       .replace("]", r"\]").replace("|", r"\|").replace(".", r"\.")):
        loader("upstage", **kw)


def test_profile_enum_and_state():
    assert textfeed.Profile.BC7.text == "bc7"
    with loader(textfeed.Profile.BC7) as l:
        assert l.state_dict()["profile"] == "bc7"


def test_cli_takes_the_profile_and_ranges(tmp_path):
    import subprocess
    from support import TEXTFEED

    def show(*flags):
        return subprocess.run([TEXTFEED, "show", "--dataset", str(SAMPLE), "--out", str(tmp_path), "--count", "1",
                               "--set", "crop_size=128", *flags], capture_output=True, text=True, timeout=120)

    ok = show("--profile", "bc7", "--set", "brightness=0.8,1.0", "--set", "hue=0.1")
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "sample_0.png").exists()
    bad = show("--profile", "bc7", "--set", "hue=0.4,0.2")
    assert bad.returncode == 2 and "option hue = '0.4,0.2'" in bad.stderr and "lo must not exceed hi" in bad.stderr, \
        bad.stderr
    wide = show("--set", "saturation=0,12")
    assert wide.returncode == 2 and "saturation = [0, 12]: need 0 <= lo <= hi <= 10" in wide.stderr, wide.stderr
    help_text = subprocess.run([TEXTFEED, "show", "--help"], capture_output=True, text=True).stdout
    assert "bc7" in help_text
