"""The `textfeed` commands on inputs a hostile dataset author or a careless user gives them: empty
output paths, an output that is one of the build's own inputs, absurd option values, a cache whose
checksums were recomputed over impossible records, UFO files with duplicate keys or numbers JSON
cannot hold, and datasets with bad records read by commands other than `inspect`. Each ends in a
message naming the file, the record and the reason, with an exit status that says so, and nothing
is written that the user did not name."""

import struct
import subprocess

import cv2
import numpy as np

from support import TEXTFEED

WORD = b"10,10,50,10,50,30,10,30,"


def tf(*args, cwd=None, timeout=120):
    """Runs textfeed with `args`, output as text (undecodable bytes replaced)."""
    proc = subprocess.run([TEXTFEED, *map(str, args)], capture_output=True, timeout=timeout, cwd=cwd)
    proc.stdout = proc.stdout.decode("utf-8", "replace")
    proc.stderr = proc.stderr.decode("utf-8", "replace")
    return proc


def jpeg(width=64, height=48, seed=0):
    rng = np.random.default_rng(seed)
    ok, data = cv2.imencode(".jpg", rng.integers(0, 255, (height, width, 3), dtype=np.uint8))
    assert ok
    return data.tobytes()


def icdar(root, names, gt=WORD + b"w\n"):
    """An ICDAR-2015 folder: images/<name> (a small JPEG each) and a gt file of `gt` for each."""
    (root / "images").mkdir(parents=True)
    (root / "gt").mkdir()
    for i, name in enumerate(names):
        (root / "images" / name).write_bytes(jpeg(seed=i))
        (root / "gt" / f"gt_{name.rsplit('.', 1)[0]}.txt").write_bytes(gt)
    return root


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def reseal(cache: bytearray):
    """Recomputes every record, index and footer checksum of a cache file (docs/cache_format.md)."""
    n, index_at = struct.unpack_from("<QQ", cache, len(cache) - 64)
    for i in range(n):
        at = index_at + 24 * i
        offset, size = struct.unpack_from("<QQ", cache, at)
        struct.pack_into("<I", cache, at + 16, crc32c(cache[offset : offset + size]))
    footer = len(cache) - 64
    struct.pack_into("<I", cache, footer + 32, crc32c(cache[index_at : index_at + 24 * n]))
    struct.pack_into("<I", cache, footer + 44, crc32c(cache[footer : footer + 44]))


def test_an_empty_output_path_is_refused_before_anything_is_written(tmp_path):
    root = icdar(tmp_path / "d", ["a.jpg"])
    work = tmp_path / "cwd"
    work.mkdir()
    for args in (
        ("synth", "--out", "", "--count", "1"),
        ("show", "--dataset", root, "--out", "", "--count", "1"),
        ("cache", "build", "--dataset", root, "--out", ""),
    ):
        proc = tf(*args, cwd=work)
        assert proc.returncode != 0, args
        assert "empty" in proc.stderr, proc.stderr
        assert "wrote" not in proc.stdout
        assert list(work.iterdir()) == [], args  # nothing in the working directory nobody named
    assert tf("synth", "--out", "", cwd=work).returncode == 2


def test_cache_build_never_replaces_one_of_its_own_inputs(tmp_path):
    root = icdar(tmp_path / "d", ["a.jpg", "b.jpg"])
    for victim in (root / "images" / "a.jpg", root / "gt" / "gt_b.txt"):
        before = victim.read_bytes()
        proc = tf("cache", "build", "--dataset", root, "--out", victim, "--force")
        assert proc.returncode == 1, proc.stderr
        assert "of the dataset being built" in proc.stderr, proc.stderr
        assert victim.read_bytes() == before
        assert sorted(p.name for p in victim.parent.iterdir() if ".tmp-" in p.name) == []


def test_cache_build_refuses_absurd_values_before_reading_the_dataset(tmp_path):
    missing = tmp_path / "no-such-dataset"  # read after the options: a refusal names the option
    for option, value in (("--max-bad", "nan"), ("--image-size", "100000"), ("--image-size", "7"),
                          ("--image-size", "-3")):
        proc = tf("cache", "build", "--dataset", missing, "--out", tmp_path / "c.tfc", option, value)
        assert proc.returncode == 2, (option, value, proc.stderr)
        assert option in proc.stderr and "no such" not in proc.stderr, proc.stderr
    assert not (tmp_path / "c.tfc").exists()


def test_a_resealed_cache_with_impossible_words_is_refused_by_verify_and_show(tmp_path):
    root = icdar(tmp_path / "d", ["a.jpg", "b.jpg"], gt=b"11,12,60,12,60,30,11,30,w\n")
    cache = tmp_path / "c.tfc"
    assert tf("cache", "build", "--dataset", root, "--out", cache, "--image-size", "0").returncode == 0
    data = bytearray(cache.read_bytes())
    quad = struct.pack("<8f", 11, 12, 60, 12, 60, 30, 11, 30)
    at = data.find(quad)  # sample 0's word
    data[at : at + 32] = struct.pack("<8f", float("nan"), 12, 60, 12, 60, 30, 11, 30)
    reseal(data)
    cache.write_bytes(bytes(data))
    proc = tf("cache", "verify", cache)
    assert proc.returncode == 1, proc.stdout
    assert "sample 0 ('images/a.jpg'): word 1 has a coordinate that is not finite" in proc.stderr, proc.stderr
    assert "1 of 2 samples are corrupt" in proc.stderr
    proc = tf("show", "--dataset", cache, "--out", tmp_path / "shown", "--count", "2")
    assert proc.returncode == 1, proc.stderr
    assert "sample 0" in proc.stderr and "not finite" in proc.stderr, proc.stderr
    assert "1 of 2 samples could not be drawn" in proc.stderr, proc.stderr
    assert (tmp_path / "shown" / "sample_1.png").is_file()


def test_commands_besides_inspect_name_the_records_a_reader_left_out(tmp_path):
    root = icdar(tmp_path / "d", ["a.jpg", "b.jpg"])
    (root / "gt" / "gt_a.txt").write_bytes(WORD + b"ok\r\n1,2,3\r\n" + b"nan," + WORD[3:] + b"x\r\n")
    proc = tf("show", "--dataset", root, "--out", tmp_path / "shown", "--count", "2")
    assert proc.returncode == 0, proc.stderr
    assert "2 annotation record(s) left out" in proc.stderr, proc.stderr
    assert "gt/gt_a.txt:2: expected 8 coordinates, found 3 fields" in proc.stderr, proc.stderr
    assert "gt/gt_a.txt:3: coordinate 1 is not a finite number: 'nan'" in proc.stderr, proc.stderr
    proc = tf("bench", "--dataset", root, "--samples", "2", "--repeat", "1", "--batch-size", "2")
    assert proc.returncode == 0, proc.stderr
    assert "gt/gt_a.txt:2: expected 8 coordinates" in proc.stderr, proc.stderr


def test_ufo_duplicates_and_out_of_range_numbers_are_named_where_they_are(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "a.jpg").write_bytes(jpeg())
    ufo = tmp_path / "train.json"
    points = "[[1, 2], [30, 2], [30, 20], [1, 20]]"
    ufo.write_text('{"images": {"a.jpg": {"words": {"7": {"points": %s}, "7": {"points": %s}}}}}' % (points, points))
    proc = tf("inspect", ufo)
    assert proc.returncode == 0, proc.stderr
    assert "image 'a.jpg' word '7' appears twice; the second is left out" in proc.stdout, proc.stdout
    assert "words                 1" in proc.stdout, proc.stdout
    head = '{"images": {"a.jpg": {"words": {"1": {"points": [['
    for number in ("1e400", "184467440737095516160"):
        ufo.write_text(head + number + ", 2], [30, 2], [30, 20], [1, 20]]}}}}}")
        proc = tf("inspect", ufo)
        assert proc.returncode == 2, proc.stdout
        assert "train.json: not valid JSON" in proc.stderr, proc.stderr
        assert f"at byte {len(head)} (line 1, column {len(head) + 1}): number out of range" in proc.stderr


def test_bench_never_replaces_a_file_named_by_cache(tmp_path):
    root = icdar(tmp_path / "d", ["a.jpg", "b.jpg"])
    precious = tmp_path / "notes.txt"
    precious.write_bytes(b"not a cache")
    args = ("bench", "--dataset", root, "--from", "cache", "--samples", "2", "--repeat", "1", "--batch-size", "2")
    proc = tf(*args, "--cache", precious)
    assert proc.returncode == 2, proc.stderr
    assert "exists" in proc.stderr and "replaces nothing" in proc.stderr, proc.stderr
    assert precious.read_bytes() == b"not a cache"
    fresh = tmp_path / "fresh.tfc"
    assert tf(*args, "--cache", fresh).returncode == 0
    assert fresh.is_file()  # kept; a second run refuses to rebuild over it, the cache itself is benched
    assert tf(*args, "--cache", fresh).returncode == 2
    assert tf("bench", "--dataset", fresh, "--samples", "2", "--repeat", "1", "--batch-size", "2").returncode == 0
