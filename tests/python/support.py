"""Where the Python tests find things: the repository, its sample dataset and the `textfeed`
command (TEXTFEED_BIN, as `make test` sets it, or the default build folder's)."""
import os
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "icdar15-sample"
TEXTFEED = os.path.abspath(os.environ.get("TEXTFEED_BIN", str(ROOT / "build" / "tools" / "textfeed")))


class Daemon:
    """`textfeed serve` of the sample (dataset name `icdar`) on an ipc socket in `folder`; restartable."""

    # client_timeout: far above any pause a loaded machine gives a client's heartbeats (no test of
    # this helper waits for it: a client that exits or is killed is noticed by its disconnect).
    def __init__(self, folder, client_timeout=10.0, threads=2, args=()):
        self.sock = Path(folder) / "tf.sock"
        self.endpoint = f"ipc://{self.sock}"
        self.client_timeout = client_timeout
        self.threads = threads
        self.args = list(args)  # more `serve` flags, e.g. reader options
        self.proc = None
        self.log = Path(folder) / "serve.log"

    def start(self):
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(
                [TEXTFEED, "serve", "--dataset", f"icdar={SAMPLE}", "--bind", self.endpoint, "--threads",
                 str(self.threads), "--client-timeout", str(self.client_timeout), *self.args],
                stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 30
        while not self.sock.exists():
            assert self.proc.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, "the daemon did not bind"
            time.sleep(0.02)

    def kill(self):
        self.proc.kill()
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)
