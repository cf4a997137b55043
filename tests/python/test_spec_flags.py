"""The pipeline spec's flags (tools/spec_flags.h) on every command that reads a dataset: the reader
options reach inspect, cache build, serve, bench, show and pull; a daemon refuses a stream that
asks for reader options other than those it read its dataset with; a recipe change (--set) reaches
the pixels."""
import json
import shutil
import subprocess

import cv2

from support import SAMPLE, TEXTFEED, Daemon


def tf(*args, timeout=120):
    proc = subprocess.run([TEXTFEED, *map(str, args)], capture_output=True, timeout=timeout)
    proc.out = proc.stdout.decode("utf-8", "replace")
    proc.err = proc.stderr.decode("utf-8", "replace")
    return proc


def test_every_dataset_command_takes_the_reader_flags():
    for command in (["inspect"], ["cache", "build"], ["serve"], ["bench"], ["show"], ["pull"]):
        help_text = tf(*command, "--help").out
        for flag in ("--ignore-text", "--ignore-tags", "--poly-policy", "--ignore-under-area", "--images-dir"):
            assert flag in help_text, (command, flag)


def test_a_reader_flag_changes_what_inspect_and_cache_build_read(tmp_path):
    missing = tf("inspect", SAMPLE, "--images-dir", "pictures")
    assert missing.returncode == 2 and "pictures" in missing.err, missing.err
    build = tf("cache", "build", "--dataset", SAMPLE, "--out", tmp_path / "c.tfc", "--images-dir", "pictures")
    assert build.returncode == 2 and "pictures" in build.err, build.err
    assert not (tmp_path / "c.tfc").exists()
    escape = tf("cache", "build", "--dataset", SAMPLE, "--out", tmp_path / "c.tfc", "--images-dir", "../up")
    assert escape.returncode == 2 and "images_dir must stay below the dataset's root" in escape.err, escape.err
    # A word whose transcription holds ### inside: ignored by the reference's substring rule only.
    data = tmp_path / "data"
    shutil.copytree(SAMPLE, data)
    with open(data / "gt" / "gt_img_1.txt", "a") as gt:
        gt.write("10,10,50,10,50,30,10,30,ab###cd\n")
    ignored = {}
    for rule in ("substring", "exact"):
        out = tmp_path / f"{rule}.tfc"
        built = tf("cache", "build", "--dataset", data, "--out", out, "--ignore-text", rule, "--threads", "1")
        assert built.returncode == 0, built.err
        ignored[rule] = json.loads(tf("cache", "inspect", "--json", out).out)["ignored_words"]
    assert ignored == {"substring": 62, "exact": 61}


def test_show_applies_recipe_changes(tmp_path):
    out = tmp_path / "show"
    proc = tf("show", "--dataset", SAMPLE, "--out", out, "--count", "1", "--profile", "sakura", "--set",
              "crop_size=640")
    assert proc.returncode == 0, proc.err
    # The PNG is as wide as the crop (sakura's is 512), with its title above and its legend below.
    height, width = cv2.imread(str(out / "sample_0.png")).shape[:2]
    assert width == 640 and height > 640, (height, width)
    bad = tf("show", "--dataset", SAMPLE, "--out", out, "--set", "crop_size=4")
    assert bad.returncode == 2 and "crop_size" in bad.err, bad.err
    for flags in (["--dtype", "uint8"], ["--set", "dtype=uint8"]):  # show draws float32 crops
        uint8 = tf("show", "--dataset", SAMPLE, "--out", out, *flags)
        assert uint8.returncode == 2 and "show draws float32 crops" in uint8.err, uint8.err


def test_a_stream_must_ask_for_the_reader_options_the_daemon_read_with(tmp_path):
    daemon = Daemon(tmp_path, args=["--ignore-text", "exact"])
    daemon.start()
    try:
        same = tf("pull", "--endpoint", daemon.endpoint, "--dataset", "icdar", "--profile", "sakura",
                  "--batches", "1", "--batch-size", "2", "--ignore-text", "exact")
        assert same.returncode == 0, same.err
        other = tf("pull", "--endpoint", daemon.endpoint, "--dataset", "icdar", "--profile", "sakura",
                   "--batches", "1", "--batch-size", "2")
        assert other.returncode == 2, other.err
        assert "other reader options than this daemon read 'icdar' with (ignore_text: the stream asks for substring, the daemon read it with exact)" in other.err, other.err
    finally:
        daemon.stop()


def test_mode_eval_is_a_flag_of_bench_and_pull_checked_like_the_others():
    for command in (["bench"], ["pull"]):
        help_text = tf(*command, "--help").out
        assert "--mode" in help_text and "--return-polygons" in help_text, command
    ok = tf("bench", "--dataset", SAMPLE, "--mode", "eval", "--set", "image_size=256", "--batch-size", "2",
            "--threads", "2")
    assert ok.returncode == 0 and "samples/s" in ok.out, ok.err
    wrong = tf("bench", "--dataset", SAMPLE, "--mode", "evil")
    assert wrong.returncode != 0 and "evil" in wrong.err
    canvas = tf("bench", "--dataset", SAMPLE, "--mode", "eval", "--profile", "sakura")
    assert canvas.returncode == 2 and "mode=eval needs image_size > 0" in canvas.err, canvas.err
