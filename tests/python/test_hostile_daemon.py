"""`textfeed serve` and the Python client against what a careless user or a hostile environment does:
signals at bad moments, a log reader that goes away, Ctrl-C while the client waits for a daemon
that is gone."""

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

import textfeed
from support import SAMPLE, TEXTFEED


def wait_for(condition, what, seconds=30):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def start_serve(sock, stderr, *extra):
    """A daemon on ipc://sock whose log goes to `stderr`; returns once it listens."""
    proc = subprocess.Popen([TEXTFEED, "serve", "--dataset", f"icdar={SAMPLE}", "--bind", f"ipc://{sock}",
                             "--threads", "1", *extra], stdout=subprocess.DEVNULL, stderr=stderr)
    wait_for(lambda: sock.exists() or proc.poll() is not None, "the daemon did not bind")
    assert proc.poll() is None, f"the daemon exited with {proc.returncode}"
    return proc


def files_of(sock):
    return [p for p in (sock, Path(f"{sock}.mem"), Path(f"{sock}.lock")) if p.exists()]


@pytest.fixture
def reaper():
    procs = []
    yield procs.append
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_a_daemon_whose_log_reader_went_away_serves_on(tmp_path, reaper):
    # `textfeed serve 2>&1 | head` killed the daemon with SIGPIPE at its next log line (a client
    # opening a stream), leaving its socket, memory socket and lock file behind.
    sock = tmp_path / "tf.sock"
    read_end, write_end = os.pipe()
    proc = start_serve(sock, write_end)
    reaper(proc)
    os.close(write_end)
    os.close(read_end)  # nobody reads the daemon's log any more
    with textfeed.Loader(f"ipc://{sock}", dataset="icdar", batch_size=2, profile="sakura", timeout=30) as loader:
        batches = [b.batch for b in loader]
    assert batches == list(range(len(loader)))
    assert proc.poll() is None, f"the daemon died (status {proc.returncode})"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    assert files_of(sock) == []


def test_sighup_drains_and_stops_the_daemon_like_sigterm(tmp_path, reaper):
    # SIGHUP (the daemon's terminal closed) killed it outright, its socket files left behind.
    sock = tmp_path / "tf.sock"
    log = tmp_path / "serve.log"
    with open(log, "w") as err:
        proc = start_serve(sock, err)
    reaper(proc)
    with textfeed.Loader(f"ipc://{sock}", dataset="icdar", batch_size=2, profile="sakura", timeout=30,
                         reconnect_timeout=1) as loader:
        it = iter(loader)
        assert next(it).batch == 0
        proc.send_signal(signal.SIGHUP)
        assert proc.wait(timeout=60) == 0, log.read_text()
    assert files_of(sock) == []


def test_ctrl_c_ends_a_seek_that_waits_for_a_daemon_that_is_gone(tmp_path, reaper):
    # A new epoch's first batch moves the stream (a seek), which waits while the client reconnects:
    # Ctrl-C there was ignored for the whole reconnect_timeout (31 s with 30).
    sock = tmp_path / "tf.sock"
    with open(tmp_path / "serve.log", "w") as err:
        proc = start_serve(sock, err)
    reaper(proc)
    loader = textfeed.Loader(f"ipc://{sock}", dataset="icdar", batch_size=2, profile="sakura", timeout=30,
                             daemon_timeout=1, reconnect_timeout=120)
    try:
        assert next(iter(loader)).batch == 0
        proc.kill()  # gone for good: the client reconnects until reconnect_timeout
        proc.wait()
        loader.set_epoch(3)
        it = iter(loader)
        previous = signal.signal(signal.SIGALRM, signal.default_int_handler)  # a Ctrl-C in half a second
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        started = time.monotonic()
        try:
            with pytest.raises(KeyboardInterrupt):
                next(it)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        assert time.monotonic() - started < 10, "Ctrl-C was not seen while the seek waited"
    finally:
        started = time.monotonic()
        loader.close()
        assert time.monotonic() - started < 10
    with pytest.raises(textfeed.errors.CancelledError):
        next(iter(loader))
