"""`textfeed serve` + `textfeed pull` as separate processes: batches flow, errors reach the client,
SIGTERM stops the daemon cleanly and it leaves no socket file behind."""

import os
import signal
import subprocess
import time
from pathlib import Path

TEXTFEED = os.environ.get("TEXTFEED_BIN", str(Path(__file__).resolve().parents[2] / "build" / "tools" / "textfeed"))
SAMPLE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "icdar15-sample"


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
