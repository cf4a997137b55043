"""Sharded caches (issue 16): `cache build --shard K/N` and `cache merge` make a manifest that opens
as one cache everywhere, with a whole build's batches byte for byte; bad shard specs, incomplete
sets, missing, swapped or damaged shards and hostile manifests are clear errors naming the file."""

import json
import shutil
import signal
import subprocess
import time

import pytest
import torch

import textfeed
from support import SAMPLE, TEXTFEED

SIZE = 256  # small stored images: the sample's 10 photos at 256 px


def tf(*args):
    return subprocess.run([TEXTFEED, *map(str, args)], capture_output=True, text=True)


def build(out, *extra):
    r = tf("cache", "build", "--dataset", SAMPLE, "--profile", "upstage", "--image-size", SIZE, "--threads", "2",
           "--out", out, *extra)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def caches(tmp_path_factory):
    """whole.tfc, parts/train.{0,1,2}.tfc and train.tfmanifest, merged from the parts in another order."""
    root = tmp_path_factory.mktemp("shards")
    build(root / "whole.tfc")
    (root / "parts").mkdir()
    for k in (2, 0, 1):
        r = build(root / "parts" / f"train.{k}.tfc", "--shard", f"{k}/3")
        assert f"shard {k}/3" in r.stderr
    r = tf("cache", "merge", "--out", root / "train.tfmanifest",
           *(root / "parts" / f"train.{k}.tfc" for k in (1, 2, 0)))
    assert r.returncode == 0, r.stderr
    assert "3 shards, 10 samples of 10 images" in r.stdout
    return root


def copy_set(caches, tmp_path):
    """A private copy of the shards and the manifest, to damage."""
    shutil.copytree(caches / "parts", tmp_path / "parts")
    shutil.copy(caches / "train.tfmanifest", tmp_path / "train.tfmanifest")
    return tmp_path / "train.tfmanifest"


def batches(path, profile, epoch):
    kw = dict(batch_size=4, profile=profile, seed=11, threads=2, prefetch=2, pin_memory=False, image_size=SIZE,
              crop_size=128)
    with textfeed.Loader(dataset=str(path), **kw) as loader:
        loader.set_epoch(epoch)
        # Copies: a batch's tensors are views of a slot the loader reuses.
        return [(b.names, b.indices, b.errors, [t.clone() for t in b]) for b in loader]


@pytest.mark.parametrize("profile", ["upstage", "db"])
def test_three_shards_merged_give_the_whole_caches_batches_byte_for_byte(caches, profile):
    for epoch in (0, 1):
        whole = batches(caches / "whole.tfc", profile, epoch)
        merged = batches(caches / "train.tfmanifest", profile, epoch)
        assert len(whole) == len(merged) == 3
        for (names, indices, errors, tensors), (names2, indices2, errors2, tensors2) in zip(whole, merged):
            assert names == names2 and indices == indices2 and errors == errors2 == []
            for x, y in zip(tensors, tensors2):
                assert x.dtype == y.dtype and x.shape == y.shape
                assert torch.equal(x.view(torch.uint8), y.view(torch.uint8))


def test_the_manifest_is_small_relative_json_and_inspects_as_one_cache(caches):
    m = json.loads((caches / "train.tfmanifest").read_text())
    assert m["format"] == "textfeed-cache-manifest" and m["version"] == 1 and m["samples"] == 10
    assert [s["path"] for s in m["shards"]] == [f"parts/train.{k}.tfc" for k in range(3)]
    assert [s["first"] for s in m["shards"]] == [0, 3, 6]
    assert m["build"]["image_size"] == SIZE and m["build"]["shards"] == 3
    whole = json.loads(tf("cache", "inspect", caches / "whole.tfc", "--json").stdout)
    merged = json.loads(tf("cache", "inspect", caches / "train.tfmanifest", "--json").stdout)
    for key in ("samples", "words", "ignored_words", "pixel_bytes", "raw_pixel_bytes", "profile", "image_size"):
        assert whole[key] == merged[key], key
    assert [s["samples"] for s in merged["shards"]] == [3, 3, 4] and "shard" not in merged
    r = tf("cache", "verify", caches / "train.tfmanifest")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(": intact (") == 3 and "all 3 shards and 10 samples are intact" in r.stdout
    # A lone shard is a cache of its own samples.
    lone = json.loads(tf("cache", "inspect", caches / "parts" / "train.2.tfc", "--json").stdout)
    assert lone["samples"] == 4 and lone["shard"] == "2/3"


def test_show_and_bench_take_a_manifest(caches, tmp_path):
    r = tf("show", "--dataset", caches / "train.tfmanifest", "--set", f"image_size={SIZE}", "--set", "crop_size=128",
           "--count", 2, "--out", tmp_path / "show")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (tmp_path / "show").iterdir())[:2] == ["sample_0.png", "sample_1.png"]
    r = tf("bench", "--dataset", caches / "train.tfmanifest", "--set", f"image_size={SIZE}", "--set", "crop_size=128",
           "--threads", 1, "--samples", 8, "--repeat", 1)
    assert r.returncode == 0, r.stderr


def test_a_daemon_serves_a_manifest_as_it_serves_the_whole_cache(caches, tmp_path):
    sock = tmp_path / "tf.sock"
    endpoint = f"ipc://{sock}"
    serve = subprocess.Popen([TEXTFEED, "serve", "--dataset", f"whole={caches / 'whole.tfc'}", "--dataset",
                              f"sharded={caches / 'train.tfmanifest'}", "--bind", endpoint, "--threads", "2"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not sock.exists():
            assert serve.poll() is None, serve.stderr.read()
            time.sleep(0.02)
        kw = dict(batch_size=4, profile="upstage", seed=3, prefetch=2, pin_memory=False, image_size=SIZE,
                  crop_size=128)
        got = {}
        for name in ("whole", "sharded"):
            with textfeed.Loader(endpoint, dataset=name, **kw) as loader:
                b = next(iter(loader))
                got[name] = (b.indices, [t.clone() for t in b])
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.communicate(timeout=30)
    assert got["whole"][0] == got["sharded"][0]
    assert all(torch.equal(x, y) for x, y in zip(got["whole"][1], got["sharded"][1]))


@pytest.mark.parametrize("spec, why", [("3/3", "K must be below N"), ("a/b", "two whole numbers"),
                                       ("1", "expected K/N"), ("0/0", "N must be at least 1"),
                                       ("0/11", "N is more than the 10 images")])
def test_a_bad_shard_spec_is_refused_by_name(tmp_path, spec, why):
    r = tf("cache", "build", "--dataset", SAMPLE, "--out", tmp_path / "c.tfc", "--shard", spec)
    assert r.returncode != 0
    assert why in r.stderr, r.stderr
    assert not (tmp_path / "c.tfc").exists()


def test_merge_refuses_an_incomplete_or_mixed_set(caches, tmp_path):
    r = tf("cache", "merge", "--out", tmp_path / "m.tfmanifest", caches / "parts" / "train.0.tfc",
           caches / "parts" / "train.2.tfc")
    assert r.returncode == 2 and "shard 1/3" in r.stderr and "missing" in r.stderr, r.stderr
    # A shard of another N.
    build(tmp_path / "half.tfc", "--shard", "1/2")
    r = tf("cache", "merge", "--out", caches / "m.tfmanifest", caches / "parts" / "train.0.tfc", tmp_path / "half.tfc",
           caches / "parts" / "train.2.tfc")
    assert r.returncode == 2 and "half.tfc" in r.stderr and "shard count N 3 vs 2" in r.stderr, r.stderr
    # A manifest is written only below which its shards lie, and replaced only with --force.
    r = tf("cache", "merge", "--out", tmp_path / "m.tfmanifest", caches / "parts")
    assert r.returncode == 2 and "is not in or below" in r.stderr, r.stderr
    r = tf("cache", "merge", "--out", caches / "train.tfmanifest", caches / "parts")
    assert r.returncode == 2 and "exists" in r.stderr, r.stderr
    assert not (tmp_path / "m.tfmanifest").exists() and not (caches / "m.tfmanifest").exists()


def test_merge_of_a_folder_writes_the_same_manifest(caches, tmp_path):
    copy_set(caches, tmp_path)
    r = tf("cache", "merge", "--out", tmp_path / "again.tfmanifest", tmp_path / "parts")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "again.tfmanifest").read_text() == (caches / "train.tfmanifest").read_text()
    r = tf("cache", "merge", "--force", "--out", tmp_path / "again.tfmanifest", tmp_path / "parts")
    assert r.returncode == 0, r.stderr
    r = tf("cache", "merge", "--force", "--out", tmp_path / "parts" / "train.0.tfc", tmp_path / "parts")
    assert r.returncode == 2 and "not a cache manifest" in r.stderr, r.stderr


def test_a_missing_or_swapped_shard_is_named(caches, tmp_path):
    manifest = copy_set(caches, tmp_path)
    (tmp_path / "parts" / "train.1.tfc").unlink()
    with pytest.raises(textfeed.errors.NotFoundError, match=r"shard 1/3 \(parts/train.1.tfc\) of cache manifest"):
        textfeed.Loader(dataset=str(manifest), batch_size=2, pin_memory=False, image_size=SIZE)
    shutil.copy(tmp_path / "parts" / "train.0.tfc", tmp_path / "parts" / "train.1.tfc")
    with pytest.raises(textfeed.errors.CorruptSampleError, match="train.1.tfc .*not the file the manifest lists"):
        textfeed.Loader(dataset=str(manifest), batch_size=2, pin_memory=False, image_size=SIZE)
    r = tf("cache", "verify", manifest)
    assert r.returncode == 1 and "shard 1/3" in r.stderr and "1 of 3 shards" in r.stderr, r.stderr


def test_verify_names_the_shard_with_a_corrupt_sample(caches, tmp_path):
    manifest = copy_set(caches, tmp_path)
    shard = tmp_path / "parts" / "train.2.tfc"
    data = bytearray(shard.read_bytes())
    data[4096] ^= 0xFF  # inside a record's pixels
    shard.write_bytes(bytes(data))
    r = tf("cache", "verify", manifest)
    assert r.returncode == 1, r.stdout
    assert "shard 2/3" in r.stderr and "train.2.tfc" in r.stderr and "checksum mismatch" in r.stderr, r.stderr
    assert "shard 0/3" not in r.stderr and r.stdout.count(": intact (") == 2


@pytest.mark.parametrize("change, field", [
    (lambda m: m["shards"][1].update(path="/etc/passwd"), "shards[1].path"),
    (lambda m: m["shards"][1].update(path="../parts/train.1.tfc"), "shards[1].path"),
    (lambda m: m["shards"][0].update(samples="3"), "shards[0].samples"),
    (lambda m: m.pop("build"), "'build' is missing"),
])
def test_a_hostile_manifest_is_refused_naming_file_and_field(caches, tmp_path, change, field):
    manifest = copy_set(caches, tmp_path)
    m = json.loads(manifest.read_text())
    change(m)
    manifest.write_text(json.dumps(m))
    with pytest.raises(textfeed.errors.CorruptSampleError) as e:
        textfeed.Loader(dataset=str(manifest), batch_size=2, pin_memory=False, image_size=SIZE)
    assert str(manifest) in str(e.value) and field in str(e.value)
    r = tf("cache", "inspect", manifest)
    assert r.returncode == 2 and field in r.stderr


@pytest.mark.parametrize("text", ['{"format": "textfeed-cache-manifest", "version": 1, "samp', "\x00garbage"])
def test_a_truncated_or_garbage_manifest_is_a_clear_error(tmp_path, text):
    manifest = tmp_path / "x.tfmanifest"
    manifest.write_text(text)
    with pytest.raises(textfeed.errors.CorruptSampleError, match=str(manifest)):
        textfeed.Loader(dataset=str(manifest), batch_size=2, pin_memory=False)
