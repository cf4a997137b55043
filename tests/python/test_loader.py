"""textfeed.Loader, embedded and against a `textfeed serve` process: shapes and dtypes, identical
batches in both modes, exact mid-epoch resume, ranks covering an epoch, tensors that stay valid,
the no-CUDA path, daemon errors as exceptions, Ctrl-C, daemon restarts, no shared memory left."""

import ctypes
import gc
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

import textfeed
from textfeed import errors
from support import SAMPLE, TEXTFEED, Daemon


def slot_mappings(pid):
    """Mappings of batch-slot memory files (memfd) in process `pid`: a client's ring, or the rings
    of its clients that a daemon maps. Empty for a process that is gone."""
    try:
        return [line for line in Path(f"/proc/{pid}/maps").read_text().splitlines() if "memfd:textfeed-slots" in line]
    except (FileNotFoundError, ProcessLookupError):
        return []


@pytest.fixture
def daemon(tmp_path):
    d = Daemon(tmp_path)
    d.start()
    yield d
    d.stop()


def loader(endpoint=None, **kw):
    args = dict(dataset=str(SAMPLE) if endpoint is None else "icdar", batch_size=3, profile="sakura", seed=7,
                prefetch=2, threads=2)
    args.update(kw)
    return textfeed.Loader(endpoint, **args)


def as_bytes(batch):
    return [t.clone() for t in batch]


def same(a, b):
    return all(torch.equal(x, y) for x, y in zip(a, b))


def test_shapes_and_dtypes_of_the_references():
    with textfeed.Loader(dataset=str(SAMPLE), batch_size=2, profile="upstage", threads=2) as up:
        img, score, geo, roi = next(iter(up))
        assert img.shape == (2, 3, 1024, 1024) and img.dtype == torch.float32
        assert score.shape == (2, 1, 512, 512) and geo.shape == (2, 5, 512, 512) and roi.shape == (2, 1, 512, 512)
        assert all(t.dtype == torch.float32 for t in (score, geo, roi))
        assert -1.0 <= float(img.min()) and float(img.max()) <= 1.0
    with loader(dtype="uint8", crop_size=256) as sr:
        assert len(sr) == 4  # 10 samples in batches of 3
        img, score, geo, ignored = next(iter(sr))
        assert img.shape == (3, 3, 256, 256) and img.dtype == torch.uint8
        assert score.shape == (3, 1, 64, 64) and geo.shape == (3, 5, 64, 64)
        batch = next(iter(sr))  # a new iteration runs the next epoch, as RandomSampler would
        assert batch.epoch == 1 and batch.batch == 0 and len(batch.indices) == 3 and batch.errors == []
        del batch  # with prefetch=2, holding two batches would leave no slot to fill
        sr.set_epoch(0)
        again = next(iter(sr))
        assert again.epoch == 0 and torch.equal(again[0], img)


def test_bad_arguments_are_refused_before_anything_starts():
    with pytest.raises(TypeError, match="colour"):
        loader(colour="red")
    with pytest.raises(errors.InvalidArgumentError):
        loader(batch_size=0)
    with pytest.raises(errors.InvalidArgumentError, match="map_scale"):
        loader(map_scale=0.3)
    with pytest.raises(errors.NotFoundError):
        textfeed.Loader(dataset="/nonexistent/data", batch_size=2)


def test_embedded_and_remote_batches_are_identical(daemon):
    with loader() as embedded, loader(daemon.endpoint) as shm, loader(daemon.endpoint, transport="frames") as frames:
        assert shm.stats()["transport"] == "shm" and frames.stats()["transport"] == "frames"
        for epoch in (0, 1):
            for a, b, c in zip(embedded, shm, frames):
                assert a.indices == b.indices == c.indices and (a.epoch, a.batch) == (b.epoch, b.batch)
                assert same(a, b) and same(a, c)
            assert embedded.state_dict()["epoch"] == epoch + 1  # iterations move on by themselves


def test_state_dict_at_batch_k_resumes_with_exactly_the_rest(daemon):
    with loader(batch_size=2) as full:
        full.set_epoch(3)
        reference = [as_bytes(b) for b in full]
    for endpoint in (None, daemon.endpoint):
        with loader(endpoint, batch_size=2) as first:
            first.set_epoch(3)
            it = iter(first)
            for _ in range(2):
                next(it)
            state = first.state_dict()
        assert (state["epoch"], state["batch"]) == (3, 2)
        with loader(endpoint, batch_size=2) as resumed:
            resumed.load_state_dict(state)
            rest = [as_bytes(b) for b in resumed]
        assert len(rest) == len(reference) - 2
        assert all(same(a, b) for a, b in zip(rest, reference[2:]))
    # Another batch size resumes elastically: the rest of the epoch is the samples not delivered.
    delivered = [i for b in reference[:2] for i in b.indices] if hasattr(reference[0], "indices") else None
    with loader(batch_size=4) as other:
        other.load_state_dict(state)
        rest_indices = [i for b in other for i in b.indices]
    with loader(batch_size=2) as full:
        full.set_epoch(3)
        everything = [i for b in full for i in b.indices]
    assert sorted(rest_indices) == sorted(everything[4:])
    assert delivered is None or set(delivered).isdisjoint(rest_indices)


def test_two_ranks_cover_an_epoch_once(daemon):
    for endpoint in (None, daemon.endpoint):
        seen = []
        counts = []
        for rank in (0, 1):
            with loader(endpoint, rank=rank, world_size=2) as l:
                counts.append(len(l))
                for b in l:
                    seen += b.indices
        assert counts[0] == counts[1]
        assert sorted(seen) == list(range(10))


def test_tensors_stay_valid_until_dropped_and_slots_are_recycled_then():
    with loader(batch_size=1, prefetch=3) as l:  # a ring of 3 slots
        it = iter(l)
        first = next(it)
        kept = as_bytes(first)
        for _ in range(5):  # each batch dropped at the next step: the ring turns over
            next(it)
        assert same(first, kept), "a slot still referenced was overwritten"
        held = [first, next(it), next(it)]
        with pytest.raises(errors.OverloadedError, match="held"):
            next(it)
        del held, first
        assert next(iter(l)) is not None  # dropping them is enough


def test_without_cuda_the_slots_are_ordinary_memory_and_it_says_so_once(caplog):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    import textfeed.loader as module

    module._said_no_cuda = False
    with caplog.at_level(logging.INFO, logger="textfeed"):
        with loader() as a, loader() as b:
            assert not a.stats()["pinned"] and not b.stats()["pinned"]
            assert not next(iter(a))[0].is_pinned()
    assert sum("CUDA is not available" in r.message for r in caplog.records) == 1


def test_daemon_errors_become_exceptions_with_its_message(daemon):
    with pytest.raises(errors.NotFoundError, match="no dataset named 'nope'"):
        loader(daemon.endpoint, dataset="nope")
    with pytest.raises(errors.InvalidArgumentError, match="batch_size"):
        loader(daemon.endpoint, batch_size=100000)
    with pytest.raises(errors.UnavailableError, match="no textfeed daemon"):
        loader("ipc:///tmp/textfeed-nobody-here.sock", timeout=0.5)


def test_stats(daemon):
    with loader(daemon.endpoint) as l:
        for _ in l:
            pass
        s = l.stats()
        assert s["mode"] == "remote" and s["batches"] == 4 and s["samples"] == 10
        assert s["samples_per_second"] > 0
    with loader() as l:
        list(b.indices for b in l)
        s = l.stats()
        assert s["stage_ms_per_sample"]["decode"] > 0 and s["skipped_samples"] == 0


CHILD = textwrap.dedent("""
    import sys, textfeed
    l = textfeed.Loader(sys.argv[1], dataset="icdar", batch_size=1, profile="sakura", prefetch=2)
    print("ready", flush=True)
    for epoch in range(1000):
        for batch in l:
            pass
""")


def test_a_killed_client_leaves_no_shared_memory_and_the_daemon_serves_on(daemon):
    child = subprocess.Popen([sys.executable, "-c", CHILD, daemon.endpoint], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert child.stdout.readline().strip() == "ready"
    assert slot_mappings(child.pid), "the remote loader should use shared memory"
    assert slot_mappings(daemon.proc.pid), "the daemon should map the client's slots"
    child.kill()  # wherever it is: mid-batch, waiting, or between credits
    child.communicate()
    deadline = time.monotonic() + 15
    while slot_mappings(daemon.proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert slot_mappings(daemon.proc.pid) == [], "the daemon did not unmap the killed client's shared memory"
    with loader(daemon.endpoint) as l:  # and serves on
        assert len(list(b.indices for b in l)) == 4


def test_ctrl_c_stops_a_waiting_loop_cleanly(daemon):
    child = subprocess.Popen([sys.executable, "-c", CHILD, daemon.endpoint], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert child.stdout.readline().strip() == "ready"
    daemon.proc.send_signal(signal.SIGSTOP)  # the loop now waits for batches that do not come
    try:
        # Ctrl-C must end the loop wherever it is; the pause (not a condition: nothing outside the
        # child can see it wait) makes it likely that it is inside next(), waiting for a batch.
        time.sleep(0.5)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=15)
    finally:
        daemon.proc.send_signal(signal.SIGCONT)
    assert "KeyboardInterrupt" in err
    deadline = time.monotonic() + 15
    while slot_mappings(daemon.proc.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert slot_mappings(daemon.proc.pid) == [], "the daemon still maps the interrupted client's memory"


def test_a_daemon_killed_mid_epoch_and_restarted_loses_and_repeats_nothing(daemon):
    with loader(batch_size=1) as embedded:
        reference = [as_bytes(b) for b in embedded]
    with loader(daemon.endpoint, batch_size=1, daemon_timeout=1.0, reconnect_timeout=30) as remote:
        got = []
        for k, batch in enumerate(remote):
            got.append((batch.batch, as_bytes(batch)))
            if k == 3:
                daemon.kill()
                daemon.start()
        assert [b for b, _ in got] == list(range(10))
        assert all(same(a, reference[i]) for i, a in got)
        assert remote.stats()["reconnects"] >= 1


class FakeCudart:
    """Records cudaHostRegister / cudaHostUnregister calls (the real ones need a GPU)."""

    def __init__(self):
        self.registered, self.unregistered = [], []

    def cudaHostRegister(self, address, size, flags):
        self.registered.append((address, size, flags))
        return 0

    def cudaHostUnregister(self, address):
        self.unregistered.append(address)
        return 0


class FakeEvent:
    """A CUDA event whose copies finish when the test says so."""

    done = False

    def record(self):
        pass

    def query(self):
        return FakeEvent.done

    def synchronize(self):
        FakeEvent.done = True


def test_with_cuda_the_ring_is_registered_and_slots_wait_for_their_copies(monkeypatch):
    cudart = FakeCudart()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "cudart", lambda: cudart)
    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    FakeEvent.done = False
    l = loader(batch_size=1, prefetch=3)
    assert l.stats()["pinned"]
    ((address, size, flags),) = cudart.registered
    assert size >= 3 * 512 * 512 * 3 * 4 and flags == 0
    it = iter(l)
    first = next(it)
    pointer, size = first[0].data_ptr(), first[0].numel() * 4
    kept = ctypes.string_at(pointer, size)
    del first  # as if `.cuda(non_blocking=True)` had been queued from it: the copy may still run
    next(it)
    next(it)  # the other two slots, each dropped at once
    assert ctypes.string_at(pointer, size) == kept, "a slot was refilled before its copy finished"
    # All three slots wait for their copies now: the loader synchronizes the oldest and goes on.
    batch = next(it)
    assert FakeEvent.done and batch is not None
    del batch, it
    l.close()
    gc.collect()
    assert cudart.unregistered == [address]  # once the last tensor over the ring is gone


def test_on_bad_sample_fail_raises_naming_the_file_in_both_modes(tmp_path):
    import shutil

    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    (data / "images" / "img_3.jpg").write_bytes(b"not a jpeg")
    d = Daemon(tmp_path)
    d.sock = tmp_path / "bad.sock"
    d.endpoint = f"ipc://{d.sock}"
    proc = subprocess.Popen([TEXTFEED, "serve", "--dataset", f"bad={data}", "--bind", d.endpoint, "--threads", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not d.sock.exists():
            assert proc.poll() is None
            time.sleep(0.02)
        for endpoint, name in ((None, str(data)), (d.endpoint, "bad")):
            with loader(endpoint, dataset=name, batch_size=10, on_bad_sample="fail") as l:
                for _ in range(2):  # and again: the failed batch is not skipped
                    with pytest.raises(errors.CorruptSampleError, match="img_3.jpg"):
                        next(iter(l))
            with loader(endpoint, dataset=name, batch_size=10) as l:  # skip: replaced and reported
                (batch,) = list(l)
                (err,) = batch.errors
                assert err.code == "Corrupt" and "img_3.jpg" in err.message and err.replaced_by != err.index
                assert l.stats()["skipped_samples"] == 1
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def test_frames_prefetch_beyond_the_daemons_credit_limit_is_capped(daemon):
    with loader(daemon.endpoint, transport="frames", prefetch=20, batch_size=1) as l:
        assert len([b.indices for b in l]) == 10
