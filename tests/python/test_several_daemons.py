"""One rank fed by several `textfeed serve` processes (ipc with shared memory, tcp with CURVE) and
its own threads: every batch of the epochs exactly once and in order, byte-equal to an embedded run,
also when one daemon is killed with SIGKILL and another stopped with SIGSTOP mid-epoch."""
import os
import signal
import socket
import subprocess
import time

import pytest
import torch

import textfeed
from support import SAMPLE, TEXTFEED

ARGS = dict(batch_size=2, profile="sakura", seed=11, shuffle=True)


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _keygen(folder, name):
    out = subprocess.run([TEXTFEED, "keygen", "--out", str(folder / name)], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr


class Serve:
    """One `textfeed serve` of the sample as `icdar`, with one worker thread. Its client timeout is
    never waited for (a client that comes back after a loss ends its earlier streams itself): it
    sits far above the seconds a loaded machine may keep a client from sending its heartbeats."""

    def __init__(self, folder, name, endpoint, curve=()):
        self.endpoint = endpoint
        self.log = folder / f"{name}.log"
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen([TEXTFEED, "serve", "--dataset", f"icdar={SAMPLE}", "--bind", endpoint,
                                          "--threads", "1", "--client-timeout", "20", *curve],
                                         stdout=subprocess.DEVNULL, stderr=log)

    def wait_ready(self, **keys):
        deadline = time.monotonic() + 30
        while True:
            assert self.proc.poll() is None, self.log.read_text()
            args = ["--server-key", keys["server"], "--client-key", keys["client"]] if keys else []
            r = subprocess.run([TEXTFEED, "stats", self.endpoint, "--timeout", "1", *args], capture_output=True,
                               timeout=30)
            if r.returncode == 0:
                return
            assert time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.1)

    def end(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.kill()
        self.proc.wait(timeout=30)


@pytest.fixture
def daemons(tmp_path):
    for name in ("a", "b", "rank"):
        _keygen(tmp_path, name)
    ipc = Serve(tmp_path, "ipc", f"ipc://{tmp_path}/tf.sock")
    tcp = [Serve(tmp_path, n, f"tcp://127.0.0.1:{_port()}",
                 ["--curve-key", str(tmp_path / f"{n}.key"), "--allow", str(tmp_path / "rank.pub")])
           for n in ("a", "b")]
    try:
        ipc.wait_ready()
        for n, d in zip(("a", "b"), tcp):
            d.wait_ready(server=str(tmp_path / f"{n}.pub"), client=str(tmp_path / "rank.key"))
        keys = dict(curve_server_key=[None, str(tmp_path / "a.pub"), str(tmp_path / "b.pub")],
                    curve_client_key=str(tmp_path / "rank.key"))
        yield [ipc, *tcp], keys
    finally:
        for d in (ipc, *tcp):
            d.end()


def _embedded(epochs):
    with textfeed.Loader(dataset=str(SAMPLE), threads=1, **ARGS) as loader:
        out = []
        for _ in range(epochs):
            out.append([(b.epoch, b.batch, list(b.indices), [t.clone() for t in b]) for b in loader])
        return out


def _check_epoch(loader, expected, on_batch=None):
    got = []
    for i, b in enumerate(loader):
        e, k, indices, tensors = expected[i]
        assert (b.epoch, b.batch) == (e, k), "lost, repeated or out of order"
        assert list(b.indices) == indices
        for t, want in zip(b, tensors):
            assert torch.equal(t, want), f"epoch {e} batch {k} differs from the embedded run"
        got.append((b.epoch, b.batch))
        if on_batch:
            on_batch(i)
    assert got == [(e, k) for e, k, _, _ in expected]


def test_three_daemons_and_local_threads_survive_a_kill_and_a_stop(daemons):
    procs, keys = daemons
    expected = _embedded(2)
    endpoints = [d.endpoint for d in procs]
    with textfeed.Loader(endpoints, dataset="icdar", local_threads=1, local_dataset=str(SAMPLE), prefetch=2,
                         daemon_timeout=1.0, stall_timeout=2.0, timeout=10.0, **keys, **ARGS) as loader:
        assert loader.stats()["mode"] == "several"

        def strike(i):
            if i == 1:
                procs[1].proc.kill()                           # tcp daemon a: SIGKILL
                os.kill(procs[0].proc.pid, signal.SIGSTOP)     # the ipc daemon: stopped, its memory mapped

        _check_epoch(loader, expected[0], strike)
        _check_epoch(loader, expected[1])
        # Both are taken for lost once their silence outlasts its limit, whether or not the epochs
        # waited for them.
        deadline = time.monotonic() + 30
        while any(p["state"] == "up" for p in loader.stats()["producers"][:2]):
            assert time.monotonic() < deadline, loader.stats()["producers"]
            time.sleep(0.1)
        stats = loader.stats()
    producers = stats["producers"]
    assert [p["name"] for p in producers][:3] == [f"the daemon at {e}" for e in endpoints]
    assert producers[3]["name"] == "this process's threads" and producers[3]["state"] == "up"
    assert sum(p["delivered"] for p in producers) == stats["batches"] == 10
    assert producers[0]["transport"] == "shm" and producers[2]["transport"] == "frames"


def test_a_stopped_daemon_rejoins_when_it_continues(daemons):
    procs, keys = daemons
    expected = _embedded(3)
    with textfeed.Loader([procs[0].endpoint, procs[2].endpoint], dataset="icdar", prefetch=2, daemon_timeout=1.0,
                         stall_timeout=2.0, curve_server_key=[None, keys["curve_server_key"][2]],
                         curve_client_key=keys["curve_client_key"], **ARGS) as loader:
        os.kill(procs[0].proc.pid, signal.SIGSTOP)
        _check_epoch(loader, expected[0])
        os.kill(procs[0].proc.pid, signal.SIGCONT)
        deadline = time.monotonic() + 30
        while loader.stats()["producers"][0]["state"] != "up":
            assert time.monotonic() < deadline, "the continued daemon did not rejoin"
            time.sleep(0.1)
        _check_epoch(loader, expected[1])
        _check_epoch(loader, expected[2])
        assert loader.stats()["producers"][0]["reconnects"] >= 1


def test_compact_payload_gives_the_full_batches(daemons):
    procs, keys = daemons
    expected = _embedded(2)
    with textfeed.Loader([d.endpoint for d in procs], dataset="icdar", payload="compact", prefetch=2, **keys,
                         **ARGS) as loader:
        _check_epoch(loader, expected[0])
        _check_epoch(loader, expected[1])
        assert {p["transport"] for p in loader.stats()["producers"]} == {"frames, compact"}
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="not db"):
        textfeed.Loader([procs[0].endpoint], dataset="icdar", payload="compact", batch_size=2, profile="db")
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="goes with an endpoint"):
        textfeed.Loader(dataset=str(SAMPLE), payload="compact", **ARGS)
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="payload"):
        textfeed.Loader([procs[0].endpoint], dataset="icdar", payload="tiny", **ARGS)


@pytest.mark.parametrize("daemon", [0, 1], ids=["ipc", "tcp"])
def test_one_endpoint_is_a_list_of_one(daemons, daemon):
    # endpoint="x" and endpoint=["x"] open the same feed: the same batches, and the same stats.
    procs, keys = daemons
    expected = _embedded(2)
    key = dict(curve_server_key=keys["curve_server_key"][daemon], curve_client_key=keys["curve_client_key"])
    stats = []
    for endpoint in (procs[daemon].endpoint, [procs[daemon].endpoint]):
        with textfeed.Loader(endpoint, dataset="icdar", prefetch=2, **(key if daemon else {}), **ARGS) as loader:
            _check_epoch(loader, expected[0])
            _check_epoch(loader, expected[1])
            s = loader.stats()
            stats.append((s["mode"], s["transport"], [(p["name"], p["state"], p["transport"], p["delivered"])
                                                      for p in s["producers"]]))
    want = "shm" if daemon == 0 else "frames"
    assert stats[0] == stats[1] == ("remote", want, [(f"the daemon at {procs[daemon].endpoint}", "up", want, 10)])
    if daemon == 0:
        return
    # The compact payload and the local threads are a feed's, whatever the number of daemons.
    with textfeed.Loader(procs[1].endpoint, dataset="icdar", payload="compact", local_threads=1,
                         local_dataset=str(SAMPLE), prefetch=2, **key, **ARGS) as loader:
        _check_epoch(loader, expected[0])
        assert loader.stats()["mode"] == "several"
        assert [p["transport"] for p in loader.stats()["producers"]] == ["frames, compact", "embedded"]


def test_bad_arguments_of_several_endpoints(daemons):
    procs, keys = daemons
    ipc = procs[0].endpoint
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="twice"):
        textfeed.Loader([ipc, ipc], dataset="icdar", **ARGS)
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="1.."):
        textfeed.Loader([], dataset="icdar", **ARGS)
    with pytest.raises(textfeed.errors.ArgumentTypeError, match="endpoint"):
        textfeed.Loader({ipc}, dataset="icdar", **ARGS)
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="go with an endpoint"):
        textfeed.Loader(dataset=str(SAMPLE), local_threads=1, **ARGS)
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="one each"):
        textfeed.Loader([ipc], dataset="icdar", curve_server_key=[None, None], **ARGS)
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="local_threads"):
        textfeed.Loader([ipc], dataset="icdar", local_threads=0, **ARGS)
    # The local threads over another dataset than the daemons': refused by its fingerprint.
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="this process's threads"):
        textfeed.Loader([ipc], dataset="icdar", local_threads=1, local_dataset=str(SAMPLE / "ufo" / "train.json"),
                        **ARGS)


def test_pull_from_several_daemons(daemons, tmp_path):
    procs, _ = daemons
    for payload in ("full", "compact"):
        out = subprocess.run([TEXTFEED, "pull", "--endpoint", procs[0].endpoint, "--endpoint", procs[1].endpoint,
                              "--dataset", "icdar", "--profile", "sakura", "--batch-size", "2", "--batches", "6",
                              "--payload", payload, "--server-key", str(tmp_path / "a.pub"), "--client-key",
                              str(tmp_path / "rank.key")], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert "pulled 6 batches" in out.stdout and f"over {payload} payloads" in out.stdout, out.stdout
        lines = [line for line in out.stdout.splitlines() if line.startswith("  the daemon at")]
        assert len(lines) == 2 and all("(up," in line for line in lines), out.stdout
    refused = subprocess.run([TEXTFEED, "pull", "--endpoint", procs[0].endpoint, "--dataset", "icdar",
                              "--payload", "tiny"], capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "payload" in refused.stderr
