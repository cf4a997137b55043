"""`textfeed inspect`: both annotation formats of the ICDAR sample agree; bad records and errors."""

import json
import subprocess

import pytest

from support import SAMPLE, TEXTFEED


def run(*args):
    return subprocess.run([TEXTFEED, "inspect", *args], capture_output=True, text=True)


def inspect(*args):
    proc = run(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_icdar_and_ufo_agree_on_the_sample():
    icdar = inspect(str(SAMPLE))
    ufo = inspect(str(SAMPLE), "--format", "ufo", "--ufo", str(SAMPLE / "ufo" / "train.json"))
    assert icdar["format"] == "icdar15" and ufo["format"] == "ufo"
    for report in (icdar, ufo):
        assert report["images"] == 10
        assert report["words"] == 82
        assert report["valid_words"] + report["ignored_words"] == 82
        assert report["images_without_words"] == 0
        assert sum(report["word_short_side_px"].values()) == 82
        assert report["bad_records"] == []
    assert icdar["ignored_words"] == ufo["ignored_words"] == 61  # `###` in the gt files
    assert icdar["word_short_side_px"] == ufo["word_short_side_px"]
    assert icdar["root"] == ufo["root"] == str(SAMPLE)


def test_ufo_is_found_without_naming_the_file():
    by_format = inspect(str(SAMPLE), "--format", "ufo")
    by_file = inspect(str(SAMPLE / "ufo" / "train.json"))
    assert by_format["format"] == by_file["format"] == "ufo"
    assert by_format["words"] == by_file["words"] == 82


def test_text_report_names_the_counts():
    proc = run(str(SAMPLE))
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(None, 1) for line in proc.stdout.splitlines()[:4])
    assert lines == {"format": "icdar15", "root": str(SAMPLE), "images": "10", "words": "82"}
    assert "bad records           0" in proc.stdout


def test_ignore_text_exact_counts_no_more_ignored_words():
    substring = inspect(str(SAMPLE))
    exact = inspect(str(SAMPLE), "--ignore-text", "exact")
    assert exact["words"] == substring["words"]
    assert exact["ignored_words"] <= substring["ignored_words"]


def test_bad_records_are_reported_with_file_and_line(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "gt").mkdir()
    (tmp_path / "images" / "a.jpg").write_bytes(b"x")
    (tmp_path / "images" / "b.jpg").write_bytes(b"x")
    (tmp_path / "gt" / "gt_a.txt").write_text("0,0,10,0,10,10,0,10,ok\n1,2,3\n")
    report = inspect(str(tmp_path))
    assert report["words"] == 1
    assert report["images"] == 2
    assert report["images_without_words"] == 1
    assert report["bad_records"][0] == {"file": "gt/gt_a.txt", "line": 2, "reason": "expected 8 coordinates, found 3 fields"}
    assert report["bad_records"][1]["file"] == "images/b.jpg"
    text = run(str(tmp_path)).stdout
    assert "gt/gt_a.txt:2: expected 8 coordinates" in text
    assert "images/b.jpg: no ground truth file" in text


def test_ufo_polygon_policy(tmp_path):
    (tmp_path / "ufo").mkdir()
    pentagon = {"points": [[0, 0], [40, 0], [50, 10], [40, 20], [0, 20]], "illegibility": False, "tags": []}
    quad = {"points": [[0, 0], [40, 0], [40, 20], [0, 20]], "illegibility": False, "tags": []}
    (tmp_path / "ufo" / "train.json").write_text(json.dumps({"images": {"a.jpg": {"words": {"1": quad, "2": pentagon}}}}))
    skip = inspect(str(tmp_path))
    assert (skip["words"], skip["ignored_words"], len(skip["bad_records"])) == (1, 0, 1)
    bad = skip["bad_records"][0]
    assert bad["line"] == 0 and "word '2'" in bad["reason"], bad  # a UFO record has no line number
    minrect = inspect(str(tmp_path), "--poly-policy", "minrect")
    assert (minrect["words"], minrect["ignored_words"], minrect["bad_records"]) == (2, 0, [])
    masked = inspect(str(tmp_path), "--poly-policy", "mask-ignore")
    assert (masked["words"], masked["ignored_words"]) == (2, 1)


def test_an_image_path_naming_a_folder_is_a_bad_record(tmp_path):
    # Issue 30 #6: PaddleOCR and mmocr image paths were checked lexically only, so a folder named
    # like an image counted as an image and 0 bad records.
    (tmp_path / "imgs" / "dir.jpg").mkdir(parents=True)
    (tmp_path / "imgs" / "a.jpg").write_bytes(b"x")
    (tmp_path / "label.txt").write_text("imgs/a.jpg\t[]\nimgs/dir.jpg\t[]\n")
    paddle = inspect(str(tmp_path / "label.txt"))
    assert paddle["format"] == "paddle"
    assert paddle["images"] == 1
    assert paddle["bad_records"] == [
        {"file": "label.txt", "line": 2, "reason": "image 'imgs/dir.jpg' names a folder, not an image file; left out"}
    ]
    data_list = [{"img_path": name, "instances": []} for name in ("imgs/a.jpg", "imgs/dir.jpg")]
    (tmp_path / "textdet_train.json").write_text(json.dumps({"metainfo": {}, "data_list": data_list}))
    mmocr = inspect(str(tmp_path / "textdet_train.json"))
    assert mmocr["format"] == "mmocr"
    assert mmocr["images"] == 1
    assert [b["reason"] for b in mmocr["bad_records"]] == [
        "data_list[1] image 'imgs/dir.jpg' names a folder, not an image file; left out"
    ]


def test_malformed_ufo_exits_nonzero_with_the_offset(tmp_path):
    (tmp_path / "ufo").mkdir()
    (tmp_path / "ufo" / "train.json").write_text('{"images": {"a.jpg": {"words": {},}}}')
    proc = run(str(tmp_path))
    assert proc.returncode != 0
    assert "train.json" in proc.stderr and "at byte 34" in proc.stderr


def test_unreadable_dataset_exits_nonzero_with_a_message(tmp_path):
    proc = run(str(tmp_path / "missing"))
    assert proc.returncode != 0
    assert "missing" in proc.stderr
    proc = run(str(SAMPLE), "--format", "icdar15", "--ufo", str(SAMPLE / "ufo" / "train.json"))
    assert proc.returncode != 0 and "--ufo" in proc.stderr


@pytest.mark.parametrize("sub", ["inspect", "synth", "cache", "bench", "show", "serve", "pull"])
def test_every_subcommand_has_help(sub):
    proc = subprocess.run([TEXTFEED, sub, "--help"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert sub in proc.stdout
