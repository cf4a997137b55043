"""`textfeed serve`, `pull`, `stats` and `keygen` as separate processes: batches flow, errors reach
the client, tcp needs CURVE keys and refuses strangers, SIGTERM stops the daemon cleanly and it
leaves no socket file behind."""

import signal
import subprocess
import time

import pytest

from support import SAMPLE, TEXTFEED


def test_serve_pull_and_sigterm(tmp_path):
    sock = tmp_path / "tf.sock"
    endpoint = f"ipc://{sock}"
    serve = subprocess.Popen([TEXTFEED, "serve", "--dataset", f"icdar={SAMPLE}", "--bind", endpoint, "--threads", "2"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (sock.exists() and sock.stat().st_mode & 0o777 == 0o600):
            assert not sock.exists() or sock.stat().st_mode & 0o077 == 0, "socket open to others"
            time.sleep(0.02)
        assert sock.exists(), "the daemon did not bind"
        assert oct(sock.stat().st_mode & 0o777) == "0o600"
        pull = subprocess.run([TEXTFEED, "pull", "--endpoint", endpoint, "--dataset", "icdar", "--profile", "sakura",
                               "--batches", "3", "--batch-size", "4"], capture_output=True, text=True, timeout=120)
        assert pull.returncode == 0, pull.stderr
        assert "pulled 3 batches (10 samples" in pull.stdout  # 4 + 4 + the short last batch of 2
        missing = subprocess.run([TEXTFEED, "pull", "--endpoint", endpoint, "--dataset", "nope"],
                                 capture_output=True, text=True, timeout=60)
        assert missing.returncode != 0
        assert "no dataset named 'nope'" in missing.stderr
    finally:
        serve.send_signal(signal.SIGTERM)
        out, err = serve.communicate(timeout=30)
    assert serve.returncode == 0, err
    assert "serve: stopped" in err
    assert not sock.exists()


def test_tcp_needs_curve_keys_and_keygen_makes_them(tmp_path):
    import json
    import socket

    import textfeed

    refused = subprocess.run([TEXTFEED, "serve", "--dataset", f"icdar={SAMPLE}", "--bind", "tcp://127.0.0.1:0"],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "CurveZMQ" in refused.stderr
    for name in ("daemon", "rank0", "stranger"):
        out = subprocess.run([TEXTFEED, "keygen", "--out", str(tmp_path / name)], capture_output=True, text=True,
                             timeout=30)
        assert out.returncode == 0, out.stderr
        assert (tmp_path / f"{name}.key").stat().st_mode & 0o777 == 0o600
        assert "public = " in (tmp_path / f"{name}.pub").read_text()
    again = subprocess.run([TEXTFEED, "keygen", "--out", str(tmp_path / "daemon")], capture_output=True, text=True,
                           timeout=30)
    assert again.returncode != 0 and "exists" in again.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    endpoint = f"tcp://127.0.0.1:{port}"
    serve = subprocess.Popen([TEXTFEED, "serve", "--dataset", f"icdar={SAMPLE}", "--bind", endpoint, "--threads",
                              "2", "--curve-key", str(tmp_path / "daemon.key"), "--allow",
                              str(tmp_path / "rank0.pub")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    try:
        keys = dict(curve_server_key=str(tmp_path / "daemon.pub"), curve_client_key=str(tmp_path / "rank0.key"))
        with textfeed.Loader(endpoint, dataset="icdar", batch_size=5, profile="sakura", transport="frames",
                             **keys) as loader:
            batches = [b.indices for b in loader]
            assert len(batches) == 2 and sorted(sum(batches, [])) == list(range(10))
            stats = subprocess.run([TEXTFEED, "stats", endpoint, "--json", "--server-key", keys["curve_server_key"],
                                    "--client-key", keys["curve_client_key"]], capture_output=True, text=True,
                                   timeout=60)
            assert stats.returncode == 0, stats.stderr
            report = json.loads(stats.stdout)
            # Delivered includes what was sent ahead of the loop (the loader's prefetch).
            assert report["samples"] >= 10 and report["threads"] == 2 and report["clients"] >= 1
            (stream,) = report["streams"]
            assert stream["transport"] == "frames" and stream["samples"] >= 10 and stream["dataset"] == "icdar"
            assert stream["stage_ms_per_sample"]["decode"] > 0
        with pytest.raises(textfeed.errors.UnavailableError, match="key"):
            textfeed.Loader(endpoint, dataset="icdar", batch_size=5, timeout=1.0,
                            curve_server_key=keys["curve_server_key"],
                            curve_client_key=str(tmp_path / "stranger.key"))
    finally:
        serve.send_signal(signal.SIGTERM)
        _, err = serve.communicate(timeout=30)
    assert serve.returncode == 0, err
    assert "refused a CURVE client" in err and "not in the allow list" in err
