"""textfeed.dask on a LocalCluster of this machine (2 worker processes): daemons placed on the workers'
host over tcp with CURVE, read by a Loader; sharded cache builds, also with a worker killed mid-way."""
import os
import shlex
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
    args = dict(batch_size=3, profile="sakura", sampler=textfeed.SamplerOptions(seed=5))
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
        # Every daemon at once (here the one), plus this process's threads, compact over the wire.
        with textfeed.Loader(**daemons.loader_kwargs(local_threads=1, local_dataset=SAMPLE), dataset="icdar",
                             output=textfeed.OutputOptions(payload="compact"), **args) as several:
            _equal(_batches(several), expected)
        # A key the daemon was not given is refused.
        subprocess.run([TEXTFEED, "keygen", "--out", str(tmp_path / "stranger")], check=True, capture_output=True)
        with pytest.raises(textfeed.errors.UnavailableError):
            textfeed.Loader("icdar", 3, endpoint=ep, daemon=textfeed.DaemonOptions(
                timeout=1.0, curve_server_key=daemons.server_keys[0], curve_client_key=str(tmp_path / "stranger.key")))
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
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="a list of host names"):
        tfdask.serve(cluster, {"icdar": SAMPLE}, hosts="127.0.0.1")
    # A dataset the daemon cannot open: it exits, and the error carries its log.
    with pytest.raises(textfeed.errors.UnavailableError, match="textfeed-dataset: no such file"):
        tfdask.serve(cluster, {"x": "/nonexistent/textfeed-dataset"}, timeout=10)


def _cache_batches(path, n=None):
    with textfeed.Loader(dataset=str(path), batch_size=3, profile="sakura", sampler=textfeed.SamplerOptions(seed=11)) as loader:
        return _batches(loader, n)


def test_a_sharded_build_on_the_cluster_gives_the_single_caches_batches(cluster, tmp_path):
    single = tmp_path / "single.tfc"
    subprocess.run([TEXTFEED, "cache", "build", "--dataset", str(SAMPLE), "--profile", "sakura", "--codec", "jpeg",
                    "--out", str(single)], check=True, capture_output=True, timeout=300)
    seen = []
    r = tfdask.build_cache(cluster, SAMPLE, tmp_path / "s.tfmanifest", shards=3, profile="sakura", codec="jpeg",
                           threads=1, progress=lambda s, done, total: seen.append((s["shard"], done, total)))
    assert sorted(s for s, _, _ in seen) == [0, 1, 2] and [d for _, d, _ in seen] == [1, 2, 3]
    assert [Path(s["path"]).name for s in r["shards"]] == [p.name for p in tfdask.shard_paths(r["manifest"], 3)]
    verify = subprocess.run([TEXTFEED, "cache", "verify", r["manifest"]], capture_output=True, text=True, timeout=300)
    assert verify.returncode == 0, verify.stderr
    _equal(_cache_batches(r["manifest"]), _cache_batches(single))
    # The same outputs again: refused without force, before any task runs.
    with pytest.raises(textfeed.errors.InvalidArgumentError, match="force=True"):
        tfdask.build_cache(cluster, SAMPLE, r["manifest"], shards=3, profile="sakura", codec="jpeg")


def test_a_worker_killed_mid_build_costs_a_retry_not_a_shard(cluster, tmp_path):
    pids = cluster.run(os.getpid)  # worker address -> pid
    killed = []

    def killer():
        deadline = time.monotonic() + 60
        while not killed and time.monotonic() < deadline:
            busy = [w for w, keys in cluster.processing().items() if keys]
            if busy and busy[0] in pids:
                time.sleep(0.2)  # inside the task's textfeed command
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(busy[0])
            time.sleep(0.02)

    t = threading.Thread(target=killer)
    t.start()
    try:
        r = tfdask.build_cache(cluster, SAMPLE, tmp_path / "k.tfmanifest", shards=5, profile="sakura", codec="jpeg",
                               threads=1, progress=False)
    finally:
        t.join()
    assert killed, "no worker was busy to kill"
    verify = subprocess.run([TEXTFEED, "cache", "verify", r["manifest"]], capture_output=True, text=True, timeout=300)
    assert verify.returncode == 0, verify.stderr
    single = tmp_path / "single.tfc"
    subprocess.run([TEXTFEED, "cache", "build", "--dataset", str(SAMPLE), "--profile", "sakura", "--codec", "jpeg",
                    "--out", str(single)], check=True, capture_output=True, timeout=300)
    _equal(_cache_batches(r["manifest"]), _cache_batches(single))
    cluster.wait_for_workers(2, timeout=60)  # the nanny restarted the killed one


def test_build_cache_refuses_bad_arguments(cluster, tmp_path):
    E = textfeed.errors
    with pytest.raises(E.InvalidArgumentError, match="shards"):
        tfdask.build_cache(cluster, SAMPLE, tmp_path / "a.tfmanifest", shards=0)
    with pytest.raises(E.InvalidArgumentError, match="1..4096"):
        tfdask.build_cache(cluster, SAMPLE, tmp_path / "a.tfmanifest", shards=4097)
    with pytest.raises(E.InvalidArgumentError, match="tfmanifest"):
        tfdask.build_cache(cluster, SAMPLE, tmp_path / "a.tfc", shards=2)
    with pytest.raises(E.InvalidArgumentError, match="unknown option 'colour'"):
        tfdask.build_cache(cluster, SAMPLE, tmp_path / "a.tfmanifest", shards=2, colour="red")
    with pytest.raises(E.InvalidArgumentError, match="image_size"):
        tfdask.build_cache(cluster, SAMPLE, tmp_path / "a.tfmanifest", shards=2, image_size=[1])
    with pytest.raises(E.NotFoundError, match="does not exist"):
        tfdask.build_cache(cluster, tmp_path / "nothing", tmp_path / "a.tfmanifest", shards=2)
    # A shard that fails on every try: the command's own message, and no manifest.
    with pytest.raises(E.TextfeedError, match="quality"):
        tfdask.build_cache(cluster, SAMPLE, tmp_path / "b.tfmanifest", shards=2, codec="jpeg", quality=1000,
                           retries=0, progress=False)
    assert not (tmp_path / "b.tfmanifest").exists()
    assert tfdask.shard_paths(tmp_path / "c.tfmanifest", 12)[3].name == "c.03-of-12.tfc"


def test_the_cache_build_command_prints_the_textfeed_dask_command_that_makes_its_build(cluster, tmp_path):
    # The command runs no Python (textfeed.dask runs the command on the workers: no cycle). It
    # exits 2 with the exact python3 -m textfeed.dask command, which makes the build.
    out = tmp_path / "cli.tfmanifest"
    proc = subprocess.run([TEXTFEED, "cache", "build", "--dask", cluster.scheduler.address, "--shards", "2",
                           "--dataset", str(SAMPLE), "--out", str(out), "--profile", "sakura", "--codec", "jpeg",
                           "--threads", "1"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "this command does not run Python" in proc.stderr and not out.exists()
    command = shlex.split(proc.stderr.split("installed):\n", 1)[1])
    assert command[:4] == ["/usr/bin/python3", "-m", "textfeed.dask", "build"]
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(textfeed.__file__))}
    built = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert built.returncode == 0, built.stderr
    assert f"wrote {out}: 2 shards" in built.stdout and "[2/2]" in built.stderr
    assert sorted(p.name for p in tmp_path.glob("cli.*-of-2.tfc")) == ["cli.0-of-2.tfc", "cli.1-of-2.tfc"]
    single = tmp_path / "single.tfc"
    subprocess.run([TEXTFEED, "cache", "build", "--dataset", str(SAMPLE), "--profile", "sakura", "--codec", "jpeg",
                    "--out", str(single)], check=True, capture_output=True, timeout=300)
    _equal(_cache_batches(out), _cache_batches(single))
    again = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert again.returncode == 1 and "force=True" in again.stderr


def test_the_printed_command_carries_every_build_option_exactly(tmp_path):
    odd = tmp_path / "it's a data set"  # quoted for the shell, and read back as it was
    proc = subprocess.run([TEXTFEED, "cache", "build", "--dask", "tcp://127.0.0.1:1", "--shards", "3", "--dataset",
                           str(odd), "--out", str(tmp_path / "e.tfmanifest"), "--max-bad", "0.0000004",
                           "--ignore-under-area", "0.1", "--restart-rows", "--codec", "jpeg"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    words = shlex.split(proc.stderr.split("installed):\n", 1)[1])
    assert words[:4] == ["/usr/bin/python3", "-m", "textfeed.dask", "build"] and "--restart-rows" in words
    values = dict(w.split("=", 1) for w in words[4:] if "=" in w)  # each flag and its value: one word
    assert values["--dataset"] == str(odd)
    assert values["--scheduler"] == "tcp://127.0.0.1:1" and values["--shards"] == "3"
    assert float(values["--max-bad"]) == 0.0000004
    assert float(values["--ignore-under-area"]) == 0.1
    for args, message in [(["--shards", "2"], "--shards N goes with --dask"),
                          (["--dask", "tcp://127.0.0.1:1"], "--dask needs --shards N"),
                          (["--dask", "tcp://127.0.0.1:1", "--shards", "2", "--shard", "0/2"], "not --shard")]:
        bad = subprocess.run([TEXTFEED, "cache", "build", "--dataset", str(SAMPLE), "--out", str(tmp_path / "b.tfc"),
                              *args], capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
