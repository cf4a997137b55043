"""textfeed.dask on a LocalCluster of this machine (2 worker processes): daemons placed on the workers'
host over tcp with CURVE, read by a Loader; sharded cache builds, also with a worker killed mid-way."""
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import textfeed
from support import SAMPLE, TEXTFEED

distributed = pytest.importorskip("distributed")
# Debian's distributed 2022.12 on Python 3.11's tornado warns of its own deprecated calls.
pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")]
import textfeed.dask as tfdask  # noqa: E402  (after the skip: it needs distributed only when called)


@pytest.fixture(scope="module")
def cluster():
    os.environ["TEXTFEED_BIN"] = TEXTFEED  # the workers are this process's children: they inherit it
    lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50)
    client = distributed.Client(lc)
    try:
        yield client
    finally:
        client.close()
        lc.close()


def _batches(loader, n=None):
    out = []
    for i, b in enumerate(loader):
        out.append((list(b.indices), [np.array(t, copy=True) for t in b]))
        if n is not None and i + 1 == n:
            break
    return out


def _equal(a, b):
    assert [x for x, _ in a] == [y for y, _ in b]
    for (_, ta), (_, tb) in zip(a, b):
        assert len(ta) == len(tb)
        for x, y in zip(ta, tb):
            assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)


def _port_open(endpoint):
    host, port = endpoint[len("tcp://"):].rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except OSError:
        return False


def test_serve_places_a_curve_daemon_per_host_that_a_loader_reads(cluster, tmp_path):
    args = dict(batch_size=3, profile="sakura", seed=5)
    with textfeed.Loader(dataset=SAMPLE, **args) as local:
        expected = _batches(local)
    with tfdask.serve(cluster, {"icdar": SAMPLE}, threads=2) as daemons:
        assert len(daemons.endpoints) == 1  # one host: one daemon, though two workers
        ep = daemons.endpoints[0]
        assert ep.startswith("tcp://") and _port_open(ep)
        assert "public = " in Path(daemons.server_keys[0]).read_text()
        assert (os.stat(daemons.client_key).st_mode & 0o777) == 0o600
        with textfeed.Loader(**daemons.loader_kwargs(0), dataset="icdar", **args) as remote:
            _equal(_batches(remote), expected)
        # A key the daemon was not given is refused.
        subprocess.run([TEXTFEED, "keygen", "--out", str(tmp_path / "stranger")], check=True, capture_output=True)
        with pytest.raises(textfeed.errors.UnavailableError):
            textfeed.Loader(ep, dataset="icdar", batch_size=3, timeout=1.0, curve_server_key=daemons.server_keys[0],
                            curve_client_key=str(tmp_path / "stranger.key"))
        folder = Path(daemons.client_key).parent
    assert daemons.closed and not folder.exists()
    deadline = time.monotonic() + 10
    while _port_open(ep) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _port_open(ep), "the daemon still listens after close()"


def test_serve_refuses_bad_arguments(cluster):
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="NAME=PATH"):
        tfdask.serve(cluster, ["icdar"])
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="at least one"):
        tfdask.serve(cluster, {})
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="threads"):
        tfdask.serve(cluster, {"icdar": SAMPLE}, threads=-1)
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="no worker"):
        tfdask.serve(cluster, {"icdar": SAMPLE}, hosts=["no-such-host"])
    # A dataset the daemon cannot open: it exits, and the error carries its log.
    with pytest.raises(textfeed.errors.UnavailableError, match="textfeed-dataset: no such file"):
        tfdask.serve(cluster, {"x": "/nonexistent/textfeed-dataset"}, timeout=10)
