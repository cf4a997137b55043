"""Several sources (textfeed.Source, weights, epoch_size, serve NAME=PATH@W,...) and elastic resume
(a state taken at one world size and batch size resumed at others), in process and from a daemon."""

import collections
import subprocess

import pytest

import textfeed
from textfeed import errors
from support import SAMPLE, TEXTFEED, Daemon

N = 10  # samples in the sample dataset


def loader(endpoint=None, dataset=None, **kw):
    args = dict(dataset=str(SAMPLE) if dataset is None else dataset, batch_size=3, profile="sakura", seed=7,
                prefetch=2, threads=2, crop_size=64)
    args.update(kw)
    return textfeed.Loader(endpoint, **args)


def epoch_rows(l, epoch):
    """(index, source, index in source) of every row of `epoch`."""
    l.set_epoch(epoch)
    return [row for b in l for row in zip(b.indices, b.sources, b.source_indices)]


@pytest.fixture
def daemon(tmp_path):
    d = Daemon(tmp_path, args=["--dataset", f"mix={SAMPLE}@1,{SAMPLE}@3", "--dataset", f"pair={SAMPLE},{SAMPLE}",
                               "--dataset", f"second={SAMPLE}"])
    d.start()
    yield d
    d.stop()


def test_two_sources_without_weights_concatenate_and_two_ranks_cover_each_sample_once(daemon):
    for endpoint, dataset in ((None, [str(SAMPLE), textfeed.Source(SAMPLE)]), (daemon.endpoint, "pair"),
                              (daemon.endpoint, ["icdar", "second"])):
        seen, lengths = collections.Counter(), []
        for rank in (0, 1):
            with loader(endpoint, dataset, rank=rank, world_size=2) as l:
                rows = epoch_rows(l, 4)
                lengths.append(len(rows))
                seen.update(i for i, _, _ in rows)
                for index, source, local in rows:
                    assert (source, local) == divmod(index, N)
        assert lengths == [N, N]
        assert sorted(seen) == list(range(2 * N)) and set(seen.values()) == {1}, (endpoint, dataset)


def test_weights_one_to_three_draw_each_epoch_in_proportion_equal_per_rank(daemon):
    # 2 * 10 samples in 1:3: 5 draws of the first source, 15 of the second, every epoch; the second
    # (10 samples) is repeated: each of its samples once, then 5 more without repetition.
    for endpoint, dataset in ((None, [textfeed.Source(SAMPLE, weight=1), textfeed.Source(SAMPLE, weight=3)]),
                              (daemon.endpoint, "mix")):
        orders = []
        for epoch in (0, 1):
            per_rank, counts = [], collections.Counter()
            for rank in (0, 1):
                with loader(endpoint, dataset, rank=rank, world_size=2) as l:
                    rows = epoch_rows(l, epoch)
                    per_rank.append(len(rows))
                    counts.update(source for _, source, _ in rows)
                    orders.append([i for i, _, _ in rows])
                    second = collections.Counter(local for _, source, local in rows if source == 1)
                    assert max(second.values()) <= 2
            assert per_rank == [10, 10]
            assert counts == {0: 5, 1: 15}
        assert orders[0] != orders[2] and orders[1] != orders[3]  # another order every epoch


def test_epoch_size_sets_the_draws_of_an_epoch():
    with loader(dataset=[textfeed.Source(SAMPLE, weight=2), textfeed.Source(SAMPLE, weight=1)], epoch_size=7,
                batch_size=7) as l:
        assert len(l) == 1
        rows = epoch_rows(l, 0)
        assert collections.Counter(s for _, s, _ in rows) == {0: 5, 1: 2}  # 4.67 and 2.33: largest remainder


BAD = [
    (dict(dataset=[]), errors.InvalidArgumentError, "empty list"),
    (dict(dataset=[textfeed.Source(SAMPLE, weight=1), str(SAMPLE)]), errors.InvalidArgumentError,
     "every source has a weight or none has: 1 of 2"),
    (dict(dataset=[str(SAMPLE)] * 65), errors.InvalidArgumentError, "more than 64 sources"),
    (dict(dataset=3), errors.ArgumentTypeError, "dataset must be a path, a Source or a list"),
    (dict(epoch_size=10), errors.InvalidArgumentError, "epoch_size applies to weighted sources"),
    (dict(dataset=[textfeed.Source(SAMPLE, weight=1)], epoch_size=-1), errors.InvalidArgumentError,
     "epoch_size must be in"),
]


@pytest.mark.parametrize("kw,error,message", BAD, ids=[m for _, _, m in BAD])
def test_bad_source_lists_are_refused_by_name(kw, error, message):
    with pytest.raises(error, match=message):
        loader(**kw)


@pytest.mark.parametrize("args,error,message", [
    ((SAMPLE,), {"weight": 0}, "weight must be a finite number in"),
    ((SAMPLE,), {"weight": float("nan")}, "weight must be a finite number in"),
    ((SAMPLE,), {"weight": "1"}, "weight must be a number"),
    ((SAMPLE,), {"ignore_tags": "x"}, "ignore_tags must be a list"),
    ((SAMPLE,), {"colour": 1}, "unexpected keyword argument 'colour'"),
    ((3,), {}, "Source path must be a str"),
])
def test_a_bad_source_is_refused_when_made(args, error, message):
    with pytest.raises((errors.ArgumentTypeError, errors.InvalidArgumentError), match=message):
        textfeed.Source(*args, **error)


def test_serve_refuses_a_bad_source_list(tmp_path):
    for spec, message in ((f"x={SAMPLE}@1,{SAMPLE}", "either every source has a weight or none has"),
                          (f"x={SAMPLE}@0", "must be a number in"), (f"x={SAMPLE},,{SAMPLE}", "empty path")):
        r = subprocess.run([TEXTFEED, "serve", "--dataset", spec, "--bind", f"ipc://{tmp_path}/s.sock"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and message in r.stderr, (spec, r.stderr)


def test_a_daemon_mixture_cannot_be_mixed_again(daemon):
    with pytest.raises(errors.InvalidArgumentError, match="is a mixture of 2 sources"):
        loader(daemon.endpoint, ["mix", "icdar"])


# ---------------------------------------------------------------- elastic resume

def take(loaders, batches):
    """The first `batches[r]` batches of each rank's iterator; their indices."""
    delivered = []
    for l, k in zip(loaders, batches):
        it = iter(l)
        for _ in range(k):
            delivered += next(it).indices
    return delivered


def rest_of_epoch(endpoint, dataset, state, world_size, batch_size):
    rest, lengths = [], []
    for rank in range(world_size):
        with loader(endpoint, dataset, rank=rank, world_size=world_size, batch_size=batch_size) as l:
            l.load_state_dict(state)
            got = [i for b in l for i in b.indices]
            lengths.append(len(got))
            rest += got
            assert l.state_dict()["epoch"] == state["epoch"] + 1  # the epoch ran to its end
    return rest, lengths


@pytest.mark.parametrize("remote", [False, True], ids=["embedded", "daemon"])
def test_a_checkpoint_at_two_ranks_resumes_at_one_and_three_with_exactly_the_rest(daemon, remote):
    endpoint = daemon.endpoint if remote else None
    dataset = "pair" if remote else [str(SAMPLE), str(SAMPLE)]  # 20 samples
    ranks = [loader(endpoint, dataset, rank=r, world_size=2, batch_size=3) for r in range(2)]
    for l in ranks:
        l.set_epoch(2)
    delivered = take(ranks, [2, 2])  # 12 samples
    state = ranks[0].state_dict()
    for l in ranks:
        l.close()
    assert (state["epoch"], state["batch"], state["world_size"]) == (2, 2, 2)
    for world_size, batch_size in ((1, 4), (3, 2)):
        rest, lengths = rest_of_epoch(endpoint, dataset, state, world_size, batch_size)
        assert len(set(lengths)) == 1  # equal per rank (padding where 8 does not divide)
        padding = sum(lengths) - (2 * N - len(delivered))
        assert 0 <= padding < world_size
        assert set(rest) == set(range(2 * N)) - set(delivered), (world_size, batch_size)
        assert len(rest) - len(set(rest)) == padding  # none twice but the padding


def test_states_of_ranks_out_of_step_are_gathered_and_resume_exactly():
    ranks = [loader(rank=r, world_size=2, batch_size=2) for r in range(2)]
    delivered = take(ranks, [1, 2])  # rank 1 is a batch ahead
    states = [l.state_dict() for l in ranks]
    gathered = textfeed.gather_states(states)
    assert gathered["batch"] == [1, 2]
    rest, _ = rest_of_epoch(None, None, gathered, 1, 3)
    assert sorted(rest) == sorted(set(range(N)) - set(delivered))
    # Chained: the resumed job checkpoints again, at one rank, and a two-rank job takes the rest.
    with loader(batch_size=3) as one:
        one.load_state_dict(gathered)
        it = iter(one)
        second = next(it).indices
        again = one.state_dict()
    assert again["resume"] == [[2, 2, [1, 2]]] and again["batch"] == 1
    rest, _ = rest_of_epoch(None, None, again, 2, 2)
    assert set(rest) == set(range(N)) - set(delivered) - set(second)
    for l in ranks:
        l.close()


def test_gather_states_refuses_states_of_another_checkpoint():
    with loader(rank=0, world_size=2) as a, loader(rank=1, world_size=2, seed=8) as b:
        with pytest.raises(errors.InvalidArgumentError, match=r"differ in \['seed'\]"):
            textfeed.gather_states([a.state_dict(), b.state_dict()])
        with pytest.raises(errors.InvalidArgumentError, match="one state of each rank"):
            textfeed.gather_states([a.state_dict(), a.state_dict()])
    with pytest.raises(errors.ArgumentTypeError):
        textfeed.gather_states({"rank": 0})


def test_a_refused_elastic_state_changes_nothing():
    with loader() as l:
        before = l.state_dict()
        first = next(iter(l)).indices
        with pytest.raises(errors.InvalidArgumentError, match="delivered 9 batches"):
            l.load_state_dict({**before, "world_size": 2, "batch": [9, 9]})
        l.set_epoch(0)
        assert next(iter(l)).indices == first


def test_the_boostcamp_example_trains_on_both_layouts_and_a_weighted_mix(tmp_path, capsys):
    import importlib.util
    from support import ROOT
    spec = importlib.util.spec_from_file_location("boostcamp_train", ROOT / "examples" / "boostcamp_train.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    for layout in (6, 7):
        example.main(["--make_sample_root", str(tmp_path / f"bc{layout}"), "--layout", str(layout)])
    common = ["--max_epoch", "1", "--batch_size", "4", "--image_size", "512", "--input_size", "128",
              "--model_dir", str(tmp_path / "models"), "--save_interval", "1"]
    six = example.main(["--data_dir", str(tmp_path / "bc6" / "ufo" / "train.json"), *common])
    seven = example.main(["--data_dir", str(tmp_path / "bc7"), "--profile", "bc7", *common])
    mixed = example.main(["--data_dir", str(tmp_path / "bc6"), "--mix", str(tmp_path / "bc7"), "--weights", "1", "3",
                          *common])
    for result in (six, seven, mixed):
        assert result["images"] == N and result["words"] == 82 and result["loss"] > 0
    # Each epoch's line says how many of its batches had no text (each a loss of 1 in the mean).
    epochs = [line for line in capsys.readouterr().out.splitlines() if line.startswith("epoch ")]
    assert len(epochs) == 3, epochs
    for line, result in zip(epochs, (six, seven, mixed)):
        assert f", {result['text_free_batches']} without text |" in line, line
    assert (tmp_path / "models" / "latest.pth").exists()
