"""Profile db end to end (docs/targets.md §8.5, §4.5): the batch's tensors and names, determinism,
the targets against textfeed.reference.db_targets and the plain-Python baseline
(examples/db_paddle_pipeline.py), the epoch-dependent shrink ratio, the image against the
reference's operations replayed one at a time from the plan (reference.db_sample_params), BGR
order, the invalid_polygon policy on a dataset of defective words, and the same batches through a
cache and a daemon. Every dataset is small and written here."""

import importlib.util
import json
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np
import pytest
import torch

import textfeed
from textfeed import errors, reference
import golden_db
from support import ROOT, SAMPLE, TEXTFEED, Daemon

NAMES = ("image", "threshold_map", "threshold_mask", "shrink_map", "shrink_mask")
MEAN_BGR = np.array([0.485, 0.456, 0.406])
STD_BGR = np.array([0.229, 0.224, 0.225])
W, H = 320, 240
# ICDAR-2015 words of the synthetic images: (quad, text); '###' is ignored.
WORDS = [
    [([40, 40, 150, 36, 152, 70, 42, 76], "HELLO"), ([180, 120, 290, 130, 286, 160, 176, 150], "WORLD"),
     ([30, 180, 90, 180, 90, 200, 30, 200], "###")],
    [([60, 60, 260, 60, 260, 100, 60, 100], "TEXT"), ([100, 150, 200, 140, 204, 180, 104, 190], "MORE")],
    [([20, 20, 300, 24, 298, 60, 18, 56], "LONG"), ([50, 100, 120, 100, 120, 130, 50, 130], "A"),
     ([200, 180, 260, 176, 262, 210, 202, 214], "B"), ([150, 90, 180, 90, 180, 110, 150, 110], "###")],
]


def _baseline():
    spec = importlib.util.spec_from_file_location("db_paddle_pipeline", ROOT / "examples" / "db_paddle_pipeline.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _picture(k):
    """A smooth, colourful W x H BGR picture (so that resampling differences stay small)."""
    y, x = np.mgrid[0:H, 0:W].astype(np.float64)
    b = 128 + 100 * np.sin(x / 23.0 + k)
    g = 128 + 90 * np.cos(y / 17.0 - k)
    r = 128 + 80 * np.sin((x + y) / 31.0)
    image = np.clip(np.stack([b, g, r], -1), 0, 255).astype(np.uint8)
    for quad, _ in WORDS[k]:
        cv2.fillPoly(image, [np.array(quad, np.int32).reshape(4, 2)], (20 * k, 230, 40))
    return cv2.GaussianBlur(image, (5, 5), 1.5)


@pytest.fixture(scope="module")
def dataset():
    """An ICDAR-2015 folder of three JPEGs with their words; yields (root, {stem: (polys, ignore)})."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "db"
        (root / "images").mkdir(parents=True)
        (root / "gt").mkdir()
        truth = {}
        for k, words in enumerate(WORDS):
            cv2.imwrite(str(root / "images" / f"img_{k}.jpg"), _picture(k), [cv2.IMWRITE_JPEG_QUALITY, 97])
            lines = [",".join(str(v) for v in quad) + "," + text for quad, text in words]
            (root / "gt" / f"gt_img_{k}.txt").write_text("\n".join(lines) + "\n")
            truth[f"img_{k}"] = ([np.array(q, np.float64).reshape(4, 2) for q, _ in words],
                                 np.array([t == "###" for _, t in words]))
        yield root, truth


def _loader(path, **kw):
    args = dict(batch_size=3, profile="db", seed=5, threads=2, prefetch=2, pin_memory=False, shuffle=False)
    args.update(kw)
    return textfeed.Loader(dataset=str(path), **args)


def _first(path, epoch=0, **kw):
    with _loader(path, **kw) as loader:
        loader.set_epoch(epoch)
        return next(iter(loader))


def _rows(batch):
    """{dataset index: (image, threshold_map, threshold_mask, shrink_map, shrink_mask) as numpy}."""
    return {i: tuple(t[r].numpy().copy() for t in batch) for r, i in enumerate(batch.indices)}


# --- The batch.


def test_a_db_batch_is_image_and_four_maps_by_name(dataset):
    root, _ = dataset
    b = _first(root)
    assert b.names == NAMES
    assert [tuple(t.shape) for t in b] == [(3, 3, 640, 640)] + [(3, 640, 640)] * 4
    assert all(t.dtype == torch.float32 for t in b)
    for k, name in enumerate(NAMES):
        assert b.get(name) is b[k]
    with pytest.raises(KeyError, match="gt_score_map.*image, threshold_map, threshold_mask, shrink_map, shrink_mask"):
        b.get("gt_score_map")
    assert b.errors == []
    assert set(b.invalid_polygons.values()) == {0}
    # The maps hold what DB maps hold: thresholds in [0.3, 0.7], binary masks, text somewhere.
    tmap, tmask, smap, smask = (b.get(n).numpy() for n in NAMES[1:])
    assert tmap.min() >= 0.3 - 1e-6 and tmap.max() <= 0.7 + 1e-6
    for m in (tmask, smap, smask):
        assert set(np.unique(m)) <= {0.0, 1.0}
    assert smap.sum() > 0 and tmask.sum() > 0


def test_batches_are_a_function_of_seed_epoch_and_index(dataset):
    root, _ = dataset
    once = _rows(_first(root, batch_size=3))
    with _loader(root, batch_size=1) as loader:  # other batches, other threads: the same rows
        again = {}
        for b in loader:
            again.update(_rows(b))
    assert sorted(once) == sorted(again) == [0, 1, 2]
    for i in once:
        for a, b in zip(once[i], again[i]):
            assert np.array_equal(a, b), i
    other_epoch = _rows(_first(root, epoch=1))
    other_seed = _rows(_first(root, seed=6))
    for i in once:
        assert not np.array_equal(once[i][0], other_epoch[i][0])
        assert not np.array_equal(once[i][0], other_seed[i][0])


# --- The targets.


def _check_targets(batch, ratio, baseline=None):
    for r in range(len(batch.indices)):
        polys, ignore = batch.polygons[r], batch.ignore[r]
        want = reference.db_targets(polys, ignore, (640, 640), shrink_ratio=ratio)
        for name in NAMES[2:]:
            assert np.array_equal(batch.get(name)[r].numpy(), want[name]), (r, name, ratio)
        # The Loader computed from float64 polygons and returns them as float32 (a few 1e-5 px away):
        # the threshold map, continuous in them, moves by about 1e-6. test_image_and_polygons_...
        # holds it exactly equal on the float64 polygons of the plan.
        assert np.abs(batch.get("threshold_map")[r].numpy() - want["threshold_map"]).max() <= 1e-5, (r, ratio)
        if baseline is not None:
            base = baseline.db_targets(baseline.pad_polygons(polys), np.asarray(ignore), (640, 640), ratio)
            assert np.abs(base["threshold_map"] - want["threshold_map"]).max() <= 1e-6
            for name in ("threshold_mask", "shrink_map", "shrink_mask"):
                assert np.array_equal(base[name], want[name]), (r, name)


def test_targets_equal_the_reference_and_the_baseline(dataset):
    root, _ = dataset
    baseline = _baseline()
    for epoch in (0, 1):
        b = _first(root, epoch=epoch, return_polygons=True)
        assert sum(len(p) for p in b.polygons) > 0
        _check_targets(b, 0.4, baseline)


def test_the_sample_dataset_targets_equal_the_reference(dataset):
    b = _first(SAMPLE, batch_size=4, return_polygons=True)
    assert sum(len(p) for p in b.polygons) > 4
    _check_targets(b, 0.4, _baseline())


def test_total_epochs_grows_the_shrink_ratio(dataset):
    root, _ = dataset
    grown = _first(root, epoch=5, total_epochs=10, return_polygons=True)
    _check_targets(grown, 0.4 + 0.2 * 5 / 10)
    plain = _first(root, epoch=5, return_polygons=True)
    _check_targets(plain, 0.4)
    # The same plan at both ratios: the shrink map differs, the image does not.
    assert torch.equal(grown.get("image"), plain.get("image"))
    assert not torch.equal(grown.get("shrink_map"), plain.get("shrink_map"))
    with pytest.raises(AssertionError):
        _check_targets(grown, 0.4)


# --- The image and the polygons, against the plan replayed step by step.



def _denormalize(chw):
    """The Loader's normalized BGR CHW image back to HWC grey levels (float)."""
    return (chw.transpose(1, 2, 0) * STD_BGR + MEAN_BGR) * 255.0


def test_image_and_polygons_follow_the_plan_step_by_step(dataset):
    root, truth = dataset
    seed, psnrs = 11, []
    flips = set()
    for epoch in (0, 1, 2):
        b = _first(root, epoch=epoch, seed=seed, return_polygons=True)
        for r, index in enumerate(b.indices):
            stem = Path(b.image_ids[r]).stem
            polys, ignore = truth[stem]
            image = cv2.imread(str(root / "images" / f"{stem}.jpg"), cv2.IMREAD_COLOR)
            p = reference.db_sample_params(W, H, polys, ignore, seed, epoch, index)
            # The polygons: imgaug's keypoint map of each kept word, then the crop.
            x, y = p["crop_xywh"][:2]
            kept = [i for i, k in enumerate(p["kept"]) if k]
            assert len(b.polygons[r]) == len(kept), (epoch, index)
            assert b.ignore[r].tolist() == [bool(ignore[i]) for i in kept]
            for i, got in zip(kept, b.polygons[r]):
                mapped, wh = reference.db_map_keypoints(polys[i], W, H, flip=p["flip"], angle_deg=p["angle_deg"],
                                                        resize=p["resize"])
                assert wh == tuple(p["resized_wh"])
                assert np.abs(got - (mapped - (x, y)) * p["scale"]).max() <= 1e-3, (epoch, index, i)
            # The targets: exactly the reference's on the plan's (float64) polygons.
            want_maps = reference.db_targets(p["polys"], p["ignore_tags"], (640, 640))
            for name in NAMES[1:]:
                assert np.array_equal(b.get(name)[r].numpy(), want_maps[name]), (epoch, index, name)
            # The pixels: statistically those of the reference's three resamplings.
            got = _denormalize(b.get("image")[r].numpy())
            ow, oh = p["out_wh"]
            outside = np.concatenate([got[oh:].reshape(-1), got[:, ow:].reshape(-1)])
            assert np.abs(outside).max(initial=0) < 1e-3  # black outside the resized crop
            want = golden_db.step_by_step_canvas(image, p)
            mse = np.mean((got[:oh, :ow] - want[:oh, :ow]) ** 2)
            psnrs.append(10 * np.log10(255.0**2 / max(mse, 1e-12)))
            assert psnrs[-1] > 30, (epoch, index, psnrs[-1], p)
            flips.add(bool(p["flip"]))
    assert len(psnrs) == 9 and flips == {False, True}


def test_a_wrong_plan_does_not_pass_for_the_right_one(dataset):
    """The comparison above can fail: another sample's plan gives other pixels."""
    root, truth = dataset
    b = _first(root, seed=11, return_polygons=True)
    stem = Path(b.image_ids[0]).stem
    polys, ignore = truth[stem]
    image = cv2.imread(str(root / "images" / f"{stem}.jpg"), cv2.IMREAD_COLOR)
    p = reference.db_sample_params(W, H, polys, ignore, 11, 0, b.indices[0] + 100)
    got = _denormalize(b.get("image")[0].numpy())
    ow, oh = p["out_wh"]
    mse = np.mean((got[:oh, :ow] - golden_db.step_by_step_canvas(image, p)[:oh, :ow]) ** 2)
    assert 10 * np.log10(255.0**2 / max(mse, 1e-12)) < 25


def test_channel_zero_is_blue_normalized_with_the_first_mean(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "gt").mkdir()
    bgr = (200, 100, 30)
    cv2.imwrite(str(tmp_path / "images" / "img_1.png"), np.full((H, W, 3), bgr, np.uint8))
    (tmp_path / "gt" / "gt_img_1.txt").write_text("100,100,200,100,200,140,100,140,WORD\n")
    b = _first(tmp_path, batch_size=1, flip_p=0.0, rotate_deg=0.0, return_polygons=True)
    inside = b.get("image")[0].numpy()[:, :8, :8]  # the top-left corner is always inside the crop
    for c in range(3):
        want = (bgr[c] / 255.0 - MEAN_BGR[c]) / STD_BGR[c]
        assert np.abs(inside[c] - want).max() < 1e-5, c
    assert inside[0].mean() > 1.0 > inside[2].mean()  # RGB order would put red (30) first


# --- The invalid_polygon policy.

# The bow-tie crosses itself at a point float32 holds exactly, so that its repaired ring comes back
# from return_polygons (float32) unrounded: the threshold map is not continuous at a pixel on an edge
# (PaddleOCR's NaN of a slightly negative sin², docs/targets.md §4.1), so a rounded vertex can move it.
BOWTIE = [[40, 30], [140, 80], [140, 40], [40, 90]]     # edges 0-1 and 2-3 cross at (100, 60): lobes of 1800, 800 px²
LINE = [[30, 150], [80, 160], [130, 170], [180, 180]]   # collinear: degenerate
OUTSIDE = [[400, 400], [450, 400], [450, 430], [400, 430]]  # wholly right of and below the image
GOOD = [[200, 40], [280, 40], [280, 90], [200, 90]]


def _paddle_dataset(root):
    """A PaddleOCR label file of one smooth picture with a good word and three defective ones."""
    (root / "imgs").mkdir(parents=True)
    cv2.imwrite(str(root / "imgs" / "a.png"), _picture(0))
    words = [{"transcription": t, "points": p} for t, p in
             (("GOOD", GOOD), ("BOW", BOWTIE), ("LINE", LINE), ("OUT", OUTSIDE))]
    (root / "train_label.txt").write_text("imgs/a.png\t" + json.dumps(words) + "\n")
    return root / "train_label.txt"


def _policy_batch(path, policy):
    # No flip, rotation or resize, and the whole image as the crop, so that words stay where they are.
    return _first(path, batch_size=1, invalid_polygon=policy, flip_p=0.0, rotate_deg=0.0, resize=(1, 1),
                  min_crop_side=1.0, return_polygons=True)


def test_defective_words_are_counted_and_follow_the_policy(tmp_path):
    path = _paddle_dataset(tmp_path)
    got = {}
    for policy in ("keep", "ignore", "repair"):
        b = _policy_batch(path, policy)
        assert b.errors == []
        c = b.invalid_polygons
        assert (c["non_finite"], c["degenerate"], c["out_of_image"], c["self_intersecting"]) == (0, 1, 1, 1), policy
        got[policy] = b
    assert got["keep"].invalid_polygons["ignored"] == got["keep"].invalid_polygons["repaired"] == 0
    assert got["ignore"].invalid_polygons["ignored"] == 3 and got["ignore"].invalid_polygons["repaired"] == 0
    assert got["repair"].invalid_polygons["repaired"] == 1 and got["repair"].invalid_polygons["ignored"] == 2
    scale = 640 / W  # the whole image, resized to fill the canvas's width

    def find(b, word):
        want = np.array(word, np.float32) * scale
        hits = [k for k, p in enumerate(b.polygons[0]) if p.shape == want.shape and np.abs(p - want).max() < 1e-3]
        return hits[0] if hits else None

    keep, ignore, repair = got["keep"], got["ignore"], got["repair"]
    for b in got.values():  # whatever the policy, the targets are the reference's on what it left
        _check_targets(b, 0.4)
        assert find(b, OUTSIDE) is None  # out of the image, so out of the crop
    # keep: the bow-tie and the line stay valid words as they were, for the targets to treat as the
    # reference does (checked above).
    for word in (BOWTIE, LINE):
        k = find(keep, word)
        assert k is not None and not keep.ignore[0][k], word
    lobe = np.zeros((640, 640), np.uint8)
    cv2.fillPoly(lobe, [np.round(np.array([[46, 40], [90, 60], [46, 80]]) * scale).astype(np.int32)], 1)
    lobe = lobe.astype(bool)  # inside the larger lobe
    # ignore: both are ignored words, masked out of the shrink mask where they lie.
    for word in (BOWTIE, LINE):
        k = find(ignore, word)
        assert k is not None and ignore.ignore[0][k], word
    assert ignore.get("shrink_mask")[0].numpy()[lobe].max() == 0
    good = np.zeros((640, 640), np.uint8)
    cv2.fillPoly(good, [np.round(np.array([[215, 55], [265, 55], [265, 75], [215, 75]]) * scale).astype(np.int32)], 1)
    for b in got.values():
        assert b.get("shrink_map")[0].numpy()[good.astype(bool)].min() == 1  # the good word is text
    # repair: the bow-tie becomes the larger lobe of its make-valid, a valid word
    # with text in its shrink map.
    assert find(repair, BOWTIE) is None and find(repair, LINE) is not None
    known = {find(repair, GOOD), find(repair, LINE)}
    ring = [p for k, p in enumerate(repair.polygons[0]) if k not in known]
    assert len(ring) == 1 and len(repair.polygons[0]) == 3
    assert not repair.ignore[0][[k for k in range(3) if k not in known][0]]
    x, y = ring[0][:, 0], ring[0][:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    assert abs(area - 1800 * scale**2) < 1e-2  # the larger lobe: a triangle of base 60, height 60
    assert repair.get("shrink_map")[0].numpy()[lobe].max() == 1


def _inspect(path):
    proc = subprocess.run([TEXTFEED, "inspect", str(path), "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_nan_coordinate_is_refused_by_the_reader(tmp_path):
    """A NaN never reaches the policy: the readers list its record as bad, and the Loader trains on
    the rest (non_finite stays 0; the policy's non_finite is for coordinates past 1e6 px)."""
    (tmp_path / "gt").mkdir()
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "img_1.png"), _picture(0))
    (tmp_path / "gt" / "gt_img_1.txt").write_text("1,2,nan,4,5,6,7,8,WORD\n40,40,150,36,152,70,42,76,OK\n")
    bad = _inspect(tmp_path)["bad_records"]
    assert len(bad) == 1 and bad[0]["file"] == "gt/gt_img_1.txt" and bad[0]["line"] == 1
    assert "not a finite number" in bad[0]["reason"]
    b = _first(tmp_path, batch_size=1, return_polygons=True)
    assert b.errors == [] and set(b.invalid_polygons.values()) == {0}
    assert len(b.polygons[0]) <= 1
    paddle = tmp_path / "paddle"
    path = _paddle_dataset(paddle)
    path.write_text(path.read_text().replace("[400, 400]", "[NaN, 400]"))
    bad = _inspect(path)["bad_records"]
    assert len(bad) == 1 and bad[0]["file"] == "train_label.txt" and bad[0]["line"] == 1
    assert "not valid JSON" in bad[0]["reason"]


@pytest.mark.parametrize("make", ["ctw1500", "totaltext"])
def test_a_nan_in_a_curved_word_is_refused_by_its_reader(tmp_path, make):
    root, _, _ = {"ctw1500": _ctw1500, "totaltext": _totaltext}[make](tmp_path / "ds")
    (gt,) = (root / "gt").iterdir()
    lines = gt.read_text().splitlines()
    first = lines[0].split(",", 1) if make == "ctw1500" else lines[0].split(" ", 2)
    lines[0] = (f"nan,{first[1]}" if make == "ctw1500" else f"{first[0]} [[nan {first[2]}")
    gt.write_text("\n".join(lines) + "\n")
    bad = _inspect(root)["bad_records"]
    assert len(bad) == 1 and bad[0]["file"] == f"gt/{gt.name}" and bad[0]["line"] == 1, bad
    b = _first(root, batch_size=1, return_polygons=True)
    assert b.errors == [] and b.invalid_polygons["non_finite"] == 0


def test_a_huge_coordinate_is_counted_non_finite_and_dropped(tmp_path):
    path = _paddle_dataset(tmp_path)
    path.write_text(path.read_text().replace("[400, 400]", "[4000000, 400]"))
    for policy in ("keep", "ignore", "repair"):
        b = _policy_batch(path, policy)
        assert b.errors == []
        assert b.invalid_polygons["non_finite"] == 1 and b.invalid_polygons["ignored"] >= 1, policy
        assert all(np.abs(p).max() < 1e4 for p in b.polygons[0])


# --- Cache and daemon.


def _same_batches(a, b, images_exact=True):
    assert a.names == b.names and a.indices == b.indices
    for name in NAMES[1:]:
        assert torch.equal(a.get(name), b.get(name)), name
    if images_exact:
        assert torch.equal(a.get("image"), b.get("image"))
    if a.polygons is not None and b.polygons is not None:
        for pa, pb in zip(a.polygons, b.polygons):
            assert len(pa) == len(pb) and all(np.array_equal(x, y) for x, y in zip(pa, pb))


@pytest.mark.parametrize("codec", ["raw", "jpeg"])
def test_a_db_cache_gives_the_batches_the_dataset_gives(dataset, tmp_path, codec):
    root, _ = dataset
    out = tmp_path / "db.tfc"
    proc = subprocess.run([TEXTFEED, "cache", "build", "--dataset", str(root), "--out", str(out), "--profile", "db",
                           "--image-size", "0", "--codec", codec, "--threads", "2"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for epoch in (0, 2):
        direct = _first(root, epoch=epoch, return_polygons=True)
        cached = _first(out, epoch=epoch, return_polygons=True)
        _same_batches(direct, cached, images_exact=codec == "raw")
        if codec == "jpeg":
            assert _psnr(direct.get("image"), cached.get("image")) > 35


def _psnr(a, b):
    """PSNR (dB) of two normalized BGR batches, on their grey levels."""
    diff = (a - b).numpy().transpose(0, 2, 3, 1) * STD_BGR * 255.0
    return 10 * np.log10(255.0**2 / max(float(np.mean(diff**2)), 1e-12))


def test_a_db_cache_of_large_jpegs_differs_only_by_the_dct_scale(tmp_path):
    """ICDAR-size JPEGs: read from the dataset, a plan that shrinks them decodes at a DCT scale;
    the cache's pixels are full size. Maps and polygons are the same, the pixels close."""
    out = tmp_path / "sample.tfc"
    proc = subprocess.run([TEXTFEED, "cache", "build", "--dataset", str(SAMPLE), "--out", str(out), "--profile", "db",
                           "--image-size", "0", "--threads", "2"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    direct = _first(SAMPLE, batch_size=4, return_polygons=True)
    cached = _first(out, batch_size=4, return_polygons=True)
    _same_batches(direct, cached, images_exact=False)
    assert _psnr(direct.get("image"), cached.get("image")) > 30


def test_a_daemon_gives_the_batches_in_process_gives(tmp_path):
    daemon = Daemon(tmp_path, threads=2)
    daemon.start()
    try:
        kw = dict(batch_size=4, profile="db", seed=3, shuffle=False, prefetch=2, pin_memory=False, return_polygons=True)
        with textfeed.Loader(daemon.endpoint, dataset="icdar", **kw) as remote:
            remote.set_epoch(1)
            served = [b for _, b in zip(range(2), remote)]
        with textfeed.Loader(dataset=str(SAMPLE), threads=2, **kw) as local:
            local.set_epoch(1)
            made = [b for _, b in zip(range(2), local)]
    finally:
        daemon.stop()
    assert len(served) == len(made) == 2
    for a, b in zip(served, made):
        assert a.epoch == b.epoch == 1
        assert a.polygons is not None and b.polygons is not None
        _same_batches(a, b)
        assert a.errors == b.errors == [] and a.invalid_polygons == b.invalid_polygons


# --- Curved-text datasets: every point of every word through the db chain.


def _curve(x0, y0, length, height, points):
    """A curved word of `points` points (an upper arc left to right, then the lower one back)."""
    half = points // 2
    t = np.linspace(0, 1, half)
    upper = np.stack([x0 + length * t, y0 + 12 * np.sin(np.pi * t)], 1)
    lower = upper[::-1] + (0, height)
    return np.round(np.concatenate([upper, lower]), 1)


CURVES = [_curve(30, 30, 200, 30, 14), _curve(60, 120, 180, 40, 14), _curve(200, 190, 90, 24, 10)]


def _ctw1500(root):
    (root / "images").mkdir(parents=True)
    (root / "gt").mkdir()
    cv2.imwrite(str(root / "images" / "0001.jpg"), _picture(1), [cv2.IMWRITE_JPEG_QUALITY, 97])
    words = CURVES[:2]  # CTW1500: 14 points each
    lines = [",".join(f"{v:g}" for v in w.reshape(-1)) + ",####" + text for w, text in zip(words, ("CURVE", "###"))]
    (root / "gt" / "0001.txt").write_text("\n".join(lines) + "\n")
    return root, words, np.array([False, True])


def _totaltext(root):
    (root / "images").mkdir(parents=True)
    (root / "gt").mkdir()
    cv2.imwrite(str(root / "images" / "img1.jpg"), _picture(2), [cv2.IMWRITE_JPEG_QUALITY, 97])

    def record(w, text):
        xs, ys = " ".join(f"{v:g}" for v in w[:, 0]), " ".join(f"{v:g}" for v in w[:, 1])
        return f"x: [[{xs}]], y: [[{ys}]], ornt: [u'c'], transcriptions: [u'{text}']"

    texts = ("ONE", "TWO", "#")
    (root / "gt" / "poly_gt_img1.txt").write_text("\n".join(record(w, t) for w, t in zip(CURVES, texts)) + "\n")
    return root, CURVES, np.array([False, False, True])


@pytest.mark.parametrize("make", [_ctw1500, _totaltext], ids=["ctw1500", "totaltext"])
def test_curved_words_keep_their_points_through_the_db_profile(tmp_path, make):
    root, words, ignore = make(tmp_path / "ds")
    words = [w.astype(np.float32).astype(np.float64) for w in words]  # the readers keep float32 points
    seed, counts = 4, set()
    for epoch in range(3):
        b = _first(root, epoch=epoch, seed=seed, batch_size=1, return_polygons=True)
        assert b.errors == [] and set(b.invalid_polygons.values()) == {0}
        p = reference.db_sample_params(W, H, words, ignore, seed, epoch, b.indices[0])
        kept = [i for i, k in enumerate(p["kept"]) if k]
        assert [len(q) for q in b.polygons[0]] == [len(words[i]) for i in kept]
        counts.update(len(q) for q in b.polygons[0])
        assert b.ignore[0].tolist() == [bool(ignore[i]) for i in kept]
        for got, want in zip(b.polygons[0], p["polys"]):
            assert np.abs(got - want).max() <= 1e-3
        want_maps = reference.db_targets(p["polys"], p["ignore_tags"], (640, 640))
        for name in NAMES[1:]:
            assert np.array_equal(b.get(name)[0].numpy(), want_maps[name]), (epoch, name)
    assert 14 in counts
