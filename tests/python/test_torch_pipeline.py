"""Checks the plain-PyTorch baseline examples/east_torch_pipeline.py against tests/golden.

It must be the same pipeline textfeed runs, or the side-by-side speed comparison means nothing:
targets equal to the references' (docs/targets.md §3, tolerances §6.3), geometric chain replaying the
references' draws, readers, per-sample determinism and DataLoader workers.
"""

import importlib.util
import json
import shutil
import sys

import numpy as np
import pytest
import torch
from PIL import Image

import golden_data
from support import ROOT, SAMPLE

DIRS = golden_data.dirs()


def load_example():
    spec = importlib.util.spec_from_file_location("east_torch_pipeline",
                                                  ROOT / "examples" / "east_torch_pipeline.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # lets DataLoader workers unpickle the dataset under spawn too
    spec.loader.exec_module(module)
    return module


etp = load_example()


def check_maps(score, geo, mask, ref, mask_name):
    assert score.dtype == geo.dtype == mask.dtype == np.float32
    assert score.shape == ref["score"].shape and geo.shape == ref["geo"].shape
    np.testing.assert_array_equal(score, ref["score"])
    np.testing.assert_array_equal(mask, ref[mask_name])
    np.testing.assert_array_equal(geo[4], ref["geo"][4])
    np.testing.assert_allclose(geo[:4], ref["geo"][:4], rtol=0, atol=1e-3)


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "reference_cost"])
@pytest.mark.parametrize("kind", ["up_targets", "sr_targets"])
def test_make_targets_matches_every_golden_file(kind, fast):
    profile, mask_name = ("upstage", "roi") if kind == "up_targets" else ("sakura", "ignored")
    for folder in DIRS:
        cases = golden_data.load_json(folder, "index.json")[kind]
        assert {c["file"] for c in cases} == {p.name for p in folder.glob(f"{kind}_*.npz")}
        for case in cases:
            ref = golden_data.load(folder / case["file"])
            out = etp.make_targets(ref["vertices"], ref["labels"], int(ref["crop"]),
                                   float(ref["map_scale"]), profile, fast=fast)
            try:
                check_maps(*out, ref, mask_name)
            except AssertionError as e:
                raise AssertionError(f"{folder / case['file']} ({case['case']})") from e


def test_shrink_and_angle_search_match_the_units():
    units = [u for folder in DIRS for u in golden_data.load_json(folder, "units.json")]
    for unit in units:
        quad = np.array(unit["quad"], np.float64).reshape(4, 2)
        np.testing.assert_array_equal(etp._shrink_quad(quad).reshape(-1), unit["sr_shrink"])
        assert etp._min_rect_angle(quad, "sr")[0] == unit["sr_angle"], unit["quad"]
        assert etp._min_rect_angle(quad, "up")[0] == unit["up_angle"], unit["quad"]


def test_make_targets_without_words_is_all_background():
    empty = np.zeros((0, 8))
    score, geo, ignored = etp.make_targets(empty, np.zeros(0, np.int64), 512, 0.25, "sakura")
    assert score.shape == ignored.shape == (128, 128) and geo.shape == (5, 128, 128)
    assert not score.any() and not geo.any() and not ignored.any()
    score, geo, roi = etp.make_targets(empty, np.zeros(0, np.int64), 1024, 0.5, "upstage")
    assert roi.shape == (512, 512) and (roi == 1).all() and not score.any() and not geo.any()
    with pytest.raises(ValueError, match="unknown profile"):
        etp.make_targets(empty, np.zeros(0, np.int64), 512, 0.25, "argman")


@pytest.mark.parametrize("path", [p for folder in DIRS for p in sorted(folder.glob("sr_replay_*.npz"))],
                         ids=lambda p: golden_data.label(p.parent) + p.stem)
def test_sakura_chain_replays_the_reference(path):
    ref = golden_data.load(path)
    rs = np.random.RandomState(int(ref["seed"]))  # the reference's np.random.seed(seed)
    with Image.open(SAMPLE / "images" / str(ref["image_name"])) as img:
        crop, vertices = etp.augment(img, ref["vertices_in"], ref["labels"], rs,
                                     profile="sakura", image_size=0, crop_size=512)
    after = np.random.RandomState(int(ref["seed"]))
    after.rand(len(ref["draws"]))
    assert rs.rand() == after.rand()  # consumed exactly the reference's draws
    np.testing.assert_allclose(vertices, ref["vertices_out"], rtol=1e-9, atol=1e-9)
    assert crop.dtype == np.uint8 and crop.shape == ref["crop_rgb"].shape
    assert np.abs(crop.astype(int) - ref["crop_rgb"]).max() <= 2
    check_maps(*etp.make_targets(vertices, ref["labels"], 512, 0.25, "sakura"), ref, "ignored")


@pytest.mark.parametrize("folder,n", [pytest.param(folder, n, id=f"{golden_data.label(folder)}{n}")
                                      for folder in DIRS for n in range(0, 40, 4)])
def test_upstage_chain_replays_the_reference(folder, n):
    case = golden_data.load_json(folder, "up_replay.json")[n]
    rs = np.random.RandomState(case["seed"])
    img = Image.new("L", (case["image_w"], case["image_h"]))  # only the sizes matter here
    _, vertices = etp.augment(img, np.array(case["vertices_in"], np.float32).reshape(-1, 8),
                              np.array(case["labels"]), rs, profile="upstage",
                              image_size=case["image_size"], crop_size=case["crop"])
    after = np.random.RandomState(case["seed"])
    after.rand(len(case["draws"]))
    assert rs.rand() == after.rand()
    np.testing.assert_allclose(vertices, np.array(case["vertices_out"]).reshape(-1, 8),
                               rtol=0, atol=1e-4)


def test_crop_check_without_shapely_agrees(monkeypatch):
    rs = np.random.RandomState(5)
    quads = rs.uniform(0, 300, (60, 2, 4, 2))
    squares = [(int(x), int(y)) for x, y in rs.uniform(0, 200, (60, 2))]
    with_shapely = [etp._crop_cuts_a_word(q, x, y, 100) for q, (x, y) in zip(quads, squares)]
    every_word = [etp._crop_cuts_a_word(q, x, y, 100, fast=False) for q, (x, y) in zip(quads, squares)]
    assert every_word == with_shapely
    monkeypatch.setattr(etp, "Polygon", None)
    monkeypatch.setattr(etp, "shapely_box", None)
    without = [etp._crop_cuts_a_word(q, x, y, 100) for q, (x, y) in zip(quads, squares)]
    assert with_shapely == without and any(without) and not all(without)
    assert etp._hull_area(np.array([[0, 0], [2, 0], [0, 2], [2, 2]], np.float64)) == 4.0


def test_icdar_and_ufo_readers_agree_on_the_sample():
    icdar = {s.image.name: s for s in etp.read_icdar15(SAMPLE)}
    ufo = {s.image.name: s for s in etp.read_ufo(SAMPLE / "ufo" / "train.json")}
    assert len(icdar) == 10 and icdar.keys() == ufo.keys()
    for name, sample in icdar.items():
        assert sample.image == ufo[name].image and sample.image.is_file()
        np.testing.assert_array_equal(sample.vertices, ufo[name].vertices)
        np.testing.assert_array_equal(sample.labels, ufo[name].labels)
        assert sample.labels.dtype == np.int64
    assert sum(int((s.labels == 0).sum()) for s in icdar.values()) == 61
    assert sum(int((s.labels == 1).sum()) for s in icdar.values()) == 21


def test_icdar_parser_edge_cases():
    text = "\ufeff1,2,3,4,5,6,7,8,a,b\r\n1.5,2,3,4,5,6,7,8,x###y\r\n\r\n9,9,9,9,9,9,9,9,###\r\n"
    vertices, labels = etp.parse_icdar15(text)
    assert vertices.shape == (3, 8) and vertices[1, 0] == 1.5
    assert labels.tolist() == [1, 0, 0]
    with pytest.raises(ValueError, match="gt.txt:2"):
        etp.parse_icdar15("1,2,3,4,5,6,7,8,a\n1,2,3,x,5,6,7,8,b\n", "gt.txt")


def test_ufo_reader_skips_tagged_polygons_and_tiny_boxes(tmp_path):
    def word(points, illegible=False, tags=()):
        return {"points": points, "illegibility": illegible, "tags": list(tags)}

    square = [[0, 0], [10, 0], [10, 10], [0, 10]]
    words = {"1": word(square), "2": word(square, illegible=True),
             "3": word(square, tags=["stamp"]), "4": word(square + [[5, 12]]),
             "5": word([[0, 0], [0.5, 0], [0.5, 0.5], [0, 0.5]])}
    (tmp_path / "ufo").mkdir()
    document = json.dumps({"images": {"a.jpg": {"words": words}}})
    (tmp_path / "ufo" / "train.json").write_text(document, encoding="utf-8-sig")
    [sample] = etp.read_ufo(tmp_path / "ufo" / "train.json")
    assert sample.image == tmp_path / "images" / "a.jpg"
    assert sample.vertices.dtype == np.float32 and sample.vertices.shape == (2, 8)
    assert sample.labels.tolist() == [1, 0]


@pytest.fixture(scope="module")
def sakura():
    return etp.EASTDataset(SAMPLE, profile="sakura", seed=7)


def test_dataset_shapes_and_dtypes(sakura):
    assert len(sakura) == 10
    for dataset, crop, side in ((sakura, 512, 128),
                                (etp.EASTDataset(SAMPLE / "ufo" / "train.json", profile="upstage"),
                                 1024, 512)):
        image, score, geo, mask = dataset[0]
        assert image.shape == (3, crop, crop) and score.shape == mask.shape == (1, side, side)
        assert geo.shape == (5, side, side)
        assert all(t.dtype == torch.float32 for t in (image, score, geo, mask))
        assert -1 <= float(image.min()) < float(image.max()) <= 1
        assert set(torch.unique(score).tolist()) <= {0.0, 1.0}
    assert any(float(sakura[k][1].max()) == 1 for k in range(len(sakura)))


def test_dataset_overrides_and_empty_annotations(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "gt").mkdir()
    shutil.copy(SAMPLE / "images" / "img_1.jpg", tmp_path / "images" / "img_1.jpg")
    (tmp_path / "gt" / "gt_img_1.txt").write_bytes(b"\xef\xbb\xbf")
    dataset = etp.EASTDataset(tmp_path, profile="upstage", image_size=1024, crop_size=512,
                              map_scale=0.25)
    image, score, geo, roi = dataset[0]
    assert image.shape == (3, 512, 512) and roi.shape == (1, 128, 128)
    assert not score.any() and not geo.any() and (roi == 1).all()


def test_same_seed_epoch_index_gives_the_same_sample(sakura):
    first = sakura[3]
    for a, b in zip(first, sakura[3]):
        assert torch.equal(a, b)
    sakura.set_epoch(1)
    try:
        other = sakura[3]
    finally:
        sakura.set_epoch(0)
    assert not torch.equal(first[0], other[0])
    assert not torch.equal(first[0], sakura[4][0])


def test_dataloader_workers_give_the_single_process_samples(sakura):
    subset = torch.utils.data.Subset(sakura, [0, 1, 2, 3])
    loader = torch.utils.data.DataLoader(subset, batch_size=2, num_workers=2)
    batches = list(loader)
    assert [b[0].shape for b in batches] == [(2, 3, 512, 512)] * 2
    assert batches[0][2].shape == (2, 5, 128, 128) and batches[1][3].shape == (2, 1, 128, 128)
    for k in range(4):
        for got, want in zip(batches[k // 2], sakura[k]):
            assert torch.equal(got[k % 2], want)
