"""textfeed.Loader under hostile use: arguments of every wrong type and range, thread counts past
what a process can start, timeouts that are not numbers, checkpoints of other datasets, sample
errors whose text is not UTF-8, Ctrl-C during a long fill, os.fork(), and an iteration that is
superseded, re-placed or closed from another thread."""

import json
import math
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import torch

import textfeed
from textfeed import errors
from support import SAMPLE, TEXTFEED

THREADS_ERROR = "threads must be 0 (one per core) or 1..1024, got {}"


def loader(endpoint=None, **kw):
    args = dict(dataset=str(SAMPLE) if endpoint is None else "icdar", batch_size=3, profile="sakura", seed=7,
                prefetch=2, threads=2)
    args.update(kw)
    return textfeed.Loader(endpoint, **args)


def run_child(code, *args, timeout=120):
    """Runs `code` in a fresh interpreter; (returncode, stdout, stderr), or a failure on timeout."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # A session of its own, so that a timeout ends its forks too (they hold the pipes open).
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"the child did not finish in {timeout} s\nstdout: {out}\nstderr: {err[-3000:]}")
    return proc.returncode, out, err


# ---------------------------------------------------------------- issue 5, 29: thread counts


@pytest.mark.parametrize("threads", [100000, 1025, -1, 10**30])
def test_thread_counts_out_of_range_are_refused_with_the_bound_of_every_entry_point(threads):
    with pytest.raises(errors.InvalidArgumentError) as e:
        loader(threads=threads)
    assert str(e.value) == THREADS_ERROR.format(threads)


@pytest.mark.parametrize("command", [["serve", "--dataset", f"x={SAMPLE}", "--bind", "ipc:///tmp/textfeed-never.sock"],
                                     ["cache", "build", "--dataset", str(SAMPLE), "--out", "/tmp/textfeed-never.tfc"],
                                     ["bench", "--dataset", str(SAMPLE)],
                                     ["synth", "--out", "/tmp/textfeed-never-synth"]])
def test_every_command_refuses_the_same_thread_counts_with_the_same_message(command):
    for threads in (100000, -1):
        proc = subprocess.run([TEXTFEED, *command, "--threads", str(threads)], capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 2, proc.stderr
        assert THREADS_ERROR.format(threads) in proc.stderr
    assert not Path("/tmp/textfeed-never.tfc").exists() and not Path("/tmp/textfeed-never-synth").exists()


def test_more_threads_than_the_process_may_start_is_an_error_not_a_terminate():
    code, out, err = run_child(f"""
        import resource, textfeed
        soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
        resource.setrlimit(resource.RLIMIT_NPROC, (16, hard))
        try:
            textfeed.Loader(dataset={str(SAMPLE)!r}, batch_size=2, threads=64)
        except textfeed.errors.UnavailableError as e:
            print("refused:", e)
    """)
    assert code == 0, err
    assert "refused: cannot start 64 worker threads" in out and "ulimit -u" in out


# ---------------------------------------------------------------- issue 29 and beyond: argument types


BAD_ARGUMENTS = [
    (dict(threads=True), errors.ArgumentTypeError, "threads must be an int"),
    (dict(threads=2.5), errors.ArgumentTypeError, "threads must be an int"),
    (dict(threads="4"), errors.ArgumentTypeError, "threads must be an int"),
    (dict(batch_size="3"), errors.ArgumentTypeError, "batch_size must be an int"),
    (dict(batch_size=3.7), errors.ArgumentTypeError, "batch_size must be an int"),
    (dict(batch_size=True), errors.ArgumentTypeError, "batch_size must be an int"),
    (dict(batch_size=0), errors.InvalidArgumentError, "batch_size must be in 1..4096"),
    (dict(batch_size=4097), errors.InvalidArgumentError, "batch_size must be in 1..4096"),
    (dict(seed=-1), errors.InvalidArgumentError, "seed must be in 0..18446744073709551615"),
    (dict(seed=2**64), errors.InvalidArgumentError, "seed must be in"),
    (dict(seed=1.0), errors.ArgumentTypeError, "seed must be an int"),
    (dict(rank=-1), errors.InvalidArgumentError, "rank must be in"),
    (dict(rank=2, world_size=2), errors.InvalidArgumentError, "rank must be in 0..world_size-1"),
    (dict(world_size=0), errors.InvalidArgumentError, "world_size must be in"),
    (dict(world_size=False), errors.ArgumentTypeError, "world_size must be an int"),
    (dict(shuffle=1), errors.ArgumentTypeError, "shuffle must be True or False"),
    (dict(drop_last="no"), errors.ArgumentTypeError, "drop_last must be True or False"),
    (dict(pin_memory=None), errors.ArgumentTypeError, "pin_memory must be True or False"),
    (dict(prefetch=True), errors.ArgumentTypeError, "prefetch must be an int"),
    (dict(prefetch=65), errors.InvalidArgumentError, "prefetch must be in 2..64"),
    (dict(profile=b"sakura"), errors.ArgumentTypeError, "profile must be one of"),
    (dict(profile="nope"), errors.InvalidArgumentError, "profile must be one of"),
    (dict(dtype=torch.float32), errors.ArgumentTypeError, "dtype must be one of"),
    (dict(on_bad_sample=1), errors.ArgumentTypeError, "on_bad_sample must be one of"),
    (dict(on_bad_sample="replace"), errors.InvalidArgumentError, "on_bad_sample must be one of"),
    (dict(transport="udp"), errors.InvalidArgumentError, "transport must be one of"),
    (dict(dataset=str(SAMPLE).encode()), errors.ArgumentTypeError, "dataset must be a str or os.PathLike"),
    (dict(dataset=str(SAMPLE) + "\0/x"), errors.InvalidArgumentError, "dataset contains a NUL"),
    (dict(dataset=""), errors.InvalidArgumentError, "dataset is empty"),
    (dict(dataset="d" * 5000), errors.InvalidArgumentError, "dataset is 5000 bytes long"),
    (dict(dataset=None), errors.ArgumentTypeError, "dataset must be a path, a Source or a list of them"),
    (dict(crop_size=512.0), errors.ArgumentTypeError, "crop_size must be an int"),
    (dict(image_size=True), errors.ArgumentTypeError, "image_size must be an int"),
    (dict(map_scale=float("nan")), errors.InvalidArgumentError, "augment option map_scale = nan: must be in (0, 1]"),
    (dict(map_scale="a quarter"), errors.InvalidArgumentError,
     "option map_scale = 'a quarter': expected a finite decimal number"),
    (dict(rotate_deg=float("inf")), errors.InvalidArgumentError, "augment option rotate_deg = inf: must be in"),
    (dict(rotate_deg=[10]), errors.ArgumentTypeError, "rotate_deg must be a number"),
    (dict(fill_rule="x\0y"), errors.InvalidArgumentError, "fill_rule must be one of"),
    (dict(fill_rule=1), errors.ArgumentTypeError, "fill_rule must be one of"),
    (dict(colour="red"), errors.ArgumentTypeError, "unexpected keyword argument 'colour'"),
    (dict(curve_server_key=b"k"), errors.ArgumentTypeError, "curve_server_key must be a str or os.PathLike"),
]


@pytest.mark.parametrize("kw,error,message", BAD_ARGUMENTS, ids=[repr(k)[:40] for k, _, _ in BAD_ARGUMENTS])
def test_every_argument_of_a_loader_is_checked_and_named(kw, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(".", r"\.")):
        loader(**kw)


def test_type_errors_are_type_errors_and_value_errors_value_errors():
    with pytest.raises(TypeError):
        loader(batch_size="3")
    with pytest.raises(ValueError):
        loader(batch_size=0)


@pytest.mark.parametrize("name", ["timeout", "daemon_timeout", "reconnect_timeout"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), 0, -1.0, 86401, 1e300])
def test_timeouts_are_finite_positive_and_at_most_a_day(name, value):
    # Refused before any connection is made: no daemon listens there.
    with pytest.raises(errors.InvalidArgumentError, match=f"^{name} must be a finite number in"):
        loader("ipc:///tmp/textfeed-nobody-here.sock", **{name: value})


def test_timeouts_are_checked_in_cpp_too():
    with pytest.raises(errors.InvalidArgumentError, match="daemon_timeout must be a finite number of seconds"):
        textfeed._core.open_remote("ipc:///tmp/textfeed-nobody-here.sock",
                                   textfeed._core.PipelineSpec(textfeed.Profile.SAKURA, "x"),
                                   transport=textfeed.Transport.AUTO, prefetch=2, epoch=0, batch=0, client_name="t",
                                   timeout_s=1.0, daemon_timeout_s=float("nan"), reconnect_timeout_s=1.0,
                                   curve_server_key="", curve_client_key="")


def test_paths_may_be_pathlike_or_any_file_name(tmp_path):
    with loader(dataset=pathlib.Path(SAMPLE)) as l:
        assert len(l) == 4
    odd = tmp_path / os.fsdecode(b"data-\xff")  # not UTF-8: os.listdir would give it so
    shutil.copytree(SAMPLE, odd)
    with loader(dataset=odd) as l:
        assert next(iter(l)).indices


# ---------------------------------------------------------------- issue 15: checkpoints name their dataset


def copy_with_one_word_moved(tmp_path):
    data = tmp_path / "moved"
    shutil.copytree(SAMPLE, data)
    gt = data / "gt" / "gt_img_1.txt"
    lines = gt.read_text(encoding="utf-8-sig").splitlines()
    x1, rest = lines[0].split(",", 1)
    lines[0] = f"{int(x1) + 1},{rest}"
    gt.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return data


def test_a_checkpoint_of_another_dataset_of_the_same_size_is_refused(tmp_path):
    with loader() as l:
        state = l.state_dict()
    assert len(state["dataset_fingerprint"]) == 16
    with loader(dataset=copy_with_one_word_moved(tmp_path)) as other:
        assert other.state_dict()["dataset_size"] == state["dataset_size"]
        with pytest.raises(errors.InvalidArgumentError, match=r"state\['dataset_fingerprint'\].*another dataset"):
            other.load_state_dict(state)
    with loader(dataset=pathlib.Path(SAMPLE)) as same:  # the same dataset, named another way
        same.load_state_dict(json.loads(json.dumps(state)))  # a state survives JSON


BAD_STATES = [
    (dict(batch="3"), errors.ArgumentTypeError, r"state\['batch'\] must be an int"),
    (dict(batch=3.7), errors.ArgumentTypeError, r"state\['batch'\] must be an int"),
    (dict(batch=True), errors.ArgumentTypeError, r"state\['batch'\] must be an int"),
    (dict(batch=5), errors.InvalidArgumentError, r"state\['batch'\] must be in 0\.\.4"),
    (dict(epoch=-1), errors.InvalidArgumentError, r"state\['epoch'\] must be in"),
    (dict(version=1), errors.InvalidArgumentError, r"state\['version'\] is 1"),
    (dict(version="2"), errors.ArgumentTypeError, r"state\['version'\] must be an int"),
    (dict(seed=8), errors.InvalidArgumentError, r"state\['seed'\] is 8 but this Loader has seed=7"),
    (dict(batch_size=0), errors.InvalidArgumentError, r"state\['batch_size'\] must be in 1\.\.4096"),
    (dict(world_size=2, batch=[1, 2, 3]), errors.InvalidArgumentError, r"lists 3 counts for 2 ranks"),
    (dict(world_size=2, batch=[9, 9]), errors.InvalidArgumentError, r"rank 0 delivered 9 batches"),
    (dict(resume=[[2, 3]]), errors.InvalidArgumentError, r"must be \[world_size, batch_size, batches\]"),
    (dict(resume=[[2, 3, [1, 1, 1]]]), errors.InvalidArgumentError, r"must list 1 or 2 batch counts"),
    (dict(resume="x"), errors.InvalidArgumentError, r"state\['resume'\] must be a list"),
    (dict(shuffle=False), errors.InvalidArgumentError, r"state\['shuffle'\] is False"),
    (dict(shuffle=0), errors.ArgumentTypeError, r"state\['shuffle'\] must be True or False"),
    (dict(drop_last=True), errors.InvalidArgumentError, r"state\['drop_last'\] is True"),
    (dict(profile="upstage"), errors.InvalidArgumentError, r"state\['profile'\] is 'upstage'"),
    (dict(dataset_size=11), errors.InvalidArgumentError, r"state\['dataset_size'\] is 11"),
    (dict(rank=1), errors.InvalidArgumentError, r"state\['rank'\] must be in 0\.\.0"),
    (dict(dataset_fingerprint=None), errors.InvalidArgumentError, r"state\['dataset_fingerprint'\] is None"),
    (dict(dataset_fingerprint="xyz"), errors.InvalidArgumentError, r"state\['dataset_fingerprint'\] must be 16 hex"),
    (dict(dataset_fingerprint=12), errors.ArgumentTypeError, r"state\['dataset_fingerprint'\] must be a str"),
    (dict(extra=1), errors.InvalidArgumentError, r"unknown field\(s\) 'extra'"),
    (dict(epoch_size=20), errors.InvalidArgumentError, r"state\['epoch_size'\] is 20 but this Loader has epoch_size=None"),
    (dict(epoch_size="20"), errors.ArgumentTypeError, r"state\['epoch_size'\] must be an int"),
    (dict(mode="eval"), errors.InvalidArgumentError, r"state\['mode'\] is 'eval' but this Loader has mode='train'"),
    (dict(version=3, extra=1), errors.InvalidArgumentError, r"state\['version'\] is 3; this textfeed reads version 4"),
]


@pytest.mark.parametrize("change,error,message", BAD_STATES, ids=[repr(c)[:40] for c, _, _ in BAD_STATES])
def test_every_field_of_a_state_is_checked_and_named(change, error, message):
    with loader() as l:
        state = {**l.state_dict(), **change}
        before = l.state_dict()
        with pytest.raises(error, match=message):
            l.load_state_dict(state)
        assert l.state_dict() == before  # a refused state changes nothing


# ---------------------------------------------------------------- issue 30 #2: every input of the order


def weighted(weights, epoch_size=None, **kw):
    return loader(dataset=[textfeed.Source(SAMPLE, weight=w) for w in weights], epoch_size=epoch_size, **kw)


def test_a_state_names_every_input_of_the_order():
    with weighted((2, 1), epoch_size=20) as l:
        state = l.state_dict()
    assert (state["version"], state["epoch_size"], state["mode"]) == (4, 20, "train")
    with loader() as l:
        assert l.state_dict()["epoch_size"] is None  # none given: every sample once


def test_a_state_of_another_epoch_size_is_refused():
    with weighted((2, 1), epoch_size=20) as l:
        next(iter(l))
        state = l.state_dict()
    with weighted((2, 1), epoch_size=30) as other:
        with pytest.raises(errors.InvalidArgumentError, match=r"state\['epoch_size'\] is 20 but this Loader has "
                                                              r"epoch_size=30"):
            other.load_state_dict(state)
    with weighted((2, 1)) as default:  # no epoch_size: the sum of the sizes, another order too
        with pytest.raises(errors.InvalidArgumentError, match=r"epoch_size=None"):
            default.load_state_dict(state)
    with weighted((2, 1), epoch_size=20) as same:
        same.load_state_dict(state)
        assert next(iter(same)).batch == 1


def test_a_state_of_weights_that_print_alike_is_refused():
    # At 6 decimals both weightings read (0.000000, 0.000000): the fingerprint hashes their bits.
    with weighted((1e-7, 4e-7)) as a, weighted((4e-7, 1e-7)) as b:
        state = a.state_dict()
        assert state["dataset_fingerprint"] != b.state_dict()["dataset_fingerprint"]
        with pytest.raises(errors.InvalidArgumentError, match=r"state\['dataset_fingerprint'\].*another dataset"):
            b.load_state_dict(state)
    with weighted((1e-7, 4e-7)) as again:
        again.load_state_dict(state)


def test_epoch_size_is_bounded_by_what_its_order_costs():
    # Issue 30 #7a: at 2**28 draws the order (computed whole) took 42 s and 2.3 GB before the first
    # batch. Python's bound is C++'s constant.
    assert textfeed._core.MAX_EPOCH_SIZE == 2**24
    with pytest.raises(errors.InvalidArgumentError, match=r"epoch_size must be in 0\.\.16777216, got 16777217"):
        weighted((1, 1), epoch_size=2**24 + 1)


def test_an_old_version_state_is_refused_for_its_version():
    with loader() as l:
        old = {k: v for k, v in l.state_dict().items() if k not in ("epoch_size", "mode")}
        old["version"] = 3
        with pytest.raises(errors.InvalidArgumentError, match=r"state\['version'\] is 3; this textfeed reads "
                                                              r"version 4 \(a state saved by another textfeed"):
            l.load_state_dict(old)


@pytest.mark.parametrize("field,value", [("rank", [0]), ("rank", "0"), ("batch", [1, 2]), ("rank", None)])
def test_gather_states_names_a_field_of_the_wrong_type(field, value):
    # Issue 30 #7b: a list-typed rank raised a plain TypeError (unhashable type) from inside.
    with loader(rank=0, world_size=2) as a, loader(rank=1, world_size=2) as b:
        states = [a.state_dict(), b.state_dict()]
    states[1][field] = value
    with pytest.raises(errors.ArgumentTypeError, match=rf"states\[1\]\['{field}'\] must be an int"):
        textfeed.gather_states(states)


def test_a_state_that_is_not_a_dict_or_lacks_fields_is_refused():
    with loader() as l:
        with pytest.raises(errors.ArgumentTypeError, match="state must be a dict"):
            l.load_state_dict([("epoch", 1)])
        state = l.state_dict()
        del state["seed"]
        with pytest.raises(errors.InvalidArgumentError, match=r"lacks field\(s\) 'seed'"):
            l.load_state_dict(state)


def test_a_state_resumes_on_another_rank():
    with loader(rank=0, world_size=2) as zero, loader(rank=1, world_size=2) as one:
        zero.set_epoch(2)
        next(iter(zero))
        one.load_state_dict(zero.state_dict())  # rank 0's checkpoint resumes every rank
        assert (one.state_dict()["epoch"], one.state_dict()["batch"]) == (2, 1)


def test_a_remote_state_without_a_fingerprint_checks_the_rest():
    with loader() as l:
        state = l.state_dict()
        l._fingerprint = None  # what a Loader whose daemon sends no fingerprint knows
        l.load_state_dict({**state, "dataset_fingerprint": None})
        with pytest.raises(errors.InvalidArgumentError, match="dataset_size"):
            l.load_state_dict({**state, "dataset_size": 11})


# ---------------------------------------------------------------- issue 22: non-UTF-8 sample errors


def test_sample_errors_whose_text_is_not_utf8_neither_raise_nor_leak_their_slot(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    images, gt = os.fsencode(data / "images"), os.fsencode(data / "gt")
    os.rename(os.path.join(gt, b"gt_img_3.txt"), os.path.join(gt, b"gt_img_\xff3.txt"))
    os.remove(os.path.join(images, b"img_3.jpg"))
    with open(os.path.join(images, b"img_\xff3.jpg"), "wb") as f:
        f.write(b"not a jpeg")
    with loader(dataset=data, batch_size=10, prefetch=2) as l:
        for epoch in range(4):  # more batches than slots: a leaked slot would wedge the loader
            (batch,) = list(l)
            (err,) = batch.errors
            assert err.code == "Corrupt" and "img_" in err.message and "3.jpg" in err.message
            err.message.encode("utf-8")  # valid text


def test_an_exception_while_a_batch_is_wrapped_gives_its_slot_back(monkeypatch):
    kept = []  # the exceptions, with their tracebacks (and so the frames they went through)
    with loader(batch_size=1, prefetch=2) as l:
        real = torch.frombuffer

        def failing(buffer, **kw):
            del buffer  # as torch's C function, which keeps no reference in a traceback
            raise MemoryError("no memory for a tensor header")

        monkeypatch.setattr(torch, "frombuffer", failing)
        for _ in range(4):  # twice as many as there are slots
            with pytest.raises(MemoryError) as e:
                next(iter(l))
            kept.append(e)
        monkeypatch.setattr(torch, "frombuffer", real)
        assert next(iter(l)) is not None


# ---------------------------------------------------------------- issue 9: Ctrl-C during a long fill


@pytest.fixture(scope="module")
def slow_dataset(tmp_path_factory):
    """400 receipt pages of ~3000x4000 pixels (3 images, hard-linked): ~50 s a batch on one thread."""
    root = tmp_path_factory.mktemp("receipts")
    src = root / "src"
    subprocess.run([TEXTFEED, "synth", "--profile", "receipt", "--count", "3", "--out", str(src), "--threads", "2"],
                   check=True, capture_output=True, timeout=300)
    data = root / "data"
    (data / "images").mkdir(parents=True)
    (data / "gt").mkdir()
    for i in range(400):
        k = i % 3 + 1
        os.link(src / "images" / f"img_{k}.jpg", data / "images" / f"img_{i + 1}.jpg")
        shutil.copy(src / "gt" / f"gt_img_{k}.txt", data / "gt" / f"gt_img_{i + 1}.txt")
    return data


CTRL_C = """
    import sys, time, textfeed
    l = textfeed.Loader(dataset=sys.argv[1], batch_size=400, profile="upstage", crop_size=256, prefetch=2,
                        threads=1)
    try:
        print("ready", flush=True)
        for batch in l:
            print("a whole batch came: the fill was not long enough for this test", flush=True)
    except KeyboardInterrupt:
        t0 = time.monotonic()
        l.close()
        print(f"closed in {time.monotonic() - t0:.3f} s", flush=True)
        raise
"""


def test_ctrl_c_during_a_long_fill_closes_promptly_and_the_interpreter_exits(slow_dataset):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(CTRL_C), str(slow_dataset)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().strip() == "ready"
        child.send_signal(signal.SIGINT)
        t0 = time.monotonic()
        out, err = child.communicate(timeout=40)  # uncancelled, the two fills in flight take ~100 s
        exited_in = time.monotonic() - t0
    finally:
        child.kill()
    assert "KeyboardInterrupt" in err
    assert "closed in" in out, out + err
    closed_in = float(out.split("closed in")[1].split()[0])
    # One sample each worker is on (~0.2 s here), not a batch of 400 (~50 s): bounded generously for
    # a loaded machine, far below what waiting for the fill would take.
    assert closed_in < 10 and exited_in < 20, (closed_in, exited_in)


def test_close_from_another_thread_ends_an_iteration_waiting_for_a_long_fill(slow_dataset):
    with textfeed.Loader(dataset=slow_dataset, batch_size=400, profile="upstage", crop_size=256, prefetch=2,
                        threads=1) as l:
        outcome = []
        started = threading.Event()

        def iterate():
            started.set()
            try:
                for _ in l:
                    outcome.append("a batch")
            except errors.CancelledError as e:
                outcome.append(str(e))

        t = threading.Thread(target=iterate)
        t.start()
        assert started.wait(30)
        l.close()
        t.join(timeout=30)
        assert not t.is_alive(), "the iteration still waits for a closed loader"
        assert outcome == ["this Loader is closed"]


# ---------------------------------------------------------------- issue 10: os.fork()


FORK = """
    import os, sys, textfeed
    l = textfeed.Loader(dataset=sys.argv[1], batch_size=2, profile="sakura", prefetch=2, threads=2)
    first = next(iter(l))
    del first
    pid = os.fork()
    if pid == 0:
        for name, call in (("iter", lambda: next(iter(l))), ("state_dict", l.state_dict), ("stats", l.stats),
                           ("set_epoch", lambda: l.set_epoch(3))):
            try:
                call()
                print(name, "worked in the child", flush=True)
            except textfeed.errors.CancelledError as e:
                print(name, "refused:", e, flush=True)
        l.close()  # touches nothing of the parent's threads, and returns
        print("child closed", flush=True)
        sys.exit(0)  # a normal exit: finalizers and static destructors run
    _, status = os.waitpid(pid, 0)
    print("child exit", os.waitstatus_to_exitcode(status), flush=True)
    batch = next(iter(l))  # the parent's Loader works on
    print("parent batch", batch.epoch, batch.batch, flush=True)
    l.close()
"""


def test_a_loader_used_in_a_forked_child_raises_there_and_the_parent_goes_on():
    code, out, err = run_child(FORK, SAMPLE, timeout=60)
    assert code == 0, out + err
    for name in ("iter", "state_dict", "stats", "set_epoch"):
        assert f"{name} refused: this Loader was created in process" in out, out
    assert "create a new Loader after the fork" in out
    assert "child closed" in out and "child exit 0" in out
    assert "parent batch 1 0" in out


# ---------------------------------------------------------------- iteration's state machine


def test_a_new_iteration_supersedes_the_previous_iterator():
    with loader() as l:
        first = iter(l)
        a = next(first)
        second = iter(l)  # the next epoch, from its first batch
        b = next(second)
        assert (a.epoch, b.epoch, b.batch) == (0, 1, 0)
        del a, b
        with pytest.raises(errors.CancelledError, match="superseded"):
            next(first)
        assert [x.batch for x in second] == [1, 2, 3]  # the newest goes on undisturbed


def test_set_epoch_during_an_iteration_applies_to_the_next_one():
    with loader() as l:
        l.set_epoch(5)
        it = iter(l)
        assert next(it).epoch == 5
        l.set_epoch(9)
        rest = [(b.epoch, b.batch) for b in it]
        assert rest == [(5, 1), (5, 2), (5, 3)]  # the running epoch ends as it began
        assert l.state_dict()["epoch"] == 9 and l.state_dict()["batch"] == 0
        assert next(iter(l)).epoch == 9


def test_a_closed_loader_refuses_work_but_keeps_its_state():
    l = loader()
    it = iter(l)
    next(it)
    l.close()
    l.close()  # twice is fine
    with pytest.raises(errors.CancelledError, match="closed"):
        next(it)
    with pytest.raises(errors.CancelledError, match="closed"):
        iter(l)
    with pytest.raises(errors.CancelledError, match="closed"):
        l.stats()
    assert l.state_dict()["batch"] == 1  # a checkpoint after close still says where it stood
    assert len(l) == 4


def test_set_epoch_takes_only_an_int_epoch():
    with loader() as l:
        for bad, error in ((-1, errors.InvalidArgumentError), (1.5, errors.ArgumentTypeError),
                           (True, errors.ArgumentTypeError), ("2", errors.ArgumentTypeError),
                           (2**63, errors.InvalidArgumentError)):
            with pytest.raises(error, match="epoch"):
                l.set_epoch(bad)
        assert math.isclose(l.state_dict()["epoch"], 0)


# ---------------------------------------------------------------- the other public functions

import numpy as np  # noqa: E402  (used only below)

GOOD_QUAD = [10.0, 10.0, 60.0, 10.0, 60.0, 30.0, 10.0, 30.0]


@pytest.mark.parametrize("kw,error,message", [
    (dict(vertices="abc"), errors.ArgumentTypeError, "vertices must be an array of numbers"),
    (dict(vertices=[[float("nan")] * 8]), errors.InvalidArgumentError, "vertices holds a NaN"),
    (dict(labels=["x"]), errors.ArgumentTypeError, "labels must be an array of numbers"),
    (dict(crop_size=True), errors.ArgumentTypeError, "crop_size must be an int"),
    (dict(crop_size=512.0), errors.ArgumentTypeError, "crop_size must be an int"),
    (dict(crop_size=10**12), errors.InvalidArgumentError, "crop_size must be in"),
    (dict(map_scale=float("nan")), errors.InvalidArgumentError, "map_scale must be a finite number"),
    (dict(profile=None), errors.ArgumentTypeError, "profile must be one of"),
    (dict(fill_rule=b"x"), errors.ArgumentTypeError, "fill_rule must be a str"),
    (dict(fix_orientation=1), errors.ArgumentTypeError, "fix_orientation must be True or False"),
    (dict(clamp_geo=float("inf")), errors.InvalidArgumentError, "clamp_geo must be a finite number"),
])
def test_east_targets_checks_every_argument(kw, error, message):
    args = dict(vertices=[GOOD_QUAD], labels=[1], crop_size=128, map_scale=0.25)
    args.update(kw)
    with pytest.raises(error, match=message):
        textfeed.reference.east_targets(**args)


def test_east_targets_still_computes_maps():
    maps = textfeed.reference.east_targets(np.array([GOOD_QUAD]), np.array([1]), 128, 0.25)
    assert maps["score"].shape == (32, 32) and maps["score"].max() == 1


@pytest.mark.parametrize("quad,error,message", [
    ("abcd", errors.ArgumentTypeError, "quad must be an array of numbers"),
    ([float("inf")] * 8, errors.InvalidArgumentError, "quad holds a NaN or infinite value"),
    ([1.0] * 7, errors.InvalidArgumentError, "quad must hold 8 coordinates"),
    (None, errors.ArgumentTypeError, "quad must be an array of numbers"),
])
def test_quad_functions_check_their_quad(quad, error, message):
    for function in (textfeed.reference.shrink_poly, textfeed.reference.find_min_rect_angle):
        with pytest.raises(error, match=message):
            function(quad)


def test_quad_functions_check_the_metric_and_still_compute():
    with pytest.raises(errors.ArgumentTypeError, match="metric must be one of"):
        textfeed.reference.find_min_rect_angle(GOOD_QUAD, True)
    assert textfeed.reference.shrink_poly(GOOD_QUAD).shape == (8,)
    assert textfeed.reference.find_min_rect_angle(GOOD_QUAD, "up") == pytest.approx(0, abs=1e-6)


def test_the_geometry_bindings_raise_textfeed_type_errors():
    for function in (textfeed.reference.replay_geometry, textfeed.reference.sample_params, textfeed.reference.warp_crop, textfeed.reference.photometric):
        with pytest.raises(errors.ArgumentTypeError, match="incompatible function arguments"):
            function(object())
