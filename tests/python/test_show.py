"""`textfeed show` PNGs explain themselves: every panel has a title above it and a legend band under
the panels names each colour. Each sample's line counts the words in the crop (the ones its targets
see) apart from those of the whole image."""

import re
import subprocess

import cv2
import numpy as np

from support import TEXTFEED

SIDE = 1024
# img_0: one word over the whole image, so that every crop holds it. img_1: one word in a corner of
# 32 x 16 px, which a 512 px crop at a position drawn in [0, 512)^2 holds about once in 500 draws.
WORDS = {"img_0": "8,8,1016,8,1016,1016,8,1016,everywhere\n", "img_1": "8,8,40,8,40,24,8,24,corner\n"}
GREEN, YELLOW, INK = (0, 255, 0), (0, 230, 255), 235  # BGR, as tools/show_command.cc draws them


def _dataset(root):
    (root / "images").mkdir(parents=True)
    (root / "gt").mkdir()
    rng = np.random.default_rng(0)
    for stem, gt in WORDS.items():
        ok, data = cv2.imencode(".jpg", rng.integers(0, 255, (SIDE, SIDE, 3), dtype=np.uint8))
        assert ok
        (root / "images" / f"{stem}.jpg").write_bytes(data.tobytes())
        (root / "gt" / f"gt_{stem}.txt").write_text(gt)
    return root


def _show(dataset, out, *flags):
    proc = subprocess.run([TEXTFEED, "show", "--dataset", str(dataset), "--out", str(out), "--count", "2",
                           *flags], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return {re.search(r"img_\d", line).group(0): line for line in proc.stdout.splitlines()}


def test_issue30_show_counts_the_words_of_the_crop_not_of_the_image(tmp_path):
    # Rotation and height jitter off: the words stay where the gt puts them.
    lines = _show(_dataset(tmp_path / "ds"), tmp_path / "out", "--profile", "sakura", "--set", "rotate_deg=0",
                  "--set", "height_jitter=0")
    assert "1 word in the crop (1 legible), 1 in the image" in lines["img_0"], lines
    assert "0 words in the crop (0 legible), 1 in the image" in lines["img_1"], lines


def test_issue30_show_pngs_have_titled_panels_and_a_legend(tmp_path):
    _show(_dataset(tmp_path / "ds"), tmp_path / "out", "--profile", "sakura")
    png = cv2.imread(str(tmp_path / "out" / "sample_0.png"))
    height, width = png.shape[:2]
    assert width == 512 and height > 512 + 60, png.shape  # the crop, its title and the legend band
    # The score map is blended into the crop, so pure green is the legend's swatch: under the crop.
    green_rows = np.flatnonzero((png == np.array(GREEN, np.uint8)).all(axis=-1).any(axis=1))
    assert green_rows.size and green_rows.min() >= 512, green_rows
    assert (png[green_rows.min():] == np.array(YELLOW, np.uint8)).all(axis=-1).any()  # geometry boxes
    assert (png[:16] >= INK - 40).all(axis=-1).any(), "no title text above the crop"


def test_issue30_show_db_grid_titles_its_six_panels(tmp_path):
    lines = _show(_dataset(tmp_path / "ds"), tmp_path / "out", "--profile", "db")
    assert re.search(r"\d+ words? in the crop \(\d+ legible\), 1 in the image", lines["img_0"]), lines
    png = cv2.imread(str(tmp_path / "out" / "sample_0.png"))
    height, width = png.shape[:2]
    assert width == 3 * 640 and height > 2 * 640 + 60, png.shape
