"""`textfeed inspect` reads both annotation formats of the ICDAR sample and agrees on the counts."""

import json
import os
import subprocess
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "icdar15-sample"
TEXTFEED = os.environ.get("TEXTFEED_BIN", str(Path(__file__).resolve().parents[2] / "build" / "tools" / "textfeed"))


def inspect(*args):
    out = subprocess.run([TEXTFEED, "inspect", *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_icdar_and_ufo_agree_on_the_sample():
    icdar = inspect(str(SAMPLE))
    ufo = inspect(str(SAMPLE), "--format", "ufo", "--ufo", str(SAMPLE / "ufo" / "train.json"))
    assert icdar["format"] == "icdar15" and ufo["format"] == "ufo"
    for report in (icdar, ufo):
        assert report["images"] == 10
        assert report["words"] == 107
        assert report["bad_records"] == []
    assert icdar["ignored_words"] == ufo["ignored_words"] > 0
    assert icdar["word_short_side_px"] == ufo["word_short_side_px"]


def test_bad_records_are_reported_with_file_and_line(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "gt").mkdir()
    (tmp_path / "images" / "a.jpg").write_bytes(b"x")
    (tmp_path / "gt" / "gt_a.txt").write_text("0,0,10,0,10,10,0,10,ok\n1,2,3\n")
    report = inspect(str(tmp_path))
    assert report["words"] == 1
    assert report["bad_records"] == [
        {"file": "gt/gt_a.txt", "line": 2, "reason": "expected 8 coordinates, found 3 fields"}
    ]


def test_unreadable_dataset_exits_nonzero_with_a_message(tmp_path):
    proc = subprocess.run([TEXTFEED, "inspect", str(tmp_path / "missing")], capture_output=True, text=True)
    assert proc.returncode != 0
    assert "missing" in proc.stderr


@pytest.mark.parametrize("sub", ["inspect", "synth", "cache", "bench", "show", "serve", "pull"])
def test_every_subcommand_has_help(sub):
    proc = subprocess.run([TEXTFEED, sub, "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert sub in proc.stdout
