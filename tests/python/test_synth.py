"""`textfeed synth --profile photo`: receipt pages photographed, with the JPEG entropy of real
phone photos (>= 1.5 bits per pixel), the same bytes whatever --threads, and ground truth whose
quads lie inside the image."""
import re
import subprocess

import cv2

from support import TEXTFEED


def synth(out, *args):
    proc = subprocess.run([TEXTFEED, "synth", "--profile", "photo", "--seed", "7", "--out", str(out), *args],
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()


def test_photo_pages_have_real_photo_entropy_and_do_not_depend_on_threads(tmp_path):
    report = synth(tmp_path / "two", "--count", "2", "--threads", "2")
    synth(tmp_path / "one", "--count", "1", "--threads", "1")
    assert (tmp_path / "two/images/img_1.jpg").read_bytes() == (tmp_path / "one/images/img_1.jpg").read_bytes()
    bits = float(re.search(r"([0-9.]+) bits per pixel", report).group(1))
    total_bytes = total_pixels = 0
    for i in (1, 2):
        path = tmp_path / f"two/images/img_{i}.jpg"
        image = cv2.imread(str(path))
        h, w = image.shape[:2]
        assert 3900 <= h <= 4100 and 2900 <= w <= 3100
        total_bytes += path.stat().st_size
        total_pixels += h * w
        lines = (tmp_path / f"two/gt/gt_img_{i}.txt").read_text(encoding="utf-8-sig").splitlines()
        assert len(lines) >= 30
        for line in lines:
            xy = [int(v) for v in line.split(",")[:8]]
            assert all(0 <= x <= w for x in xy[0::2]) and all(0 <= y <= h for y in xy[1::2]), line
    assert abs(bits - 8 * total_bytes / total_pixels) < 0.01
    assert 1.5 <= bits <= 4.0
