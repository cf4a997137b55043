"""The `textfeed` command on files a hostile or careless user leaves: bytes that are not UTF-8,
control characters, FIFOs, symlinks at output names, formats besides JPEG, a dataset that is empty or
mostly unreadable, and a signal in the middle of a build. Every case ends in a clear message and a
sensible exit status: never an abort, a hang, a raw escape sequence on the terminal or a write through a
link."""

import json
import os
import signal
import stat
import subprocess
import time

import cv2
import numpy as np
import pytest

import textfeed
import textfeed._core as core

from support import TEXTFEED

WORD = b"10,10,50,10,50,30,10,30,"


def tf(*args, timeout=120):
    """Runs textfeed with `args` (str or bytes), output as bytes."""
    return subprocess.run([TEXTFEED, *args], capture_output=True, timeout=timeout)


def jpeg(width=64, height=48, seed=0):
    rng = np.random.default_rng(seed)
    ok, data = cv2.imencode(".jpg", rng.integers(0, 255, (height, width, 3), dtype=np.uint8))
    assert ok
    return data.tobytes()


def icdar(root, images):
    """An ICDAR-2015 folder: images/<name> with `images[name]` bytes, a one-word gt file for each."""
    (root / "images").mkdir(parents=True)
    (root / "gt").mkdir()
    for name, data in images.items():  # names may hold surrogate-escaped bytes (os.fsdecode)
        (root / "images" / name).write_bytes(data)
        (root / "gt" / f"gt_{name.rsplit('.', 1)[0]}.txt").write_bytes(WORD + b"w\r\n")
    return root


def raw_escape_free(data: bytes):
    return b"\x1b" not in data and b"\x07" not in data and b"\r" not in data


def test_inspect_json_survives_bytes_that_are_not_utf8(tmp_path):
    root = icdar(tmp_path / "d", {"a.jpg": b"x", "b.jpg": b"x", "c.jpg": b"x"})
    (root / "gt" / "gt_a.txt").write_bytes(WORD + b"caf\xff\xfe text\n" + b"1e39,2,3,4,5,6,7,8,bad \xff\n")
    (root / "gt" / "gt_b.txt").write_bytes(("\ufeff" + (WORD + b"w\r\n").decode()).encode("utf-16-le"))
    (root / "images" / os.fsdecode(b"x\xff.jpg")).write_bytes(b"x")  # no gt: a bad record naming it
    for args in ((), ("--format", "icdar15")):
        proc = tf("inspect", str(root), "--json", *args)
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout.decode("utf-8"))  # strict: valid UTF-8 throughout
        reasons = " | ".join(b["file"] + ": " + b["reason"] for b in report["bad_records"])
        assert "\ufffd" in reasons and "x\ufffd.jpg" in reasons, reasons
        assert "UTF-16" in reasons and "out of range of a 32-bit float" in reasons, reasons
        assert report["words"] == 2  # a's good line, c's word


def test_inspect_text_escapes_control_characters(tmp_path):
    root = icdar(tmp_path / "d", {"a.jpg": b"x"})
    (root / "gt" / "gt_a.txt").write_bytes(b"1,2,x\x1b]0;pwned\x07\x1b[2J,4,5,6,7,8,t\n" + WORD + b"ok\n")
    proc = tf("inspect", str(root))
    assert proc.returncode == 0, proc.stderr
    assert raw_escape_free(proc.stdout), proc.stdout
    assert b"\\x1b]0;pwned" in proc.stdout


def test_cache_inspect_json_and_text_survive_hostile_names(tmp_path):
    images = {f"good{i}.jpg": jpeg(seed=i) for i in range(4)}
    images[os.fsdecode(b"bad\xff\x1b[31m.jpg")] = b"\xff\xd8\xff junk"
    root = icdar(tmp_path / "d", images)
    out = tmp_path / "c.tfc"
    build = tf("cache", "build", "--dataset", str(root), "--out", str(out), "--profile", "sakura", "--max-bad", "0.5")
    assert build.returncode == 0, build.stderr
    assert raw_escape_free(build.stderr), build.stderr
    info = json.loads(tf("cache", "inspect", str(out), "--json").stdout.decode("utf-8"))
    assert info["samples"] == 4
    (entry,) = info["quarantine"]
    assert entry["file"] == "images/bad\ufffd\u001b[31m.jpg"
    text = tf("cache", "inspect", str(out))
    assert text.returncode == 0 and raw_escape_free(text.stdout)
    assert b"bad\\xff\\x1b[31m.jpg" in text.stdout


def test_stats_json_survives_a_client_name_that_is_not_utf8(tmp_path):
    root = icdar(tmp_path / "d", {f"g{i}.jpg": jpeg(seed=i) for i in range(4)})
    sock = tmp_path / "tf.sock"
    endpoint = f"ipc://{sock}"
    serve = subprocess.Popen([TEXTFEED, "serve", "--dataset", f"d={root}", "--bind", endpoint, "--threads", "1"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not sock.exists():
            time.sleep(0.02)
        assert sock.exists(), "the daemon did not bind"
        spec = core.PipelineSpec(core.Profile.SAKURA, "d")
        spec.dtype = core.DType.UINT8
        spec.sampler.batch_size, spec.sampler.shuffle = 2, False
        feed = core.open_remote(endpoint, spec, transport=core.Transport.FRAMES, client_name=b"evil\xff\x1b[2J",
                                timeout_s=30.0, daemon_timeout_s=30.0, reconnect_timeout_s=30.0, curve_server_key="",
                                curve_client_key="", prefetch=1, epoch=0, batch=0)
        try:
            proc = tf("stats", endpoint, "--json", timeout=60)
            assert proc.returncode == 0, proc.stderr
            report = json.loads(proc.stdout.decode("utf-8"))
            assert [s["client"] for s in report["streams"]] == ["evil\ufffd\u001b[2J"]
            text = tf("stats", endpoint, timeout=60)
            assert text.returncode == 0 and raw_escape_free(text.stdout), text.stdout
        finally:
            feed.close()
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.communicate(timeout=30)


def test_cache_build_reads_every_extension_the_reader_lists(tmp_path):
    rng = np.random.default_rng(3)
    images = {}
    for ext in ("bmp", "tif", "tiff", "webp", "png", "jpg"):
        ok, data = cv2.imencode("." + ext, rng.integers(0, 255, (48, 64, 3), dtype=np.uint8))
        assert ok
        images[f"pic_{ext}.{ext}"] = data.tobytes()
    root = icdar(tmp_path / "d", images)
    for profile in ("sakura", "upstage"):
        out = tmp_path / f"{profile}.tfc"
        proc = tf("cache", "build", "--dataset", str(root), "--out", str(out), "--profile", profile)
        assert proc.returncode == 0, proc.stderr
        info = json.loads(tf("cache", "inspect", str(out), "--json").stdout)
        assert info["samples"] == 6 and info["quarantine"] == []
        assert tf("cache", "verify", str(out)).returncode == 0


def poisoned_jpeg():
    data = bytearray(jpeg())
    sof = next(i for i in range(2, len(data) - 9) if data[i] == 0xFF and data[i + 1] in (0xC0, 0xC2))
    data[sof + 5:sof + 9] = b"\xff\xff\xff\xff"  # 65535 x 65535: libjpeg refuses the header
    return bytes(data)


def test_one_poisoned_jpeg_is_quarantined_alone_and_too_many_fail_the_build(tmp_path):
    images = {f"good{i:02d}.jpg": jpeg(seed=i) for i in range(10)}
    images["good04x.jpg"] = poisoned_jpeg()  # sorts among the good ones
    root = icdar(tmp_path / "d", images)
    out = tmp_path / "c.tfc"
    strict = tf("cache", "build", "--dataset", str(root), "--out", str(out), "--profile", "sakura", "--threads", "1")
    assert strict.returncode == 1, strict.stderr
    assert b"more than the allowed share" in strict.stderr and b"good04x.jpg" in strict.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]  # nothing written, no temporary left
    lenient = tf("cache", "build", "--dataset", str(root), "--out", str(out), "--profile", "sakura", "--threads", "1",
                 "--max-bad", "0.1")
    assert lenient.returncode == 0, lenient.stderr
    info = json.loads(tf("cache", "inspect", str(out), "--json").stdout)
    assert info["samples"] == 10
    assert [q["file"] for q in info["quarantine"]] == ["images/good04x.jpg"]


def test_an_empty_dataset_is_refused(tmp_path):
    root = tmp_path / "d"
    (root / "images").mkdir(parents=True)
    (root / "gt").mkdir()
    proc = tf("cache", "build", "--dataset", str(root), "--out", str(tmp_path / "c.tfc"))
    assert proc.returncode != 0
    assert b"has no images" in proc.stderr
    assert not (tmp_path / "c.tfc").exists()


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
def test_force_replaces_only_a_regular_file(tmp_path, kind):
    root = icdar(tmp_path / "d", {"a.jpg": jpeg()})
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    out = tmp_path / "c.tfc"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "symlink":
        out.symlink_to(victim)
    else:
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(out, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # a private twin of /dev/null
    proc = tf("cache", "build", "--dataset", str(root), "--out", str(out), "--force", "--profile", "sakura")
    assert proc.returncode != 0
    assert b"refusing to replace" in proc.stderr
    assert victim.read_bytes() == b"precious"
    if kind == "fifo":
        assert stat.S_ISFIFO(os.lstat(out).st_mode)
    elif kind == "symlink":
        assert out.is_symlink()
    else:
        assert stat.S_ISCHR(os.lstat(out).st_mode)
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]


@pytest.mark.parametrize("command", [("cache", "inspect"), ("cache", "verify"), ("cache", "inspect", "--json")])
def test_cache_commands_refuse_a_fifo_without_blocking(tmp_path, command):
    fifo = tmp_path / "c.tfc"
    os.mkfifo(fifo)
    proc = tf(command[0], command[1], str(fifo), *command[2:], timeout=30)
    assert proc.returncode == 2
    assert b"is a FIFO" in proc.stderr


def test_keygen_force_never_writes_through_a_symlink(tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    (tmp_path / "k.key").symlink_to(victim)
    proc = tf("keygen", "--out", str(tmp_path / "k"), "--force")
    assert proc.returncode == 2
    assert b"symlink" in proc.stderr
    assert victim.read_bytes() == b"precious"
    assert (tmp_path / "k.key").is_symlink() and not (tmp_path / "k.pub").exists()
    (tmp_path / "k.key").unlink()
    (tmp_path / "k.key").write_bytes(b"old")
    again = tf("keygen", "--out", str(tmp_path / "k"), "--force")
    assert again.returncode == 0, again.stderr
    assert stat.S_IMODE(os.stat(tmp_path / "k.key").st_mode) == 0o600
    assert b"secret = " in (tmp_path / "k.key").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.key", "k.pub", "victim"]  # no staging folder left


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_build_removes_the_temporary_and_exits_128_plus_it(tmp_path, sig):
    data = tmp_path / "d"
    subprocess.run([TEXTFEED, "synth", "--profile", "receipt", "--count", "8", "--seed", "5", "--out", str(data)],
                   check=True, capture_output=True)
    out = tmp_path / "c.tfc"
    proc = subprocess.Popen([TEXTFEED, "cache", "build", "--dataset", str(data), "--out", str(out), "--threads", "1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(".tmp-" in p.name and p.stat().st_size > 1_000_000
                                                    for p in tmp_path.iterdir()):
        time.sleep(0.01)
    assert proc.poll() is None, "the build ended before the signal"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert b"nothing was written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_replay_geometry_refuses_extreme_aspect_ratios():
    none = np.zeros((0, 8))
    labels = np.zeros(0, dtype=np.int64)
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="aspect ratio"):
        core.replay_geometry("upstage", 3000, 1, none, labels, 0)
    with pytest.raises(ValueError, match="aspect ratio"):
        core.replay_geometry("sakura", 100_000_000, 1, none, labels, 0)
    plan = core.replay_geometry("upstage", 2048, 1, none, labels, 0)
    assert min(plan["sizes"]["resized"]) >= 1 and min(plan["sizes"]["upscaled"]) >= 1


def test_geometry_bindings_refuse_coordinates_and_matrices_that_are_not_finite():
    labels = np.ones(1, dtype=np.int64)
    for bad in (np.nan, np.inf, 1e39):
        vertices = np.array([[10, 10, 50, 10, 50, 30, 10, bad]])
        with pytest.raises(textfeed.errors.InvalidArgumentError, match="finite float32"):
            core.replay_geometry("upstage", 100, 100, vertices, labels, 0)
        with pytest.raises(textfeed.errors.InvalidArgumentError, match="finite float32"):
            core.sample_params("upstage", 100, 100, vertices, labels, 0, 0, 0)
    image = np.zeros((16, 16, 3), dtype=np.uint8)
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="finite"):
        core.warp_crop(image, np.array([[1, 0, np.inf], [0, 1, 0]]), 8)
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="crop_size"):
        core.warp_crop(image, np.eye(2, 3), -1)
