"""Dataset layouts of the Boostcamp baselines (docs/dataset_layouts.md) and the reader options
`split` and `illegibility`: the Loader opens ROOT/ufo/train.json and ROOT with images in
ROOT/img/train/, and ROOT with <x>_receipt/ufo/train.json folders merged; `textfeed inspect`
prints the layout; the options reach the reader, the CLI and the daemon's check."""

import json
import shutil
import subprocess

import pytest
import torch

import textfeed
from textfeed import errors
from support import SAMPLE, TEXTFEED, Daemon

SAMPLE_UFO = json.loads((SAMPLE / "ufo" / "train.json").read_text(encoding="utf-8"))["images"]
RECEIPTS = {"chinese": "zh", "japanese": "ja", "thai": "th", "vietnamese": "vi"}


def copy_images(folder, names, sources):
    """`sources` (sample image names) copied into `folder` as `names`; the UFO json of them."""
    folder.mkdir(parents=True, exist_ok=True)
    images = {}
    for name, source in zip(names, sources):
        shutil.copy(SAMPLE / "images" / source, folder / name)
        images[name] = SAMPLE_UFO[source]
    return {"images": images}


def write_json(path, doc):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")


def sixth_generation(root, count=3, split="train"):
    """ROOT/ufo/<split>.json with ROOT/img/<split>/."""
    sources = sorted(SAMPLE_UFO)[:count]
    write_json(root / "ufo" / f"{split}.json", copy_images(root / "img" / split, sources, sources))
    return root


def seventh_generation(root):
    """ROOT/<lang>_receipt/ufo/train.json with .../img/train/, 2 + 1 + 1 + 1 images."""
    sources = iter(sorted(SAMPLE_UFO))
    for i, (lang, code) in enumerate(sorted(RECEIPTS.items())):
        n = 2 if i == 0 else 1
        names = [f"extractor.{code}.in_house.appen_00000{k}_page0001.jpg" for k in range(n)]
        doc = copy_images(root / f"{lang}_receipt" / "img" / "train", names, [next(sources) for _ in range(n)])
        write_json(root / f"{lang}_receipt" / "ufo" / "train.json", doc)
    return root


def loader(dataset, endpoint=None, **kw):
    args = dict(dataset=dataset, batch_size=1, profile="sakura", threads=2, crop_size=128, shuffle=False)
    args.update(kw)
    return textfeed.Loader(endpoint, **args)


def tf(*args):
    return subprocess.run([TEXTFEED, *map(str, args)], capture_output=True, text=True)


@pytest.mark.parametrize("by_file", [True, False])
def test_the_sixth_generation_layout_opens_by_file_and_by_folder(tmp_path, by_file):
    root = sixth_generation(tmp_path / "data", count=3)
    with loader(root / "ufo" / "train.json" if by_file else root) as l:
        assert len(l) == 3
        batch = next(iter(l))
        assert batch.indices == [0] and batch.errors == []


def test_the_seventh_generation_layout_merges_its_receipt_folders(tmp_path):
    root = seventh_generation(tmp_path / "data")
    with loader(root, batch_size=5) as l:
        assert len(l) == 1
        batch = next(iter(l))
        assert sorted(batch.indices) == [0, 1, 2, 3, 4] and batch.errors == []


def test_split_picks_the_json_and_is_checked(tmp_path):
    root = sixth_generation(tmp_path / "data", count=3)
    sixth_generation(root, count=2, split="val")
    with loader(root, split="val") as l:
        assert len(l) == 2
    with pytest.raises(errors.InvalidArgumentError, match="no ufo/test.json for split 'test'"):
        loader(root, split="test")
    with pytest.raises(errors.InvalidArgumentError, match="split must be a file name stem"):
        loader(root, split="../val")
    with pytest.raises(errors.ArgumentTypeError, match="split must be a str"):
        loader(root, split=1)


def test_illegibility_valid_unmasks_the_illegible_words(tmp_path):
    ufo = SAMPLE / "ufo" / "train.json"  # 61 of its 82 words are illegible
    with loader(ufo, batch_size=10) as ignore, loader(ufo, batch_size=10, illegibility="valid") as valid, \
            loader(ufo, batch_size=10, illegibility=textfeed.Illegibility.VALID) as member:
        masks = [next(iter(x)).roi_mask.numpy().tobytes() for x in (ignore, valid, member)]
    assert masks[0] != masks[1] and masks[1] == masks[2]
    with pytest.raises(errors.InvalidArgumentError, match=r"illegibility must be one of \('ignore', 'valid'\)"):
        loader(ufo, illegibility="maybe")
    assert textfeed.Illegibility.IGNORE.text == "ignore" and "Illegibility" in textfeed.__all__


def test_inspect_prints_each_layout(tmp_path):
    six = sixth_generation(tmp_path / "six", count=3)
    text = tf("inspect", six)
    assert text.returncode == 0, text.stderr
    assert "annotation files      1\n  ufo/train.json: 3 images from img/train/\n" in text.stdout, text.stdout
    seven = seventh_generation(tmp_path / "seven")
    report = tf("inspect", seven, "--json")
    assert report.returncode == 0, report.stderr
    got = json.loads(report.stdout)
    assert got["format"] == "ufo" and got["images"] == 5 and got["split"] == "train"
    assert got["files"] == [{"file": f"{lang}_receipt/ufo/train.json", "image_dir": f"{lang}_receipt/img/train",
                             "images": 2 if lang == "chinese" else 1} for lang in sorted(RECEIPTS)]
    text = tf("inspect", seven)
    assert "  chinese_receipt/ufo/train.json: 2 images from chinese_receipt/img/train/\n" in text.stdout, text.stdout


def test_the_cli_takes_illegibility_and_split(tmp_path):
    ufo = SAMPLE / "ufo" / "train.json"
    ignore = json.loads(tf("inspect", ufo, "--json").stdout)
    valid = json.loads(tf("inspect", ufo, "--json", "--illegibility", "valid").stdout)
    assert ignore["ignored_words"] == 61 and valid["ignored_words"] == 0 and valid["words"] == 82
    assert valid["illegibility"] == "valid"
    bad = tf("inspect", ufo, "--illegibility", "maybe")
    assert bad.returncode == 2 and "--illegibility" in bad.stderr, bad.stderr
    root = sixth_generation(tmp_path / "data", count=1)
    sixth_generation(root, count=2, split="val")
    assert json.loads(tf("inspect", root, "--json", "--split", "val").stdout)["images"] == 2
    escape = tf("inspect", root, "--split", "..")
    assert escape.returncode == 2 and "split must be a file name stem" in escape.stderr, escape.stderr


def test_a_daemon_refuses_another_illegibility_and_split(tmp_path):
    d = Daemon(tmp_path, args=["--illegibility", "valid"])
    d.start()
    try:
        with pytest.raises(errors.InvalidArgumentError, match="other reader options.*illegibility: the stream asks "
                                                              "for ignore, the daemon read it with valid"):
            loader("icdar", d.endpoint, shuffle=True)
        with pytest.raises(errors.InvalidArgumentError, match="split: the stream asks for val, the daemon read it "
                                                              "with train"):
            loader("icdar", d.endpoint, illegibility="valid", split="val")
        with loader("icdar", d.endpoint, illegibility="valid") as l:
            assert next(iter(l)).indices
        pulled = tf("pull", "--endpoint", d.endpoint, "--dataset", "icdar", "--profile", "sakura", "--batches", "1",
                    "--batch-size", "2", "--illegibility", "valid")
        assert pulled.returncode == 0, pulled.stderr
    finally:
        d.stop()


def test_profile_bc7_reads_as_the_seventh_generation_every_word_valid_and_no_ignore_tags(tmp_path):
    ufo = SAMPLE / "ufo" / "train.json"
    kw = dict(batch_size=10, profile="bc7", image_size=512, crop_size=128)
    with loader(ufo, **kw) as bc7, loader(ufo, illegibility="valid", ignore_tags=[], **kw) as explicit, \
            loader(ufo, illegibility="ignore", **kw) as ignoring:
        rois = [next(iter(x)).roi_mask for x in (bc7, explicit, ignoring)]
    assert torch.equal(rois[0], rois[1]) and bool((rois[0] == 1).all())  # no word is ignored: all ones
    assert not bool((rois[2] == 1).all())  # the keyword still overrides the profile's default
    defaults = textfeed._core.reader_defaults(textfeed.Profile.BC7)
    assert defaults.ignore_tags == [] and defaults.illegibility == textfeed.Illegibility.VALID
    assert textfeed._core.reader_defaults(textfeed.Profile.UPSTAGE).illegibility == textfeed.Illegibility.IGNORE
