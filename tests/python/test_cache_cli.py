"""`textfeed cache`: a build killed at any moment leaves nothing that opens; verify names corruption."""

import json
import signal
import subprocess
import time

import pytest

from support import SAMPLE, TEXTFEED


def tf(*args, **kw):
    return subprocess.run([TEXTFEED, *args], capture_output=True, text=True, **kw)


@pytest.fixture(scope="module")
def receipts(tmp_path_factory):
    out = tmp_path_factory.mktemp("receipts")
    tf("synth", "--profile", "receipt", "--count", "8", "--seed", "5", "--out", str(out), "--force", check=True)
    return out


def test_sigkill_mid_build_leaves_no_cache(receipts, tmp_path):
    out = tmp_path / "r.tfc"
    proc = subprocess.Popen([TEXTFEED, "cache", "build", "--dataset", str(receipts), "--out", str(out),
                             "--threads", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    temp = None
    while time.monotonic() < deadline and temp is None:  # wait until the writer has written records
        temps = [p for p in tmp_path.iterdir() if p.name.startswith("r.tfc.tmp-") and p.stat().st_size > 10_000_000]
        temp = temps[0] if temps else None
        time.sleep(0.01)
    assert temp is not None, "the build never started writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists()
    for path in (out, temp):
        r = tf("cache", "inspect", str(path))
        assert r.returncode != 0
        assert str(path) in r.stderr
    assert "truncated or its build did not finish" in tf("cache", "verify", str(temp)).stderr
    # The next build of the same output removes the dead build's leftover and completes.
    r = tf("cache", "build", "--dataset", str(receipts), "--out", str(out), "--profile", "sakura", "--codec", "jpeg")
    assert r.returncode == 0, r.stderr
    assert str(temp) in r.stderr and "interrupted build" in r.stderr
    assert not temp.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.tfc"]
    assert tf("cache", "verify", str(out)).returncode == 0


def test_build_inspect_verify_and_corruption(tmp_path):
    out = tmp_path / "s.tfc"
    r = tf("cache", "build", "--dataset", str(SAMPLE), "--profile", "sakura", "--out", str(out), "--codec", "jpeg",
           "--quality", "90")
    assert r.returncode == 0, r.stderr
    info = json.loads(tf("cache", "inspect", str(out), "--json").stdout)
    assert info["samples"] == 10 and info["words"] == 82 and info["codec"] == "jpeg"
    assert 0 < info["pixel_bytes"] < info["raw_pixel_bytes"]
    assert "raw would be" in tf("cache", "inspect", str(out)).stdout
    assert tf("cache", "verify", str(out)).returncode == 0
    assert tf("cache", "build", "--dataset", str(SAMPLE), "--out", str(out)).returncode != 0  # no --force
    data = bytearray(out.read_bytes())
    data[200_000] ^= 0xFF  # inside some sample's record
    out.write_bytes(bytes(data))
    r = tf("cache", "verify", str(out))
    assert r.returncode == 1
    assert "sample" in r.stderr and "checksum mismatch" in r.stderr


@pytest.mark.parametrize("where", ["record", "index", "footer", "magic", "version", "truncated"])
def test_verify_fails_cleanly_on_corruption(tmp_path, where):
    out = tmp_path / "s.tfc"
    assert tf("cache", "build", "--dataset", str(SAMPLE), "--profile", "sakura", "--out", str(out)).returncode == 0
    data = bytearray(out.read_bytes())
    index_offset = int.from_bytes(data[-56:-48], "little")
    at = {"record": 64 + 1000, "index": index_offset + 5, "footer": len(data) - 30, "magic": 3, "version": 8}
    if where == "truncated":
        data = data[: len(data) // 2]
    else:
        data[at[where]] ^= 0x01
    out.write_bytes(bytes(data))
    r = tf("cache", "verify", str(out))
    assert r.returncode in (1, 2), r.stderr  # 2: refused on open, 1: a sample is bad
    assert str(out) in r.stderr
    assert "Corrupt" in r.stderr or "corrupt" in r.stderr


def test_restart_rows_cache_gives_the_batches_of_a_plain_jpeg_cache(receipts, tmp_path):
    """--restart-rows changes only where the JPEG's entropy coding restarts: the same DCT
    coefficients, so the same pixels and, through windows cut at the markers, the same batches."""
    import numpy as np
    import textfeed

    caches = {}
    for name, extra in (("plain", []), ("restart", ["--restart-rows"])):
        out = tmp_path / f"{name}.tfc"
        r = tf("cache", "build", "--dataset", str(receipts), "--out", str(out), "--profile", "upstage", "--codec",
               "jpeg", "--threads", "2", *extra)
        assert r.returncode == 0, r.stderr
        caches[name] = out
    assert caches["restart"].stat().st_size > caches["plain"].stat().st_size  # 2 bytes per 16 rows, and padding
    batches = {}
    for name, path in caches.items():
        with textfeed.Loader(dataset=str(path), profile="upstage", batch_size=2, seed=3, threads=2,
                             pin_memory=False, shuffle=False) as loader:
            batches[name] = [tuple(t.numpy().copy() for t in b) for _, b in zip(range(2), loader)]
    for a, b in zip(batches["plain"], batches["restart"]):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_restart_rows_need_the_jpeg_codec(tmp_path):
    r = tf("cache", "build", "--dataset", str(SAMPLE), "--out", str(tmp_path / "raw.tfc"), "--profile", "sakura",
           "--restart-rows")
    assert r.returncode != 0
    assert "restart rows" in r.stderr and "raw" in r.stderr
    assert not (tmp_path / "raw.tfc").exists()
