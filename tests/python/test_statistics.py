"""Random distributions of the per-sample streams (docs/targets.md §6.4): fixed seeds, N >= 10^4,
alpha = 0.01. Each sample draws from Rng(seed, epoch, index)."""

import math

import numpy as np
import pytest

import textfeed._core as core

N = 10000
BOX = np.array([[500, 500, 700, 500, 700, 560, 500, 560]], np.float64)


def ks_uniform(values, lo, hi):
    """One-sample Kolmogorov-Smirnov statistic against U[lo, hi) and its 1% critical value."""
    x = np.sort((np.asarray(values) - lo) / (hi - lo))
    n = len(x)
    d = max(np.max(np.arange(1, n + 1) / n - x), np.max(x - np.arange(n) / n))
    return d, 1.63 / math.sqrt(n)


def chi2_uniform(counts):
    counts = np.asarray(counts, np.float64)
    expected = counts.sum() / len(counts)
    return ((counts - expected) ** 2 / expected).sum()


# chi-square critical values at alpha = 0.01
CHI2_CRIT = {23: 41.64, 39: 62.43, 47: 72.44}


@pytest.fixture(scope="module")
def upstage_params():
    return [core.sample_params("upstage", 1280, 720, BOX, np.ones(1, np.int64), 7, 0, i) for i in range(N)]


def test_height_ratio_and_angle_are_uniform(upstage_params):
    ratios = [p["height_ratio"] for p in upstage_params]
    angles = [p["angle_deg"] for p in upstage_params]
    d, crit = ks_uniform(ratios, 0.8, 1.2)
    assert d < crit and min(ratios) >= 0.8 and max(ratios) < 1.2
    d, crit = ks_uniform(angles, -10, 10)
    assert d < crit and min(angles) >= -10 and max(angles) < 10
    # mean and variance within 4 sigma
    assert abs(np.mean(ratios) - 1.0) < 4 * math.sqrt(0.4**2 / 12 / N)


def test_colour_factors_and_order(upstage_params):
    colours = [p["color"] for p in upstage_params]
    applied = sum(c["applied"] for c in colours)
    assert abs(applied - N / 2) < 4 * math.sqrt(N / 4)  # p = 0.5, binomial 4 sigma
    for name, lo, hi in [("brightness", 0.5, 1.5), ("contrast", 0.5, 1.5), ("saturation", 0.5, 1.5), ("hue", -0.25, 0.25)]:
        values = [c[name] for c in colours]
        assert lo <= min(values) and max(values) <= hi, name
        d, crit = ks_uniform(values, lo, hi)
        assert d < crit, name
    perms = {}
    for c in colours:
        key = tuple(c["order"])
        perms[key] = perms.get(key, 0) + 1
    assert len(perms) == 24
    assert chi2_uniform(list(perms.values())) < CHI2_CRIT[23]


def test_sakura_always_jitters():
    colours = [core.sample_params("sakura", 1280, 720, BOX, np.ones(1, np.int64), 3, 0, i)["color"] for i in range(2000)]
    assert all(c["applied"] for c in colours)


def test_crop_start_is_discrete_uniform_without_text():
    # A text-free 1280x720 image, crop 512 after adjust/rotate: sw ~ U{0 .. 767} (the width is kept),
    # sh ~ U{0 .. remain_h - 1} where remain_h = adjusted height - 512 varies with the height ratio.
    xs, pit = [], []
    smooth = np.random.default_rng(12)  # randomized probability integral transform for sh
    for i in range(N):
        p = core.sample_params("sakura", 1280, 720, np.zeros((0, 8)), np.zeros(0, np.int64), 11, 0, i)
        w, h = p["sizes"]["upscaled"]
        sw, sh = p["crop"]
        assert p["tries"] == 1 and not p["fallback"]
        assert w == 1280 and 0 <= sw < w - 512 and 0 <= sh < h - 512
        xs.append(sw)
        pit.append((sh + smooth.random()) / (h - 512))  # exactly U[0, 1) if sh is discrete uniform
    counts = np.bincount(np.asarray(xs) // 16, minlength=48)  # 48 bins of 16 start values each
    assert len(counts) == 48
    assert chi2_uniform(counts) < CHI2_CRIT[47]
    d, crit = ks_uniform(pit, 0, 1)
    assert d < crit


def test_accepted_crops_never_cut_a_valid_word():
    words = np.array([[100 + 60 * k, 300, 150 + 60 * k, 300, 150 + 60 * k, 330, 100 + 60 * k, 330] for k in range(15)],
                     np.float64)
    labels = np.ones(len(words), np.int64)
    fallbacks = 0
    for i in range(500):
        p = core.sample_params("sakura", 1280, 720, words, labels, 5, 1, i)
        if p["fallback"]:
            fallbacks += 1
            continue
        v = p["vertices"]
        for q in v:
            xs, ys = q[0::2], q[1::2]
            inside = (xs >= 0).all() and (xs <= 512).all() and (ys >= 0).all() and (ys <= 512).all()
            outside = (xs <= 0).all() or (xs >= 512).all() or (ys <= 0).all() or (ys >= 512).all()
            assert inside or outside or not 0.01 <= _clip_fraction(q) <= 0.99
    assert fallbacks < 500


def _area(poly):
    x, y = poly[:, 0], poly[:, 1]
    return abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2


def _clip(poly, axis, bound, keep_below):
    out = []
    n = len(poly)
    for k in range(n):
        a, b = poly[k], poly[(k + 1) % n]
        ina = a[axis] <= bound if keep_below else a[axis] >= bound
        inb = b[axis] <= bound if keep_below else b[axis] >= bound
        if ina:
            out.append(a)
        if ina != inb:
            t = (bound - a[axis]) / (b[axis] - a[axis])
            out.append(a + t * (b - a))
    return np.array(out) if out else np.zeros((0, 2))


def _clip_fraction(q):
    """Exact fraction of a convex quad's area inside the crop [0, 512]^2."""
    poly = q.reshape(4, 2)
    full = _area(poly)
    for axis, bound, below in [(0, 0, False), (0, 512, True), (1, 0, False), (1, 512, True)]:
        poly = _clip(poly, axis, bound, below)
        if len(poly) < 3:
            return 0.0
    return _area(poly) / full


def test_photometric_without_jitter_is_plain_normalize():
    crop = np.random.default_rng(0).integers(0, 256, (64, 64, 3), dtype=np.uint8)
    out, params = core.photometric(crop, "upstage", 0, 0, 0, color_jitter_p=0.0)
    assert not params["applied"]
    np.testing.assert_allclose(out, (crop.transpose(2, 0, 1) / 255.0 - 0.5) / 0.5, atol=1e-6)


def test_photometric_identity_factors_and_ranges():
    crop = np.random.default_rng(1).integers(0, 256, (32, 32, 3), dtype=np.uint8)
    for i in range(50):
        out, params = core.photometric(crop, "sakura", 3, 0, i)
        assert params["applied"]
        assert out.min() >= -1.0 - 1e-6 and out.max() <= 1.0 + 1e-6


def test_color_jitter_binding_draws_from_the_seeded_stream():
    image = np.random.default_rng(2).integers(0, 256, (24, 40, 3), dtype=np.uint8)
    a, pa = core.color_jitter(image, 9, "upstage")
    b, pb = core.photometric(image, "upstage", 9, 0, 0)
    assert a.shape == (3, 24, 40) and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    assert pa == pb
    out, params = core.color_jitter(image, 9, "upstage", color_jitter_p=0.0)
    assert not params["applied"]
    np.testing.assert_allclose(out, (image.transpose(2, 0, 1) / 255.0 - 0.5) / 0.5, atol=1e-6)
