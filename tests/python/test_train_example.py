"""examples/train_east.py says what its loss means: each step's loss with the running mean, then the
mean over all steps and over those with text, and how many batches had no text (no positive score
pixel: a loss of exactly 1 whatever the model predicts), checked against the batches the same Loader
delivers."""

import importlib.util
import re

import pytest

import textfeed
from support import ROOT, SAMPLE

STEPS = 5  # the sample's 10 images in batches of 2: one epoch


def _example():
    spec = importlib.util.spec_from_file_location("train_east", ROOT / "examples" / "train_east.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


def test_issue30_train_east_prints_the_running_mean_and_the_text_free_batches(capsys):
    result = _example().main(["--loader", "textfeed", "--profile", "sakura", "--dataset", str(SAMPLE),
                              "--batch-size", "2", "--steps", str(STEPS - 1), "--warmup", "1", "--threads", "1",
                              "--device", "cpu", "--seed", "0"])
    out = capsys.readouterr().out.splitlines()
    with textfeed.Loader(dataset=str(SAMPLE), batch_size=2, profile="sakura", seed=0, threads=1) as loader:
        loader.set_epoch(0)
        free = [not bool((batch[1] > 0).any()) for batch in loader]
    assert len(free) == STEPS and 0 < sum(free) < STEPS, free  # the sample's crops: some with text, some without

    steps = [line for line in out if line.startswith("step ")]
    assert len(steps) == STEPS, out
    losses = [float(re.search(r"loss (\d+\.\d+)", line).group(1)) for line in steps]
    for k, line in enumerate(steps):
        mean = float(re.search(r"running mean (\d+\.\d+)", line).group(1))
        assert mean == pytest.approx(sum(losses[: k + 1]) / (k + 1), abs=2e-3), line
        assert ("(no text in this batch)" in line) == free[k], (line, free)
        if free[k]:
            assert losses[k] == 1.0, line  # nothing to learn from: dice 1, no geometry term

    assert result["text_free_batches"] == sum(free) and result["batches"] == STEPS
    assert result["mean_loss"] == pytest.approx(sum(losses) / STEPS, abs=2e-3)
    with_text = [loss for loss, f in zip(losses, free) if not f]
    assert result["mean_loss_with_text"] == pytest.approx(sum(with_text) / len(with_text), abs=2e-3)
    (summary,) = [line for line in out if line.startswith("loss: ")]
    assert f"over the {len(with_text)} with text" in summary, summary
    assert f"text-free batches {sum(free)} of {STEPS}" in summary, summary
