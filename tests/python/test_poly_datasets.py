"""The polygon dataset formats (Total-Text, CTW1500 txt and xml, PaddleOCR label files, mmocr json):
each sample written here reads through the Loader with every point of every word in an eval
batch's ``polygons``, ``format=`` forces a reader, ``textfeed inspect`` reports each format, and
malformed records are listed with file, line and reason."""

import json
import subprocess

import numpy as np
import pytest
from PIL import Image

import textfeed
from textfeed import errors
from support import TEXTFEED

W, H = 200, 100
# Two words per image: a curved 6-point one, and an ignored 4-point one.
CURVE = [[10, 10], [60, 5], [110, 10], [110, 40], [60, 35], [10, 40]]
QUAD = [[120, 50], [190, 50], [190, 90], [120, 90]]
CTW = [[10 + 10 * i, 10 + (i % 3)] for i in range(7)] + [[70 - 10 * i, 40 - (i % 2)] for i in range(7)]


def _image(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full((H, W, 3), 120, np.uint8)).save(path)


def _totaltext(root):
    _image(root / "images" / "img1.png")
    (root / "gt").mkdir()
    rec = lambda pts, text: (f"x: [[{' '.join(str(p[0]) for p in pts)}]], y: [[{' '.join(str(p[1]) for p in pts)}]], "
                             f"ornt: [u'c'], transcriptions: [u'{text}']")
    (root / "gt" / "poly_gt_img1.txt").write_text(rec(CURVE, "CURVE") + "\n" + rec(QUAD, "#") + "\n")
    return root, [CURVE, QUAD]


def _ctw_txt(root):
    _image(root / "images" / "0001.png")
    (root / "gt").mkdir()
    flat = ",".join(f"{x},{y}" for x, y in CTW)
    (root / "gt" / "0001.txt").write_text(f"{flat},####WORD\n{flat},#######\n")
    return root, [CTW, CTW]


def _ctw_xml(root):
    _image(root / "images" / "0001.png")
    (root / "gt").mkdir()
    flat = ",".join(f"{x},{y}" for x, y in CTW)
    boxes = "".join(f'<box height="1" left="1" top="1" width="1"><label>{t}</label><segs>{flat}</segs></box>\n'
                    for t in ("WORD", "###"))
    (root / "gt" / "0001.xml").write_text(f'<Annotations>\n<image file="0001.png">\n{boxes}</image>\n</Annotations>\n')
    return root, [CTW, CTW]


def _paddle(root):
    _image(root / "imgs" / "a.png")
    words = [{"transcription": "CURVE", "points": CURVE}, {"transcription": "###", "points": QUAD}]
    (root / "train_label.txt").write_text("imgs/a.png\t" + json.dumps(words) + "\n")
    return root / "train_label.txt", [CURVE, QUAD]


def _mmocr(root):
    _image(root / "textdet_imgs" / "train" / "a.png")
    flat = lambda pts: [c for p in pts for c in p]
    inst = [{"polygon": flat(CURVE), "bbox": [10, 5, 110, 40], "bbox_label": 0, "ignore": False, "text": "CURVE"},
            {"polygon": flat(QUAD), "bbox": [120, 50, 190, 90], "bbox_label": 0, "ignore": True}]
    doc = {"metainfo": {"dataset_type": "TextDetDataset", "task_name": "textdet", "category": [{"id": 0, "name": "text"}]},
           "data_list": [{"img_path": "textdet_imgs/train/a.png", "height": H, "width": W, "instances": inst}]}
    (root / "textdet_train.json").write_text(json.dumps(doc))
    return root, [CURVE, QUAD]


FORMATS = {"totaltext": _totaltext, "ctw1500": _ctw_txt, "ctw1500-xml": _ctw_xml, "paddle": _paddle, "mmocr": _mmocr}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_point_arrives_in_an_eval_batch(tmp_path, name):
    path, polys = FORMATS[name](tmp_path)
    with textfeed.Loader(dataset=str(path), batch_size=1, profile="upstage", image_size=256, mode="eval",
                         threads=1, prefetch=2, pin_memory=False) as loader:
        b = next(iter(loader))
    got = b.polygons[0]
    assert [p.shape for p in got] == [(len(q), 2) for q in polys]
    for p, q in zip(got, polys):
        assert np.abs(p - np.array(q, np.float32)).max() == 0
    assert b.ignore[0].tolist() == [False, True]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_inspect_reports_the_format_and_its_points(tmp_path, name):
    path, polys = FORMATS[name](tmp_path)
    proc = subprocess.run([TEXTFEED, "inspect", str(path), "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    j = json.loads(proc.stdout)
    assert j["format"] == name.split("-")[0]
    assert j["images"] == 1 and j["polygons"] == 2 and j["ignored_polygons"] == 1
    # words: the EAST quads (poly_policy skip keeps the 4-point words only); polygons: every word.
    assert j["label_files"] == 1 and j["words"] == sum(len(q) == 4 for q in polys)
    assert j["max_points"] == max(len(q) for q in polys)
    assert sum(j["points_per_word"].values()) == 2
    assert j["bad_records"] == []
    text = subprocess.run([TEXTFEED, "inspect", str(path)], capture_output=True, text=True)
    assert text.returncode == 0 and f"format                {name.split('-')[0]}" in text.stdout
    assert "points per word" in text.stdout


def test_format_keyword_forces_a_reader(tmp_path):
    path, _ = _totaltext(tmp_path)
    kw = dict(batch_size=1, image_size=256, mode="eval", threads=1, prefetch=2, pin_memory=False)
    with textfeed.Loader(dataset=str(path), format="totaltext", **kw) as loader:
        assert len(next(iter(loader)).polygons[0]) == 2
    with textfeed.Loader(dataset=textfeed.Source(path, format=textfeed.ReaderFormat.TOTALTEXT), **kw) as loader:
        assert len(next(iter(loader)).polygons[0]) == 2
    with pytest.raises(errors.InvalidArgumentError, match="textdet_train.json"):
        textfeed.Loader(dataset=str(path), format="mmocr", **kw)
    with pytest.raises(errors.InvalidArgumentError, match="format"):
        textfeed.Loader(dataset=str(path), format="coco", **kw)
    proc = subprocess.run([TEXTFEED, "inspect", str(path), "--format", "icdar15", "--json"], capture_output=True,
                          text=True)
    assert proc.returncode == 0 and json.loads(proc.stdout)["format"] == "icdar15"


MALFORMED = {
    "totaltext": ("gt/poly_gt_img1.txt", "x: [[1 9 9 1]], y: [[1 1 5]], ornt: [u'h'], transcriptions: [u'A']\n",
                  "4 x but 3 y", 1),
    "ctw1500": ("gt/0001.txt", "1,2,3,4,5\n", "5 numbers", 1),
    "ctw1500-xml": ("gt/0001.xml", "<Annotations>\n<box><label>A</label><segs>1,x</segs></box>\n</Annotations>\n",
                    "not a finite number", 2),
    "paddle": ("train_label.txt", "imgs/a.png\t[{\"points\": [[0, 0], [1, 0], [1, 1]]}]\n", "no 'transcription'", 1),
    "mmocr": ("textdet_train.json", json.dumps({"data_list": [{"img_path": "textdet_imgs/train/a.png",
                                                               "instances": [{"polygon": [1, 2, 3]}]}]}),
              "odd count", 0),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_records_are_listed_with_file_line_and_reason(tmp_path, name):
    path, _ = FORMATS[name](tmp_path)
    file, content, reason, line = MALFORMED[name]
    (tmp_path / file).write_text(content)
    # Named: a first line this broken no longer looks like CTW1500 to the detection.
    fmt = ["--format", name.split("-")[0]]
    proc = subprocess.run([TEXTFEED, "inspect", str(path), "--json", *fmt], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    bad = json.loads(proc.stdout)["bad_records"]
    assert any(reason in b["reason"] and b["line"] == line and b["file"].endswith(file.split("/")[-1])
               for b in bad), bad


def test_paddle_ratio_list_becomes_weighted_sources(tmp_path):
    for name, n in (("a_label.txt", 4), ("b_label.txt", 10)):
        lines = [f"imgs/{name[0]}{i}.png\t[]" for i in range(n)]
        for i in range(n):
            _image(tmp_path / "imgs" / f"{name[0]}{i}.png")
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    sources, epoch_size = textfeed.paddle_sources([tmp_path / "a_label.txt", tmp_path / "b_label.txt"], [1.0, 0.5])
    assert [s.weight for s in sources] == [4.0, 5.0] and epoch_size == 9
    assert all(s.reader.reader_format == textfeed.ReaderFormat.PADDLE for s in sources)
    with textfeed.Loader(dataset=sources, epoch_size=epoch_size, batch_size=9, profile="sakura", seed=1,
                         threads=1, prefetch=2, pin_memory=False) as loader:
        b = next(iter(loader))
        assert sorted(b.sources) == [0] * 4 + [1] * 5
    with pytest.raises(errors.InvalidArgumentError, match="ratio_list"):
        textfeed.paddle_sources([tmp_path / "a_label.txt"], [1.0, 0.5])


@pytest.mark.parametrize("name", ["totaltext", "mmocr"])
def test_a_cache_gives_the_polygons_the_dataset_gives(tmp_path, name):
    path, polys = FORMATS[name](tmp_path / "ds")
    out = tmp_path / "c.tfc"
    proc = subprocess.run([TEXTFEED, "cache", "build", "--dataset", str(path), "--out", str(out), "--image-size", "0"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    batches = []
    for dataset in (path, out):
        with textfeed.Loader(dataset=str(dataset), batch_size=1, image_size=256, mode="eval", threads=1, prefetch=2,
                             pin_memory=False) as loader:
            batches.append(next(iter(loader)))
    from_dataset, from_cache = batches
    assert [p.shape for p in from_cache.polygons[0]] == [(len(q), 2) for q in polys]
    assert all(np.array_equal(p, q) for p, q in zip(from_cache.polygons[0], from_dataset.polygons[0]))
    assert from_cache.ignore[0].tolist() == from_dataset.ignore[0].tolist() == [False, True]
