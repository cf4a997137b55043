"""PaddleOCR's DB geometric chain: EastRandomCropData replayed against its goldens
(tests/golden/db_crop, README there) and against an independent NumPy transcription of the
reference semantics on held-out seeds; imgaug 0.4.0's keypoint mapping of known draws; the
distributions of the pipeline's own draws (KS); clear errors for bad arguments."""

import math

import cv2
import numpy as np
import pytest

import golden_db
from textfeed import errors, reference

CASES = golden_db.index()


def _stack(polys, like):
    """The output polygons as the golden's (K, P, 2) array (or (0,) when none is kept)."""
    if not polys:
        return np.zeros((0,) + like.shape[1:]) if like.ndim == 3 else np.zeros(0)
    return np.stack(polys)


@pytest.mark.parametrize("entry", CASES, ids=lambda e: e["file"][:-4])
def test_crop_replay_matches_the_golden(entry):
    ref = golden_db.load(golden_db.GOLDEN / entry["file"], entry["image"])
    image = None
    if "image_out" in ref:
        image = cv2.imread(str(golden_db.SAMPLE_IMAGES / entry["image"]), cv2.IMREAD_COLOR)
    out = reference.replay_db_crop(tuple(ref["image_hw"]), ref["polys"], ref["ignore_tags"], int(ref["seed"]),
                                   image=image)
    assert list(out["crop_xywh"]) == ref["crop_xywh"].tolist()
    assert out["kept"].tolist() == ref["kept"].tolist()
    assert out["ignore_tags"].tolist() == ref["ignore_tags_out"].tolist()
    assert abs(out["scale"] - float(ref["scale"])) <= 1e-9
    got = _stack(out["polys"], ref["polys_out"])
    assert got.shape == ref["polys_out"].shape
    if got.size:
        assert np.abs(got - ref["polys_out"]).max() <= 1e-4
    if image is not None:
        diff = np.abs(out["image"].astype(np.int16) - ref["image_out"].astype(np.int16))
        assert diff.max() <= 1


# --- An independent NumPy transcription of crop_area + the placement (docs/targets.md), run with
# --- np.random.RandomState as the reference runs np.random after np.random.seed.


def _regions(axis):
    out, first = [], 0
    for i in range(1, len(axis)):
        if axis[i] != axis[i - 1] + 1:
            out.append(axis[first:i])
            first = i
    return out  # the last run is never appended


def _pair(rs, axis, regions, size):
    if len(regions) > 1:
        picks = [int(rs.choice(regions[r], size=1)[0]) for r in list(rs.choice(len(regions), 2))]
        return min(picks), max(picks)
    xx = rs.choice(axis, size=2)
    return int(np.clip(xx.min(), 0, size - 1)), int(np.clip(xx.max(), 0, size - 1))


def _outside(p, x, y, w, h):
    return p[:, 0].max() < x or p[:, 0].min() > x + w or p[:, 1].max() < y or p[:, 1].min() > y + h


def _crop_area(rs, h, w, care, ratio=0.1, tries=50):
    h_arr, w_arr = np.zeros(h, np.int32), np.zeros(w, np.int32)
    for p in care:
        with np.errstate(invalid="ignore"):  # beyond int32 the cast gives -2**31, as in the reference
            r = np.round(p, decimals=0).astype(np.int32)
        w_arr[r[:, 0].min() : r[:, 0].max()] = 1
        h_arr[r[:, 1].min() : r[:, 1].max()] = 1
    h_axis, w_axis = np.where(h_arr == 0)[0], np.where(w_arr == 0)[0]
    if len(h_axis) == 0 or len(w_axis) == 0:
        return 0, 0, w, h
    h_reg, w_reg = _regions(h_axis), _regions(w_axis)
    for _ in range(tries):
        x0, x1 = _pair(rs, w_axis, w_reg, w)
        y0, y1 = _pair(rs, h_axis, h_reg, h)
        if x1 - x0 < ratio * w or y1 - y0 < ratio * h:
            continue
        if any(not _outside(p, x0, y0, x1 - x0, y1 - y0) for p in care):
            return x0, y0, x1 - x0, y1 - y0
    return 0, 0, w, h


def _random_case(rng):
    h, w = int(rng.integers(40, 1400)), int(rng.integers(40, 1400))
    polys, tags = [], []
    for _ in range(int(rng.integers(0, 12))):
        n = int(rng.choice([4, 4, 6, 14]))
        cx, cy = rng.uniform(-0.2, 1.2) * w, rng.uniform(-0.2, 1.2) * h
        rx, ry = rng.uniform(2, 0.3 * w), rng.uniform(2, 0.2 * h)
        t = np.sort(rng.uniform(0, 2 * np.pi, n))
        pts = np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], 1)
        if rng.uniform() < 0.5:
            pts = np.round(pts) + rng.choice([0.0, 0.5], size=pts.shape)  # exact halves: half-to-even
        if rng.uniform() < 0.08:
            pts[0, int(rng.integers(0, 2))] = rng.choice([-1, 1]) * rng.uniform(3e9, 1e12)  # beyond int32
        polys.append(pts)
        tags.append(bool(rng.uniform() < 0.2))
    return h, w, polys, np.array(tags, bool)


@pytest.mark.parametrize("block", range(4))
def test_crop_replay_matches_a_numpy_transcription_on_other_seeds(block):
    rng = np.random.default_rng(1000 + block)
    for _ in range(60):
        h, w, polys, tags = _random_case(rng)
        seed = int(rng.integers(0, 2**32))
        care = [p for p, t in zip(polys, tags) if not t]
        x, y, cw, ch = _crop_area(np.random.RandomState(seed), h, w, care)
        scale = min(640 / cw, 640 / ch)
        ow, oh = int(cw * scale), int(ch * scale)
        moved = [(p - (x, y)) * scale for p in polys]
        kept = [not _outside(p, 0, 0, ow, oh) for p in moved]
        out = reference.replay_db_crop((h, w), polys, tags, seed)
        assert tuple(out["crop_xywh"]) == (x, y, cw, ch), (h, w, seed)
        assert out["scale"] == scale
        assert out["kept"].tolist() == kept
        assert out["ignore_tags"].tolist() == [bool(t) for t, k in zip(tags, kept) if k]
        for got, want in zip(out["polys"], [m for m, k in zip(moved, kept) if k]):
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_the_canvas_is_the_crop_resized_into_the_top_left():
    image = np.random.default_rng(3).integers(0, 256, (300, 500, 3), dtype=np.uint8)
    polys = [np.array([[100, 100], [180, 100], [180, 130], [100, 130]], float)]
    out = reference.replay_db_crop((300, 500), polys, [False], 7, image=image)
    x, y, w, h = out["crop_xywh"]
    ow, oh = int(w * out["scale"]), int(h * out["scale"])
    want = np.zeros((640, 640, 3), np.uint8)
    want[:oh, :ow] = cv2.resize(image[y : y + h, x : x + w], (ow, oh))
    assert np.abs(out["image"].astype(int) - want).max() <= 1


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(image_hw=(0, 10)), errors.InvalidArgumentError),
        (dict(image_hw=5), errors.ArgumentTypeError),
        (dict(polys=np.zeros((2, 4, 3))), errors.InvalidArgumentError),
        (dict(polys=[np.zeros((0, 2))]), errors.InvalidArgumentError),
        (dict(polys=[np.array([[1.0, np.nan]])]), errors.InvalidArgumentError),
        (dict(polys="abc"), errors.ArgumentTypeError),
        (dict(ignore_tags=[False, True]), errors.InvalidArgumentError),
        (dict(seed=-1), errors.InvalidArgumentError),
        (dict(seed=2**32), errors.InvalidArgumentError),
        (dict(seed=1.5), errors.ArgumentTypeError),
        (dict(min_crop_side_ratio=0.0), errors.InvalidArgumentError),
        (dict(size=0), errors.InvalidArgumentError),
        (dict(max_tries=-1), errors.InvalidArgumentError),
        (dict(image=np.zeros((10, 10, 3), np.uint8)), errors.InvalidArgumentError),
        (dict(image=np.zeros((100, 200, 3), np.float32)), errors.ArgumentTypeError),
    ],
)
def test_bad_arguments_are_named(kwargs, error):
    args = dict(image_hw=(100, 200), polys=[np.array([[10, 10], [50, 10], [50, 30]], float)], ignore_tags=[False],
                seed=1)
    args.update(kwargs)
    with pytest.raises(error):
        reference.replay_db_crop(**args)


# --- imgaug 0.4.0's keypoint mapping (docs/targets.md "DB crop and imgaug geometry").


def _imgaug_steps(points, w, h, flip, angle, resize):
    """The three steps one at a time, in float64, as derived from imgaug's source."""
    p = np.array(points, float).copy()
    if flip:
        p[:, 0] = w - p[:, 0]
    rad = float(np.deg2rad(np.float32(angle)))
    c, s = math.cos(rad), math.sin(rad)
    m = np.array([[c, -s, w / 2 - c * w / 2 + s * h / 2], [s, c, h / 2 - s * w / 2 - c * h / 2], [0, 0, 1]])
    if np.mean(np.abs(np.eye(3) - m)) > 1e-4:
        p = p @ m[:2, :2].T + m[:2, 2]
    nw, nh = max(int(np.round(w * np.float32(resize))), 1), max(int(np.round(h * np.float32(resize))), 1)
    if (nw, nh) != (w, h):
        p = p / (w, h) * (nw, nh)
    return p, (nw, nh)


def test_known_draws_map_keypoints_as_hand_computed():
    pts = [[10, 20], [0, 0], [100, 50]]
    got, wh = reference.db_map_keypoints(pts, 100, 50, flip=True, angle_deg=0, resize=1)
    np.testing.assert_allclose(got, [[90, 20], [100, 0], [0, 50]], atol=1e-9)
    got, wh = reference.db_map_keypoints([[60, 25], [0, 0]], 100, 50, flip=False, angle_deg=90, resize=1)
    np.testing.assert_allclose(got, [[50, 35], [75, -25]], atol=1e-5)
    got, wh = reference.db_map_keypoints([[10, 20]], 100, 50, flip=True, angle_deg=90, resize=2)
    np.testing.assert_allclose(got, [[110, 130]], atol=1e-5)
    assert wh == (200, 100)
    got, wh = reference.db_map_keypoints([[5, 7]], 5, 7, flip=False, angle_deg=0, resize=0.5)
    assert wh == (2, 4)  # 2.5 -> 2 and 3.5 -> 4: half to even
    np.testing.assert_allclose(got, [[2, 4]], atol=1e-9)


def test_random_draws_map_keypoints_as_the_step_by_step_mapping():
    rng = np.random.default_rng(5)
    for _ in range(300):
        w, h = int(rng.integers(1, 2000)), int(rng.integers(1, 2000))
        pts = rng.uniform(-100, 2100, (int(rng.integers(1, 20)), 2))
        flip, angle, resize = bool(rng.uniform() < 0.5), float(rng.uniform(-10, 10)), float(rng.uniform(0.5, 3))
        got, wh = reference.db_map_keypoints(pts, w, h, flip=flip, angle_deg=angle, resize=resize)
        want, want_wh = _imgaug_steps(pts, w, h, flip, angle, resize)
        assert wh == want_wh
        assert np.abs(got - want).max() <= 1e-3


# --- The pipeline's own draws: Fliplr(p=0.5), Affine(rotate=U(-10, 10)), Resize(U(0.5, 3)).


def _ks(samples, cdf):
    x = np.sort(np.asarray(samples, float))
    n = len(x)
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


def test_draws_follow_their_distributions():
    polys = [np.array([[30, 30], [90, 30], [90, 50], [30, 50]], float)]
    n = 2000
    flips, angles, sizes = [], [], []
    for index in range(n):
        p = reference.db_sample_params(320, 240, polys, [False], 123, 0, index)
        flips.append(p["flip"])
        angles.append(p["angle_deg"])
        sizes.append(p["resize"])
        assert p["resized_wh"] == (max(int(np.round(320 * p["resize"])), 1), max(int(np.round(240 * p["resize"])), 1))
    limit = 1.95 / math.sqrt(n)  # alpha = 0.001
    assert _ks(angles, lambda x: (x + 10) / 20) < limit
    assert _ks(sizes, lambda x: (x - 0.5) / 2.5) < limit
    assert abs(sum(flips) - n / 2) < 4 * math.sqrt(n / 4)
    # And they are not constant or stuck: the KS statistic against a wrong law is large.
    assert _ks(angles, lambda x: np.clip((x + 5) / 10, 0, 1)) > 0.2


def test_the_plan_follows_the_keypoint_map_and_the_crop():
    polys = [np.array([[30, 30], [90, 30], [90, 50], [60, 56], [30, 50]], float),
             np.array([[200, 150], [260, 150], [260, 170], [200, 170]], float)]
    for index in range(40):
        p = reference.db_sample_params(320, 240, polys, [False, True], 9, 1, index)
        kept = [i for i, k in enumerate(p["kept"]) if k]
        x, y = p["crop_xywh"][:2]
        for i, got in zip(kept, p["polys"]):
            mapped, wh = reference.db_map_keypoints(polys[i], 320, 240, flip=p["flip"], angle_deg=p["angle_deg"],
                                                    resize=p["resize"])
            assert wh == p["resized_wh"]
            np.testing.assert_allclose(got, (mapped - (x, y)) * p["scale"], rtol=0, atol=1e-9)



def test_the_one_warp_canvas_is_close_to_the_three_resamplings():
    image = cv2.imread(str(golden_db.SAMPLE_IMAGES / "img_1.jpg"), cv2.IMREAD_COLOR)
    h, w = image.shape[:2]
    polys = [np.array([[300, 200], [500, 200], [500, 260], [300, 260]], float)]
    for index in range(6):
        p = reference.db_sample_params(w, h, polys, [False], 17, 0, index, image=image)
        want = golden_db.step_by_step_canvas(image, p)
        ow, oh = p["out_wh"]
        assert not p["image"][oh:].any() and not p["image"][:, ow:].any()
        diff = p["image"][:oh, :ow].astype(np.float64) - want[:oh, :ow]
        psnr = 10 * np.log10(255.0**2 / max(np.mean(diff**2), 1e-12))
        assert psnr > 38, (index, psnr)  # measured 41-51 dB


def test_extreme_inputs_give_a_box_inside_the_image():
    rng = np.random.default_rng(11)
    for _ in range(300):
        h, w = int(rng.integers(1, 30)), int(rng.integers(1, 30))
        polys = [rng.uniform(-1e12, 1e12, (int(rng.integers(1, 5)), 2)) * rng.choice([1e-12, 1e-6, 1.0])
                 for _ in range(int(rng.integers(0, 5)))]
        tags = rng.uniform(size=len(polys)) < 0.3
        out = reference.replay_db_crop((h, w), polys, tags, int(rng.integers(0, 2**32)))
        x, y, cw, ch = out["crop_xywh"]
        assert 0 <= x and 0 <= y and cw >= 1 and ch >= 1 and x + cw <= w and y + ch <= h
        assert len(out["polys"]) == int(out["kept"].sum()) == len(out["ignore_tags"])
        p = reference.db_sample_params(w, h, polys, tags, 1, 0, int(rng.integers(0, 2**40)))
        x, y, cw, ch = p["crop_xywh"]
        assert x + cw <= p["resized_wh"][0] and y + ch <= p["resized_wh"][1]
        assert np.isfinite(p["matrix"]).all()
