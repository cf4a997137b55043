"""Issue 30, items 3, 8 and 9: load_state_dict() while an iterator runs; the DataLoader habits
(loader.sampler.set_epoch, loader.dataset, batch_size, drop_last, DataLoader's keywords, misspelt
keywords and command-line flags, an endpoint given as the dataset); and the C++ log lines under
the training script's logging (in Python) or --quiet / --log-level (the command)."""

import json
import logging
import shutil
import subprocess
import sys
import textwrap

import pytest
import torch

import textfeed
from textfeed import errors
from support import SAMPLE, TEXTFEED

N = 10  # samples in the sample dataset


def loader(**kw):
    args = dict(dataset=str(SAMPLE), batch_size=3, profile="sakura", seed=7, prefetch=2, threads=2, crop_size=64)
    args.update(kw)
    return textfeed.Loader(**args)


def rows(batches):
    """(epoch, batch, indices, image bytes) of each batch, kept past the batch's slot."""
    return [(b.epoch, b.batch, list(b.indices), b[0].clone()) for b in batches]


def same_rows(a, b):
    return [r[:3] for r in a] == [r[:3] for r in b] and all(torch.equal(x[3], y[3]) for x, y in zip(a, b))


def state_of_two_ranks_after_one_batch():
    with loader(rank=0, world_size=2) as zero:
        next(iter(zero))
        return zero.state_dict()


# ---------------------------------------------------------------- item 3: load_state_dict() mid-iteration


def test_issue30_a_state_loaded_with_the_same_setup_supersedes_the_running_iterator():
    with loader() as reference:
        expected = rows(reference)  # epoch 0: batches 0..3
    with loader() as l:
        it = iter(l)
        next(it)
        state = l.state_dict()  # epoch 0, batch 1
        next(it)
        next(it)
        l.load_state_dict(state)  # the same setup: the feed stays
        with pytest.raises(errors.CancelledError, match=r"superseded by load_state_dict\(\): a state was loaded"):
            next(it)
        assert same_rows(rows(l), expected[1:])  # the next iteration resumes exactly at the state
        assert l.state_dict()["epoch"] == 1


def test_issue30_an_elastic_state_supersedes_the_running_iterator_and_resumes_exactly():
    state = state_of_two_ranks_after_one_batch()
    with loader() as idle:
        idle.load_state_dict(state)
        expected = rows(idle)  # the samples neither rank delivered
    assert expected and sum(len(r[2]) for r in expected) == N - 2 * 3
    with loader() as l:
        it = iter(l)
        next(it)
        next(it)
        l.load_state_dict(state)  # another world size: a new feed
        with pytest.raises(errors.CancelledError, match=r"superseded by load_state_dict\(\)"):
            next(it)  # was: InternalError "expected epoch 0 batch 2, got epoch 0 batch 0"
        assert same_rows(rows(l), expected)


def test_issue30_a_refused_state_leaves_the_running_iterator_going_though_the_feed_was_reopened():
    elastic = state_of_two_ranks_after_one_batch()
    with loader() as reference:
        reference.load_state_dict(elastic)
        expected = rows(reference)
    with loader() as l:
        l.load_state_dict(elastic)
        it = iter(l)
        got = rows([next(it)])
        # Leaving the elastic resume opens a plain feed, and the refusal opens the resumed one again.
        with pytest.raises(errors.InvalidArgumentError, match=r"state\['batch'\] must be in 0\.\.4"):
            l.load_state_dict({**l.state_dict(), "resume": [], "batch": 5})
        got += rows(it)
        assert same_rows(got, expected)


# ---------------------------------------------------------------- item 8: the DataLoader habits


def test_issue30_sampler_set_epoch_of_the_loaded_epoch_keeps_the_loaded_position():
    # A resumed DDP loop: load_state_dict(), then sampler.set_epoch(e) at the top of each epoch.
    with loader() as first:
        it = iter(first)
        taken = rows([next(it), next(it)])
        state = first.state_dict()
        rest = rows(it)
    with loader() as second:
        second.load_state_dict(state)
        second.sampler.set_epoch(0)  # the loaded epoch: the position stays,
        second.set_epoch(0)  # however often it is named before the iteration
        resumed = rows(second)
        assert same_rows(resumed, rest) and resumed[0][1] == len(taken)
        second.sampler.set_epoch(0)  # no state pending any more: the whole epoch again
        assert same_rows(rows(second), taken + rest)
    with loader() as third:
        third.load_state_dict(state)
        third.set_epoch(1)  # another epoch starts at its first batch
        assert [r[:2] for r in rows(third)][0] == (1, 0)
    with loader() as whole:  # a state taken after the epoch's last batch
        for _ in whole:
            end = whole.state_dict()
        assert (end["epoch"], end["batch"]) == (0, len(whole))
    with loader() as fourth:
        fourth.load_state_dict(end)
        fourth.sampler.set_epoch(0)  # that epoch is done: nothing again
        assert rows(fourth) == []
        fourth.sampler.set_epoch(1)
        assert [r[:2] for r in rows(fourth)][0] == (1, 0)


@pytest.mark.parametrize("world_size,rank,drop_last", [(1, 0, False), (3, 2, False), (3, 1, True), (4, 3, True)])
def test_issue30_sampler_and_dataset_answer_as_a_dataloader_s_do(world_size, rank, drop_last):
    with loader(rank=rank, world_size=world_size, drop_last=drop_last, batch_size=2) as l:
        assert l.batch_size == 2 and l.drop_last is drop_last
        assert len(l.dataset) == N
        assert str(SAMPLE) in repr(l.dataset) and "10 samples" in repr(l.dataset)
        distributed = torch.utils.data.DistributedSampler(range(N), num_replicas=world_size, rank=rank,
                                                          drop_last=drop_last)
        assert len(l.sampler) == len(distributed)
        l.sampler.set_epoch(4)  # what every DDP script calls
        delivered = [i for b in l for i in b.indices]
        assert l.state_dict()["epoch"] == 5  # epoch 4 ran
        whole_batches = len(distributed) // 2 * 2
        assert len(delivered) == (whole_batches if drop_last else len(l.sampler))


def test_issue30_the_dataloader_attributes_are_read_only():
    with loader() as l:
        for name in ("batch_size", "drop_last", "sampler", "dataset"):
            with pytest.raises(AttributeError):
                setattr(l, name, 1)
        assert l.batch_size == 3


def test_issue30_dataloader_keywords_name_the_loader_s_own():
    with pytest.raises(errors.ArgumentTypeError, match=r"no num_workers= \(DataLoader's\): use threads="):
        loader(num_workers=4)
    with pytest.raises(TypeError, match=r"no prefetch_factor= .*use output=textfeed\.OutputOptions\(prefetch=\.\.\.\)"):
        loader(prefetch_factor=2)


@pytest.mark.parametrize("typo,meant", [("thread", "threads"), ("batchsize", "batch_size"), ("brightnes", "brightness"),
                                        ("drop_lats", "drop_last")])
def test_issue30_a_misspelt_keyword_gets_the_nearest_keywords_or_options(typo, meant):
    with pytest.raises(errors.ArgumentTypeError, match=rf"unexpected keyword argument '{typo}' \(did you mean "
                                                       rf"'{meant}'"):
        loader(**{typo: 1})


def test_issue30_an_endpoint_given_as_the_dataset_points_to_endpoint():
    for endpoint in ("ipc:///tmp/textfeed.sock", "tcp://127.0.0.1:5555"):
        with pytest.raises(errors.InvalidArgumentError, match=r"is the endpoint of a daemon.*pass it as endpoint="):
            textfeed.Loader(dataset=endpoint, batch_size=2)
        with pytest.raises(errors.InvalidArgumentError, match="pass it as endpoint="):
            textfeed.Loader(dataset=[str(SAMPLE), endpoint], batch_size=2)


def tf(*args):
    return subprocess.run([TEXTFEED, *map(str, args)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("command,typo,meant", [
    (["bench", "--dataset", SAMPLE], "--thread", "--threads"),
    (["bench", "--dataset", SAMPLE], "--batchsize=2", "--batch-size"),
    (["inspect", SAMPLE], "--jsn", "--json"),
    (["serve", "--dataset", f"icdar={SAMPLE}"], "--quite", "--quiet"),  # the command's own flags too
])
def test_issue30_a_misspelt_flag_gets_the_nearest_flag_of_its_command(command, typo, meant):
    proc = tf(*command, typo, "1")
    assert proc.returncode == 2, proc.stderr
    assert "not expected" in proc.stderr and f"{typo}: did you mean {meant}?" in proc.stderr, proc.stderr


# ---------------------------------------------------------------- item 9: the log lines


def sample_with_a_bad_record(tmp_path):
    """The sample's UFO json (an info line when read: where its images are) with one more image
    that has no words object (a warning)."""
    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    shutil.copy(data / "images" / "img_1.jpg", data / "images" / "extra.jpg")
    ufo = json.loads((data / "ufo" / "train.json").read_text())
    ufo["images"]["extra.jpg"] = {"paragraphs": {}}
    (data / "ufo" / "train.json").write_text(json.dumps(ufo))
    return data / "ufo" / "train.json"


def test_issue30_the_cxx_lines_are_records_of_the_textfeed_logger(tmp_path, caplog, capfd):
    data = sample_with_a_bad_record(tmp_path)
    with caplog.at_level(logging.INFO, logger="textfeed"):
        with loader(dataset=str(data)) as l:
            next(iter(l))
    records = [(r.name, r.levelno, r.getMessage()) for r in caplog.records]
    assert any(name == "textfeed" and level == logging.INFO and f"dataset {data.parents[1]}" in m
               and "ufo/train.json: 11 image(s) from images/" in m for name, level, m in records), records
    assert any(name == "textfeed" and level == logging.WARNING and "'extra.jpg' has no 'words' object" in m
               for name, level, m in records), records
    err = capfd.readouterr().err
    assert "textfeed info:" not in err and "textfeed warning:" not in err, err


CHILD = textwrap.dedent("""
    import logging, sys, textfeed
    if sys.argv[2] == "configured":
        logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s | %(message)s")
    with textfeed.Loader(dataset=sys.argv[1], batch_size=2, profile="sakura", threads=1, prefetch=2,
                         crop_size=64) as l:
        next(iter(l))
""")


def test_issue30_a_script_s_logging_configuration_governs_the_cxx_lines(tmp_path):
    data = sample_with_a_bad_record(tmp_path)
    run = [sys.executable, "-c", CHILD, str(data)]
    configured = subprocess.run(run + ["configured"], capture_output=True, text=True, timeout=120)
    assert configured.returncode == 0, configured.stderr
    assert "INFO textfeed | dataset" in configured.stderr and "image(s) from" in configured.stderr
    assert "WARNING textfeed | dataset" in configured.stderr
    bare = subprocess.run(run + ["bare"], capture_output=True, text=True, timeout=120)
    assert bare.returncode == 0, bare.stderr
    # Python's defaults: warnings and above, and no info line.
    assert "has no 'words' object" in bare.stderr and "image(s) from" not in bare.stderr, bare.stderr
    assert "textfeed info:" not in bare.stderr


def test_issue30_quiet_and_log_level_set_what_the_command_writes(tmp_path):
    data = sample_with_a_bad_record(tmp_path)
    bench = ["bench", "--dataset", data, "--profile", "sakura", "--set", "crop_size=64", "--samples", "2",
             "--repeat", "1", "--batch-size", "2", "--threads", "1"]
    levels = [([], True, True), (["--quiet"], False, True), (["-q"], False, True),
              (["--log-level", "warning"], False, True), (["--log-level", "error"], False, False)]
    for flags, info, warning in levels:
        for args in (flags + bench, bench + flags):  # before or after the subcommand
            proc = tf(*args)
            assert proc.returncode == 0, (args, proc.stderr)
            assert ("textfeed info: dataset" in proc.stderr) == info, (args, proc.stderr)
            assert ("textfeed warning: dataset" in proc.stderr) == warning, (args, proc.stderr)
    proc = tf("--log-level", "loud", *bench)
    assert proc.returncode == 2 and "--log-level" in proc.stderr, proc.stderr
    proc = tf("--quiet", "--log-level", "info", *bench)
    assert proc.returncode == 2 and "excludes" in proc.stderr, proc.stderr
