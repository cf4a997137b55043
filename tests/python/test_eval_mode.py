"""Loader(mode="eval"): deterministic batches, each profile's reference inference preprocessing
(reimplemented here with the libraries the references call: OpenCV for upstage's detect(), PIL for
SakuraRiven's resize_img), polygons and scales that map back to the original pixels, every sample
exactly once over 2 and 3 ranks (in process and through a daemon); return_polygons in training."""

import json

import cv2
import numpy as np
import pytest
import torch
from PIL import Image

import textfeed
from textfeed import errors
from support import SAMPLE, Daemon

# (width, height) of the generated images: every aspect, sides on and off multiples of 32.
SIZES = [(300, 200), (157, 311), (640, 480), (97, 64), (512, 512), (333, 129), (64, 250)]
CANVAS = 640
IMAGENET_MEAN, IMAGENET_STD = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])


def _quad(rng, w, h):
    x0, y0 = int(rng.integers(0, w // 2)), int(rng.integers(0, h // 2))
    x1, y1 = int(rng.integers(x0 + 4, w)), int(rng.integers(y0 + 4, h))
    return [x0, y0, x1, y0, x1, y1, x0, y1]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """An ICDAR-2015 folder of lossless PNGs (so that the decode is exact on both sides) with the
    words each image has: {image name: (rgb array, [(8 coordinates, ignored)])}."""
    root = tmp_path_factory.mktemp("evalset")
    (root / "images").mkdir()
    (root / "gt").mkdir()
    rng = np.random.default_rng(3)
    truth = {}
    for i, (w, h) in enumerate(SIZES):
        # A smooth gradient plus noise: resampling differences show, and nothing saturates.
        yy, xx = np.mgrid[0:h, 0:w]
        base = np.stack([xx * 200 // w, yy * 200 // h, (xx + yy) * 100 // (w + h)], axis=-1)
        rgb = np.clip(base + rng.integers(0, 56, (h, w, 3)), 0, 255).astype(np.uint8)
        Image.fromarray(rgb).save(root / "images" / f"img_{i}.png")
        words = [(_quad(rng, w, h), k == 2) for k in range(3)]
        lines = [",".join(map(str, q)) + ("," + ("###" if ignored else "word")) for q, ignored in words]
        (root / "gt" / f"gt_img_{i}.txt").write_text("\n".join(lines) + "\n")
        truth[f"img_{i}.png"] = (rgb, words)
    return root, truth


def eval_loader(root, **kw):
    args = dict(dataset=str(root), batch_size=3, profile="upstage", image_size=CANVAS, mode="eval", threads=2,
                prefetch=2, pin_memory=False)
    args.update(kw)
    return textfeed.Loader(**args)


def epoch(loader):
    return [([t.clone() for t in b], b.image_ids, b.original_sizes, b.scales,
             [[p.copy() for p in ps] for ps in b.polygons], [i.copy() for i in b.ignore], b.indices)
            for b in loader]


def upstage_reference(rgb):
    """utils/detect.py detect(): LongestMaxSize(size) (cv2 INTER_LINEAR, sides round()ed), then
    PadIfNeeded(size, size, TOP_LEFT) with albumentations' default border (cv2.BORDER_REFLECT_101)."""
    h, w = rgb.shape[:2]
    scale = CANVAS / float(max(h, w))
    if scale != 1.0:
        rgb = cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_LINEAR)
    h, w = rgb.shape[:2]
    return cv2.copyMakeBorder(rgb, 0, CANVAS - h, 0, CANVAS - w, cv2.BORDER_REFLECT_101)


def sakura_reference(path):
    """detect.py resize_img(): each side floored to a multiple of 32, PIL BILINEAR; on a black canvas."""
    img = Image.open(path).convert("RGB")
    w, h = img.size
    rw = w if w % 32 == 0 else int(w / 32) * 32
    rh = h if h % 32 == 0 else int(h / 32) * 32
    img = img.resize((rw, rh), Image.BILINEAR)
    canvas = np.zeros((CANVAS, CANVAS, 3), np.uint8)
    canvas[:rh, :rw] = np.asarray(img)
    return canvas


def test_two_eval_runs_give_byte_identical_batches(dataset):
    root, _ = dataset
    with eval_loader(root) as a, eval_loader(root) as b:
        first, second = epoch(a), epoch(b)
    assert len(first) == len(second) == 3
    for x, y in zip(first, second):
        assert all(torch.equal(s, t) for s, t in zip(x[0], y[0]))
        assert x[1:4] == y[1:4] and x[6] == y[6]
        assert all(np.array_equal(p, q) for ps, qs in zip(x[4], y[4]) for p, q in zip(ps, qs))


def test_eval_batches_hold_the_image_only_in_dataset_order(dataset):
    root, _ = dataset
    with eval_loader(root, shuffle=True, drop_last=True) as loader:  # both ignored in eval
        batches = [(len(b), b[0].shape, b.indices, b.image_ids) for b in loader]
    assert [b[0] for b in batches] == [1, 1, 1]
    assert [b[1] for b in batches] == [(3, 3, CANVAS, CANVAS)] * 2 + [(1, 3, CANVAS, CANVAS)]
    assert [i for b in batches for i in b[2]] == list(range(len(SIZES)))
    assert [i for b in batches for i in b[3]] == [f"images/img_{i}.png" for i in range(len(SIZES))]


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_upstage_image_equals_the_reference_inference_resize(dataset, dtype):
    root, truth = dataset
    with eval_loader(root, dtype=dtype) as loader:
        for b in loader:
            for k, image_id in enumerate(b.image_ids):
                want = upstage_reference(truth[image_id.split("/")[-1]][0]).astype(np.float64)
                got = b[0][k].permute(1, 2, 0).numpy().astype(np.float64)
                if dtype == "float32":
                    got = (got * IMAGENET_STD + IMAGENET_MEAN) * 255
                assert np.abs(got - want).max() <= 1.0, image_id


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_sakura_image_equals_the_reference_inference_resize(dataset, dtype):
    root, _ = dataset
    with eval_loader(root, profile="sakura", dtype=dtype) as loader:
        for b in loader:
            for k, image_id in enumerate(b.image_ids):
                want = sakura_reference(root / image_id).astype(np.float64)
                got = b[0][k].permute(1, 2, 0).numpy().astype(np.float64)
                if dtype == "float32":
                    got = (got * 0.5 + 0.5) * 255
                assert np.abs(got - want).max() <= 1.0, image_id


def test_sakura_refuses_an_image_larger_than_the_canvas_naming_it_when_built(dataset):
    root, _ = dataset
    with pytest.raises(errors.InvalidArgumentError, match=r"img_2\.png.*640x480") as raised:
        eval_loader(root, profile="sakura", image_size=320)  # eval's default policy: fail
    # One message for every image that does not fit (640x480 and 512x512), with the canvas that fits.
    assert "2 of 7 images" in str(raised.value) and "image_size=640 fits every image" in str(raised.value)


def db_reference(rgb):
    """PaddleOCR DetResizeForTest(limit_side_len=CANVAS, limit_type='max') on the BGR decode, then
    NormalizeImage (ImageNet constants on the BGR planes); here on a black CANVAS square."""
    bgr = rgb[:, :, ::-1]
    h, w = bgr.shape[:2]
    ratio = float(CANVAS) / max(h, w) if max(h, w) > CANVAS else 1.0
    rh, rw = int(h * ratio), int(w * ratio)
    rh, rw = max(int(round(rh / 32) * 32), 32), max(int(round(rw / 32) * 32), 32)
    resized = cv2.resize(np.ascontiguousarray(bgr), (rw, rh))
    canvas = np.zeros((CANVAS, CANVAS, 3), np.uint8)
    canvas[:rh, :rw] = resized
    return (canvas.astype(np.float32) / 255 - IMAGENET_MEAN) / IMAGENET_STD, (rw / w, rh / h)


def test_db_image_equals_paddleocr_det_resize_for_test(dataset):
    root, truth = dataset
    with eval_loader(root, profile="db") as loader:
        seen = []
        for b in loader:
            assert b.names == ("image",)
            for k, image_id in enumerate(b.image_ids):
                want, scales = db_reference(truth[image_id.split("/")[-1]][0])
                got = b[0][k].permute(1, 2, 0).numpy()
                assert np.abs(got - want).max() < 1e-4, image_id
                assert b.scales[k] == pytest.approx(scales)
                seen.append(image_id)
    assert sorted(seen) == sorted(f"images/img_{i}.png" for i in range(len(SIZES)))


@pytest.mark.parametrize("profile", ["upstage", "sakura", "bc7", "db"])
def test_every_profile_evaluates_every_image_exactly_once(dataset, profile):
    root, _ = dataset
    with eval_loader(root, profile=profile, batch_size=2) as loader:
        ids = [i for b in loader for i in b.image_ids]
        assert all(not any(b.missing) and b.errors == [] for b in loader)
    assert ids == [f"images/img_{i}.png" for i in range(len(SIZES))]


def test_eval_never_takes_skip_and_training_never_takes_report(dataset):
    root, _ = dataset
    with pytest.raises(errors.InvalidArgumentError, match="never replaces an image"):
        eval_loader(root, on_bad_sample="skip")
    with pytest.raises(errors.InvalidArgumentError, match="report.*for mode=eval"):
        textfeed.Loader(dataset=str(SAMPLE), batch_size=2, on_bad_sample="report")
    with pytest.raises(errors.InvalidArgumentError, match="multiple of 32"):
        eval_loader(root, profile="db", image_size=600)
    with pytest.raises(errors.InvalidArgumentError, match="BGR planes"):
        eval_loader(root, profile="db", channel_order="rgb")


@pytest.fixture(scope="module")
def large_images(tmp_path_factory):
    """Two ICDAR-layout images taller than a 1280 canvas (receipt-like pages), one word each."""
    root = tmp_path_factory.mktemp("large")
    (root / "images").mkdir()
    (root / "gt").mkdir()
    for i, (w, h) in enumerate([(1100, 2400), (1500, 1700)]):
        cv2.imwrite(str(root / "images" / f"page_{i}.jpg"), np.full((h, w, 3), 200, np.uint8))
        (root / "gt" / f"gt_page_{i}.txt").write_text("100,100,600,100,600,180,100,180,TOTAL\n")
    return root


def _check_reported_pass(batches, names):
    """Every image exactly once; the large pages blank, marked missing and reported, never replaced."""
    def image(image_id):  # a list of sources names each image "<source>: <path below its root>"
        return image_id.split(": ")[-1]
    ids = [image(i) for b in batches for i in b[1]]
    assert sorted(ids) == sorted(names) and len(ids) == 12
    missing = {image(i) for b in batches for i, m in zip(b[1], b[2]) if m}
    assert missing == {"images/page_0.jpg", "images/page_1.jpg"}
    for img, image_ids, flags, errs, indices, polys in batches:
        assert {e.index for e in errs} == {i for i, m in zip(indices, flags) if m}
        assert all(e.replaced_by == e.index and "canvas" in e.message for e in errs)
        for k, m in enumerate(flags):
            assert bool(torch.count_nonzero(img[k]) == 0) == m
            if m:
                assert len(polys[k]) == 1  # its words are still there to be counted as missed


def _reported_batches(loader):
    return [(b[0].clone(), b.image_ids, b.missing, b.errors, b.indices, b.polygons) for b in loader]


def test_eval_over_unusable_images_scores_each_image_once_in_process(large_images, caplog):
    sources = [str(SAMPLE), str(large_images)]
    args = dict(dataset=sources, profile="sakura", mode="eval", image_size=1280, batch_size=4, threads=2,
                prefetch=2, pin_memory=False)
    with pytest.raises(errors.InvalidArgumentError, match=r"2 of 12 images.*page_0\.jpg.*page_1\.jpg"):
        textfeed.Loader(**args)  # found when built, in one message; never a copy of another image
    with textfeed.Loader(on_bad_sample="report", **args) as loader:
        batches = _reported_batches(loader)
        again = _reported_batches(loader)  # a second pass logs nothing new
    names = [f"images/img_{i}.jpg" for i in range(1, 11)] + ["images/page_0.jpg", "images/page_1.jpg"]
    _check_reported_pass(batches, names)
    _check_reported_pass(again, names)
    said = [r.getMessage() for r in caplog.records if "missing from epoch" in r.getMessage()]
    assert len(said) == 2


def test_eval_over_unusable_images_scores_each_image_once_from_a_daemon(tmp_path, large_images):
    daemon = Daemon(tmp_path, args=["--dataset", f"large={large_images}"])
    daemon.start()
    try:
        args = dict(profile="sakura", mode="eval", image_size=1280, batch_size=4, prefetch=2, pin_memory=False)
        with pytest.raises(errors.InvalidArgumentError, match=r"2 of 12 images"):
            textfeed.Loader(daemon.endpoint, dataset=["icdar", "large"], **args)
        with textfeed.Loader(daemon.endpoint, dataset=["icdar", "large"], on_bad_sample="report", **args) as loader:
            batches = _reported_batches(loader)
    finally:
        daemon.stop()
    names = [f"images/img_{i}.jpg" for i in range(1, 11)] + ["images/page_0.jpg", "images/page_1.jpg"]
    _check_reported_pass(batches, names)


@pytest.mark.parametrize("profile", ["upstage", "sakura"])
def test_polygons_sizes_and_scales_round_trip_to_the_original_pixels(dataset, profile):
    root, truth = dataset
    with eval_loader(root, profile=profile) as loader:
        for b in loader:
            for image_id, size, (sx, sy), polys, ignore in zip(b.image_ids, b.original_sizes, b.scales, b.polygons,
                                                                b.ignore):
                rgb, words = truth[image_id.split("/")[-1]]
                assert size == rgb.shape[:2]
                assert len(polys) == len(words) and ignore.dtype == np.bool_
                for poly, ign, (quad, ignored) in zip(polys, ignore, words):
                    assert poly.dtype == np.float32 and poly.shape == (4, 2)
                    assert bool(ign) == ignored
                    assert np.abs(poly - np.array(quad, np.float32).reshape(4, 2)).max() == 0
                    scaled = poly.astype(np.float64) * (sx, sy)  # original -> canvas
                    back = scaled / (sx, sy)
                    assert np.abs(back - poly).max() < 1e-3
                # The scale is the resized image's size over the original's.
                h, w = size
                if profile == "upstage":
                    assert round(max(w * sx, h * sy)) == CANVAS
                else:
                    assert round(w * sx) % 32 == 0 and round(h * sy) % 32 == 0


@pytest.mark.parametrize("world", [2, 3])
def test_every_sample_exactly_once_over_the_ranks(dataset, world):
    root, _ = dataset
    seen, lengths = [], []
    for rank in range(world):
        with eval_loader(root, rank=rank, world_size=world, batch_size=2) as loader:
            ids = [i for b in loader for i in b.image_ids]
            lengths.append(len(loader))
        assert ids == [f"images/img_{i}.png" for i in range(rank, len(SIZES), world)]
        seen += ids
    assert sorted(seen) == sorted(f"images/img_{i}.png" for i in range(len(SIZES)))
    assert max(lengths) - min(lengths) <= 1


def test_a_rank_without_a_sample_has_no_batch(dataset):
    root, _ = dataset
    with eval_loader(root, rank=len(SIZES), world_size=len(SIZES) + 1) as loader:
        assert len(loader) == 0 and list(loader) == []


@pytest.mark.parametrize("world", [2, 3])
def test_every_sample_exactly_once_over_the_ranks_of_a_daemon(tmp_path, world):
    daemon = Daemon(tmp_path)
    daemon.start()
    try:
        seen = []
        for rank in range(world):
            with textfeed.Loader(daemon.endpoint, dataset="icdar", batch_size=2, mode="eval", image_size=256,
                                 rank=rank, world_size=world, prefetch=2, pin_memory=False) as loader:
                batches = [(b[0].shape, b.indices, b.image_ids, b.original_sizes) for b in loader]
            ids = [i for b in batches for i in b[2]]
            assert [i for b in batches for i in b[1]] == list(range(rank, 10, world))
            assert all(b[0][1:] == (3, 256, 256) for b in batches)
            assert all(s == (720, 1280) for b in batches for s in b[3])
            seen += ids
        assert len(seen) == 10 and len(set(seen)) == 10
    finally:
        daemon.stop()


def test_daemon_and_embedded_eval_batches_are_identical(tmp_path):
    daemon = Daemon(tmp_path)
    daemon.start()
    try:
        args = dict(batch_size=4, mode="eval", image_size=256, prefetch=2, pin_memory=False)
        with textfeed.Loader(daemon.endpoint, dataset="icdar", **args) as remote, \
                textfeed.Loader(dataset=str(SAMPLE), threads=2, **args) as local:
            for r, e in zip(remote, local):
                assert torch.equal(r[0], e[0])
                assert r.image_ids == e.image_ids and r.scales == e.scales and r.original_sizes == e.original_sizes
                assert all(np.array_equal(p, q) for ps, qs in zip(r.polygons, e.polygons) for p, q in zip(ps, qs))
                assert all(np.array_equal(p, q) for p, q in zip(r.ignore, e.ignore))
    finally:
        daemon.stop()


def test_return_polygons_in_training_lie_in_the_crop_where_the_score_map_is(dataset):
    with textfeed.Loader(dataset=str(SAMPLE), batch_size=2, profile="sakura", seed=5, return_polygons=True,
                         threads=2, prefetch=2, pin_memory=False) as loader:
        positives = 0
        for b in loader:
            img, score = b[0], b[1]
            crop = img.shape[-1]
            scale = crop / score.shape[-1]
            assert len(b.polygons) == img.shape[0] and b.scales == [(1.0, 1.0)] * img.shape[0]
            for k in range(img.shape[0]):
                valid = [p for p, ign in zip(b.polygons[k], b.ignore[k]) if not ign]
                ys, xs = np.nonzero(score[k, 0].numpy() > 0.5)
                positives += len(ys)
                for y, x in zip(ys, xs):
                    pt = (float(x * scale), float(y * scale))
                    assert any(cv2.pointPolygonTest(p.reshape(-1, 1, 2), pt, True) >= -scale for p in valid), pt
        assert positives > 0


def test_without_return_polygons_training_batches_carry_no_metadata():
    with textfeed.Loader(dataset=str(SAMPLE), batch_size=2, profile="sakura", threads=2, prefetch=2,
                         pin_memory=False) as loader:
        b = next(iter(loader))
        assert b.polygons is None and b.image_ids is None and len(b) == 4


def test_eval_mode_keywords_are_checked():
    with pytest.raises(errors.InvalidArgumentError, match="mode"):
        textfeed.Loader(dataset=str(SAMPLE), batch_size=2, mode="test")
    for profile in ("sakura", "db"):  # their profiles' image_size is 0
        with pytest.raises(errors.InvalidArgumentError, match="image_size"):
            textfeed.Loader(dataset=str(SAMPLE), batch_size=2, profile=profile, mode="eval")
    with pytest.raises(TypeError, match="return_polygons"):
        textfeed.Loader(dataset=str(SAMPLE), batch_size=2, return_polygons="yes")
    assert textfeed.Mode.EVAL.text == "eval"


def _ufo(tmp_path, words):
    """A UFO dataset of one 200 x 100 PNG with `words` ({id: (points, illegible)})."""
    (tmp_path / "images").mkdir()
    (tmp_path / "ufo").mkdir()
    Image.fromarray(np.full((100, 200, 3), 90, np.uint8)).save(tmp_path / "images" / "a.png")
    ufo = {"images": {"a.png": {"img_w": 200, "img_h": 100, "words": {
        k: {"points": pts, "transcription": "t", "illegibility": ill, "tags": []} for k, (pts, ill) in words.items()}}}}
    (tmp_path / "ufo" / "train.json").write_text(json.dumps(ufo))
    return tmp_path / "ufo" / "train.json"


def test_ufo_words_keep_every_point_whatever_the_poly_policy(tmp_path):
    circle = [[100 + 30 * np.cos(t), 50 + 20 * np.sin(t)] for t in np.linspace(0, 2 * np.pi, 12, endpoint=False)]
    words = {"1": ([[0, 0], [40, 0], [40, 10], [0, 10]], False),
             "2": ([[0, 20], [20, 20], [40, 25], [20, 30], [0, 30]], False),
             "3": (circle, True)}
    path = _ufo(tmp_path, words)
    for policy in ("skip", "minrect"):
        with eval_loader(path, batch_size=1, poly_policy=policy) as loader:
            b = next(iter(loader))
            polys, ignore = b.polygons[0], b.ignore[0]
            assert [p.shape for p in polys] == [(4, 2), (5, 2), (12, 2)], policy
            assert ignore.tolist() == [False, False, True]
            for p, (pts, _) in zip(polys, words.values()):
                assert np.abs(p - np.array(pts, np.float32)).max() == 0


def test_a_batch_of_huge_polygons_fails_naming_the_sample(tmp_path):
    n = 70000  # past the 2^16 points a batch may carry
    huge = [[100 + 40 * np.cos(t), 50 + 40 * np.sin(t)] for t in np.linspace(0, 2 * np.pi, n, endpoint=False)]
    path = _ufo(tmp_path, {"1": (huge, False)})
    with eval_loader(path, batch_size=1, poly_policy="minrect") as loader:
        with pytest.raises(errors.InvalidArgumentError, match=r"images/a\.png.*65536 polygon points"):
            next(iter(loader))


def test_bc7_infers_as_the_baseline_detect_like_upstage(dataset):
    # The 7th generation's inference.py calls the 6th's detect(): the same resize, pad and normalization.
    root, _ = dataset
    with eval_loader(root) as upstage, eval_loader(root, profile="bc7") as bc7:
        for a, b in zip(upstage, bc7):
            assert torch.equal(a[0], b[0]) and a.image_ids == b.image_ids and a.scales == b.scales


def test_a_rank_without_a_sample_opens_and_yields_nothing_through_a_daemon(tmp_path):
    daemon = Daemon(tmp_path)
    daemon.start()
    try:
        with textfeed.Loader(daemon.endpoint, dataset="icdar", batch_size=2, mode="eval", image_size=256, rank=11,
                             world_size=12, prefetch=2, pin_memory=False) as loader:
            assert len(loader) == 0 and list(loader) == []
    finally:
        daemon.stop()
    assert "InvalidArgument" not in daemon.log.read_text()  # it asked for no batch, so none failed
