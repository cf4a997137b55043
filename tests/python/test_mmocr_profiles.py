"""The mmocr profiles psenet, panet, fcenet and textsnake end to end (docs/targets.md §9.4): the
batch's tensors by name, shape and dtype; every row's targets equal to textfeed.reference's
mmocr_targets on the row's own final polygons; batches a function of (seed, epoch, index);
evaluation batches; and the errors a wrong recipe gets. The data is the repository's ICDAR-2015
sample."""

import numpy as np
import pytest
import torch

import textfeed
from textfeed import errors, reference
from support import SAMPLE

# profile -> (side, the reference family of mmocr_targets, {tensor name: (channels, side divisor, dtype)})
PROFILES = {
    "psenet": (736, "pse", {"gt_kernels": (7, 1, torch.float32), "gt_mask": (0, 1, torch.float32)}),
    "panet": (736, "pan", {"gt_kernels": (2, 1, torch.float32), "gt_mask": (0, 1, torch.float32)}),
    "fcenet": (800, "fce", {"p3_map": (25, 8, torch.float32), "p4_map": (25, 16, torch.float32),
                            "p5_map": (25, 32, torch.float32)}),
    "textsnake": (800, "textsnake", {"gt_text_mask": (0, 1, torch.uint8), "gt_mask": (0, 1, torch.uint8),
                                     "gt_center_region_mask": (0, 1, torch.uint8),
                                     "gt_radius_map": (0, 1, torch.float32), "gt_sin_map": (0, 1, torch.float32),
                                     "gt_cos_map": (0, 1, torch.float32)}),
}


def _first(profile, **kw):
    args = dict(batch_size=2, profile=profile, seed=11, threads=2, prefetch=2, pin_memory=False, shuffle=False,
                return_polygons=True)
    args.update(kw)
    with textfeed.Loader(dataset=str(SAMPLE), **args) as loader:
        return next(iter(loader))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_batch_has_the_family_tensors_and_the_reference_targets(profile):
    side, family, tensors = PROFILES[profile]
    b = _first(profile)
    assert b.names == ("image",) + tuple(tensors)
    assert tuple(b.get("image").shape) == (2, 3, side, side) and b.get("image").dtype == torch.float32
    for name, (channels, divisor, dtype) in tensors.items():
        want = (2, channels, side // divisor, side // divisor) if channels else (2, side, side)
        assert tuple(b.get(name).shape) == want, name
        assert b.get(name).dtype == dtype, name
    assert b.errors == []
    for r in range(2):
        polys = [np.asarray(p, np.float32) for p in b.polygons[r]]
        want = reference.mmocr_targets(family, polys, b.ignore[r], (side, side))
        for name in tensors:
            got = b.get(name)[r].numpy()
            assert np.array_equal(got, np.asarray(want[name]).reshape(got.shape)), (profile, r, name)
    # Some text survives the chain in these ICDAR-2015 images.
    assert sum(len(p) for p in b.polygons) > 0


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_batches_are_a_function_of_seed_epoch_and_index(profile):
    a = _first(profile, batch_size=2)
    with textfeed.Loader(dataset=str(SAMPLE), batch_size=1, profile=profile, seed=11, threads=1, prefetch=2,
                         pin_memory=False, shuffle=False) as loader:
        it = iter(loader)
        rows = [next(it), next(it)]
    for r in range(2):
        for name in a.names:
            assert torch.equal(a.get(name)[r], rows[r].get(name)[0]), (profile, name)
    other = _first(profile, seed=12)
    assert not torch.equal(a.get("image"), other.get("image"))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_eval_batches_are_the_test_pipeline_resize(profile):
    with textfeed.Loader(dataset=str(SAMPLE), batch_size=2, profile=profile, mode="eval", threads=1,
                         pin_memory=False) as loader:
        b = next(iter(loader))
    image = b.get("image")
    assert image.dtype == torch.float32 and image.shape[0] == 2 and image.shape[2] == image.shape[3]
    assert image.shape[2] % 32 == 0


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_a_crop_size_the_chain_does_not_end_with_is_refused(profile):
    side = PROFILES[profile][0]
    with pytest.raises(errors.TextfeedError, match=f"crop_size must be {side}"):
        _first(profile, recipe=textfeed.Recipe(crop_size=side + 32), on_bad_sample="fail")


def test_a_daemon_streams_the_family_tensors_and_refuses_compact_rows(tmp_path):
    from support import Daemon

    daemon = Daemon(tmp_path, threads=2)
    daemon.start()
    try:
        kw = dict(batch_size=2, profile="fcenet", seed=3, shuffle=False, prefetch=2, pin_memory=False)
        with textfeed.Loader(daemon.endpoint, dataset="icdar", **kw) as remote:
            served = next(iter(remote))
        with textfeed.Loader(dataset=str(SAMPLE), threads=2, **kw) as local:
            made = next(iter(local))
        assert served.names == made.names == ("image", "p3_map", "p4_map", "p5_map")
        for name in made.names:
            assert torch.equal(served.get(name), made.get(name)), name
        with pytest.raises(errors.InvalidArgumentError, match="fcenet"):
            textfeed.Loader(daemon.endpoint, dataset="icdar", payload="compact", batch_size=2, profile="fcenet")
    finally:
        daemon.stop()


@pytest.mark.parametrize("profile", ["psenet", "panet"])
def test_compact_masks_are_the_float_targets_as_bytes(profile):
    plain = _first(profile)
    compact = _first(profile, recipe=textfeed.Recipe(compact_masks=True))
    assert compact.names == plain.names
    assert torch.equal(compact.get("image"), plain.get("image"))
    mask = compact.get("gt_mask")
    assert mask.dtype == torch.uint8 and torch.equal(mask, plain.get("gt_mask").to(torch.uint8))
    assert int(mask.min()) == 0 or bool(torch.all(mask == 1))
    kernels = compact.get("gt_kernels")
    if profile == "psenet":
        # PSEModuleLoss binarises the kernels (> 0.5) before its losses: the bytes are that.
        assert kernels.dtype == torch.uint8
        assert torch.equal(kernels, (plain.get("gt_kernels") > 0.5).to(torch.uint8))
        assert int(kernels.max()) == 1
    else:
        # PANet's kernels hold the instance ids its embedding loss reads: they stay float32.
        assert torch.equal(kernels, plain.get("gt_kernels"))


def test_compact_masks_travel_to_a_daemon(tmp_path):
    from support import Daemon

    daemon = Daemon(tmp_path, threads=2)
    daemon.start()
    try:
        kw = dict(batch_size=2, profile="psenet", seed=5, shuffle=False, prefetch=2, pin_memory=False,
                  recipe=textfeed.Recipe(compact_masks=True))
        with textfeed.Loader(daemon.endpoint, dataset="icdar", **kw) as remote:
            served = next(iter(remote))
        with textfeed.Loader(dataset=str(SAMPLE), threads=2, **kw) as local:
            made = next(iter(local))
        assert served.get("gt_kernels").dtype == torch.uint8
        for name in made.names:
            assert torch.equal(served.get(name), made.get(name)), name
    finally:
        daemon.stop()


def _curve(x0, y0, length, height, points):
    """A curved word of `points` points: an upper arc left to right, then the lower one back."""
    t = np.linspace(0, 1, points // 2)
    upper = np.stack([x0 + length * t, y0 + 12 * np.sin(np.pi * t)], 1)
    return np.round(np.concatenate([upper, upper[::-1] + (0, height)]), 1)


def _totaltext(root):
    """A Total-Text folder of one 320 x 240 picture with three curved words (one ignored)."""
    import cv2

    (root / "images").mkdir(parents=True)
    (root / "gt").mkdir()
    y, x = np.mgrid[0:240, 0:320].astype(np.float64)
    picture = np.clip(np.stack([128 + 100 * np.sin(x / 23), 128 + 90 * np.cos(y / 17), 128 + 0 * x], -1), 0, 255)
    cv2.imwrite(str(root / "images" / "img1.jpg"), picture.astype(np.uint8))
    curves = [_curve(30, 30, 200, 30, 14), _curve(60, 120, 180, 40, 20), _curve(200, 190, 90, 24, 10)]

    def record(w, text):
        xs, ys = " ".join(f"{v:g}" for v in w[:, 0]), " ".join(f"{v:g}" for v in w[:, 1])
        return f"x: [[{xs}]], y: [[{ys}]], ornt: [u'c'], transcriptions: [u'{text}']"

    lines = [record(w, t) for w, t in zip(curves, ("ONE", "TWO", "#"))]
    (root / "gt" / "poly_gt_img1.txt").write_text("\n".join(lines) + "\n")
    return root


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_curved_words_keep_their_points_through_the_chain(tmp_path, profile):
    side, family, tensors = PROFILES[profile]
    root = _totaltext(tmp_path / "tt")
    most = 0
    for epoch in range(4):
        with textfeed.Loader(dataset=str(root), batch_size=1, profile=profile, seed=2, threads=1, prefetch=2,
                             pin_memory=False, shuffle=False, return_polygons=True) as loader:
            loader.set_epoch(epoch)
            b = next(iter(loader))
        assert b.errors == []
        polys = [np.asarray(p, np.float32) for p in b.polygons[0]]
        most = max([most] + [len(p) for p in polys])
        want = reference.mmocr_targets(family, polys, b.ignore[0], (side, side))
        for name in tensors:
            got = b.get(name)[0].numpy()
            assert np.array_equal(got, np.asarray(want[name]).reshape(got.shape)), (profile, epoch, name)
    assert most >= 10  # curved words stay polygons: no reduction to quads on the way


def test_a_cache_keeps_the_original_pixels_and_a_resized_one_is_refused(tmp_path):
    import subprocess

    from support import TEXTFEED

    kept, resized = tmp_path / "kept.tfc", tmp_path / "resized.tfc"
    for out, extra in ((kept, []), (resized, ["--image-size", "2240"])):
        subprocess.run([TEXTFEED, "cache", "build", "--dataset", str(SAMPLE), "--profile", "psenet", "--out",
                        str(out), *extra], check=True, capture_output=True)
    info = subprocess.run([TEXTFEED, "cache", "inspect", str(kept)], capture_output=True, text=True)
    assert "image_size 0" in info.stdout, info.stdout + info.stderr
    kw = dict(batch_size=2, profile="psenet", seed=11, threads=2, prefetch=2, pin_memory=False, shuffle=False)
    with textfeed.Loader(dataset=str(kept), **kw) as cached, textfeed.Loader(dataset=str(SAMPLE), **kw) as raw:
        a, b = next(iter(cached)), next(iter(raw))
    for name in a.names:  # the cache's pixels are the dataset's: the same batches
        assert torch.equal(a.get(name), b.get(name)), name
    with pytest.raises(errors.TextfeedError, match="image-size 0"):
        with textfeed.Loader(dataset=str(resized), on_bad_sample="fail", **kw) as loader:
            next(iter(loader))
