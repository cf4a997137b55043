"""Issue 31, item 6: the Loader's small typed signature. Recipe, ReaderOptions, SamplerOptions,
OutputOptions and DaemonOptions are checked when made; the Loader's keywords of before keep working
(the same batches) with a DeprecationWarning naming the new spelling, and are refused beside the
object that holds them; the binding hands batches over as named structs; importing textfeed changes
no process-wide setting; textfeed.dask is optional."""

import dataclasses
import inspect
import pydoc
import subprocess
import sys
import textwrap
import typing
import warnings

import pytest

import textfeed
from textfeed import _core, errors
from textfeed.options import READER_ATTRIBUTES, RECIPE_ROWS_HELD_ELSEWHERE

from support import SAMPLE

MAX_LOADER_PARAMETERS = 15


def batch_bytes(loader, count=2):
    """(indices, every tensor's bytes) of the first `count` batches (None: every batch of the epoch)."""
    out = []
    for i, b in enumerate(loader):
        out.append((list(b.indices), [t.contiguous().numpy().tobytes() for t in b]))
        if i + 1 == count:
            break
    return out


def no_warnings():
    """A context in which any warning is an error (the new spelling must not warn)."""
    return warnings.catch_warnings(action="error")


# ---------------------------------------------------------------- the signature and its types


def test_the_loader_signature_is_small_and_typed():
    params = inspect.signature(textfeed.Loader).parameters
    assert len(params) <= MAX_LOADER_PARAMETERS, list(params)
    assert list(params)[:2] == ["dataset", "batch_size"]
    for name, cls in [("recipe", "Recipe"), ("reader", "ReaderOptions"), ("sampler", "SamplerOptions"),
                      ("output", "OutputOptions"), ("daemon", "DaemonOptions")]:
        assert params[name].kind == inspect.Parameter.KEYWORD_ONLY and params[name].default is None
        assert cls in str(params[name].annotation), (name, params[name].annotation)
    assert "format" not in params  # no builtin shadowed
    shown = pydoc.render_doc(textfeed.Loader, renderer=pydoc.plaintext)
    assert "recipe: 'Optional[Recipe]' = None" in shown and "sampler: 'Optional[SamplerOptions]'" in shown


def test_recipe_has_one_typed_attribute_per_row_of_the_recipe_table():
    rows = [r["name"] for r in _core.recipe_fields() if r["name"] not in RECIPE_ROWS_HELD_ELSEWHERE]
    fields = dataclasses.fields(textfeed.Recipe)
    assert [f.name for f in fields] == rows
    for f in fields:
        assert f.default is None and ("Optional[" in f.type or ", None]" in f.type), (f.name, f.type)
    hints = typing.get_type_hints(textfeed.Recipe, vars(textfeed.options))
    assert hints["crop_size"] == typing.Optional[int]
    assert hints["brightness"] == typing.Union[float, typing.Tuple[float, float], None]
    assert hints["fill_rule"] == typing.Optional[typing.Literal["even_odd", "union"]]
    doc = inspect.getdoc(textfeed.Recipe)
    assert all(f"    {name} (" in doc for name in rows), doc


def test_reader_options_have_one_attribute_per_row_of_the_reader_table():
    rows = [READER_ATTRIBUTES.get(r["name"], r["name"]) for r in _core.reader_fields()]
    assert [f.name for f in dataclasses.fields(textfeed.ReaderOptions)] == rows
    hints = typing.get_type_hints(textfeed.ReaderOptions, vars(textfeed.options))
    assert textfeed.ReaderFormat in typing.get_args(hints["reader_format"])


# ---------------------------------------------------------------- checked when made


@pytest.mark.parametrize("make,error,message", [
    (lambda: textfeed.Recipe(crop_size=7), errors.InvalidArgumentError,
     r"augment option crop_size = 7: must be in \[8, 16384\]"),
    (lambda: textfeed.Recipe(min_crop_side=0), errors.InvalidArgumentError,
     r"augment option min_crop_side = 0: must be in \(0, 1\]"),
    (lambda: textfeed.Recipe(crop_size="512"), errors.ArgumentTypeError, "crop_size must be an int"),
    (lambda: textfeed.Recipe(crop_size=True), errors.ArgumentTypeError, "crop_size must be an int"),
    (lambda: textfeed.Recipe(map_scale=float("nan")), errors.InvalidArgumentError,
     r"augment option map_scale = nan: must be in \(0, 1\]"),
    (lambda: textfeed.Recipe(brightness=(0.5,)), errors.ArgumentTypeError, r"brightness must be a \(lo, hi\) pair"),
    (lambda: textfeed.Recipe(brightness=(1.5, 0.5)), errors.InvalidArgumentError,
     "option brightness = '1.5,0.5': .*lo must not exceed hi"),
    (lambda: textfeed.Recipe(mean=0.5), errors.ArgumentTypeError, "mean must be 3 numbers"),
    (lambda: textfeed.Recipe(fill_rule="both"), errors.InvalidArgumentError, "fill_rule must be one of"),
    (lambda: textfeed.ReaderOptions(split="../val"), errors.InvalidArgumentError,
     "split must be a file name stem"),
    (lambda: textfeed.ReaderOptions(ignore_tags="masked"), errors.ArgumentTypeError, "ignore_tags must be a list"),
    (lambda: textfeed.ReaderOptions(ignore_tags=iter(lambda: "t", None)), errors.InvalidArgumentError,
     "ignore_tags has more than 256 tags"),
    (lambda: textfeed.ReaderOptions(ignore_under_area=-1), errors.InvalidArgumentError,
     "ignore_under_area must be a finite number"),
    (lambda: textfeed.ReaderOptions(reader_format="coco"), errors.InvalidArgumentError,
     "reader_format must be one of"),
    (lambda: textfeed.SamplerOptions(seed=-1), errors.InvalidArgumentError, "seed must be in 0.."),
    (lambda: textfeed.SamplerOptions(shuffle=1), errors.ArgumentTypeError, "shuffle must be True or False"),
    (lambda: textfeed.SamplerOptions(world_size=0), errors.InvalidArgumentError, "world_size must be in"),
    (lambda: textfeed.OutputOptions(prefetch=1), errors.InvalidArgumentError, r"prefetch must be in 2\.\.64"),
    (lambda: textfeed.OutputOptions(dtype="float16"), errors.InvalidArgumentError, "dtype must be one of"),
    (lambda: textfeed.OutputOptions(payload="tiny"), errors.InvalidArgumentError, "payload must be one of"),
    (lambda: textfeed.DaemonOptions(timeout=0), errors.InvalidArgumentError, "timeout must be a finite number"),
    (lambda: textfeed.DaemonOptions(transport="udp"), errors.InvalidArgumentError, "transport must be one of"),
    (lambda: textfeed.DaemonOptions(curve_server_key=b"k"), errors.ArgumentTypeError,
     "curve_server_key must be a str or os.PathLike"),
    (lambda: textfeed.DaemonOptions(local_threads=0), errors.InvalidArgumentError, "local_threads must be in"),
    (lambda: textfeed.DaemonOptions(local_dataset="x"), errors.InvalidArgumentError,
     "local_dataset without local_threads"),
    (lambda: textfeed.Loader(str(SAMPLE), 2, recipe={"crop_size": 64}), errors.ArgumentTypeError,
     "recipe must be a textfeed.Recipe or None"),
    (lambda: textfeed.Loader(str(SAMPLE), 2, daemon=textfeed.DaemonOptions(local_threads=1)),
     errors.InvalidArgumentError, "local_threads and local_dataset go with an endpoint"),
    (lambda: textfeed.Loader(str(SAMPLE), 2, output=textfeed.OutputOptions(payload="compact")),
     errors.InvalidArgumentError, "payload='compact' goes with an endpoint"),
], ids=lambda v: None)
def test_each_option_object_is_checked_when_made(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_the_recipe_message_is_the_cli_s(tmp_path):
    with pytest.raises(errors.InvalidArgumentError) as python:
        textfeed.Recipe(crop_size=7)
    from support import TEXTFEED
    cli = subprocess.run([TEXTFEED, "show", "--dataset", str(SAMPLE), "--out", str(tmp_path), "--set", "crop_size=7"],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 2 and str(python.value) in cli.stderr, (str(python.value), cli.stderr)


def test_options_are_frozen_values_whose_enums_are_members():
    reader = textfeed.ReaderOptions(ignore_text="exact", ignore_tags=["a", "b"])
    assert reader.ignore_text is textfeed.IgnoreText.EXACT and reader.ignore_tags == ("a", "b")
    assert reader == textfeed.ReaderOptions(ignore_text=textfeed.IgnoreText.EXACT, ignore_tags=("a", "b"))
    assert textfeed.OutputOptions(dtype="uint8").dtype is textfeed.DType.UINT8
    assert textfeed.DaemonOptions(transport="frames").transport is textfeed.Transport.FRAMES
    with pytest.raises(dataclasses.FrozenInstanceError):
        reader.split = "val"
    with pytest.raises(errors.InvalidArgumentError, match="prefetch"):
        dataclasses.replace(textfeed.OutputOptions(), prefetch=0)  # a changed copy is checked again
    recipe = textfeed.Recipe(crop_size=64, brightness=0.2, mean=(0.4, 0.5, 0.6), fill_rule="union")
    assert recipe._texts() == {"crop_size": "64", "brightness": "0.2", "mean": "0.4,0.5,0.6", "fill_rule": "union"}


# ---------------------------------------------------------------- the keywords of before


# The reader's part changes the batches of UFO_SAMPLE (every word ignored: the score maps and masks of
# the crops that hold words change), so a reader option lost on the way would show.
UFO_SAMPLE = SAMPLE / "ufo" / "train.json"
OLD = dict(seed=3, shuffle=False, crop_size=256, brightness=(0.8, 1.2), dtype="uint8", prefetch=2, pin_memory=False,
           ignore_under_area=1e12, format="ufo")


def new_spelling(reader=True):
    return dict(recipe=textfeed.Recipe(crop_size=256, brightness=(0.8, 1.2)),
                sampler=textfeed.SamplerOptions(seed=3, shuffle=False),
                output=textfeed.OutputOptions(dtype="uint8", prefetch=2, pin_memory=False),
                reader=textfeed.ReaderOptions(ignore_under_area=1e12, reader_format="ufo") if reader else None)


def test_the_former_keywords_make_the_same_batches_with_a_warning_naming_the_new_spelling():
    with pytest.warns(DeprecationWarning) as caught:
        old = textfeed.Loader(dataset=str(UFO_SAMPLE), batch_size=2, profile="sakura", threads=1, **OLD)
    message = str(caught[0].message)
    for spelling in ("sampler=textfeed.SamplerOptions(seed=..., shuffle=...)",
                     "recipe=textfeed.Recipe(crop_size=..., brightness=...)",
                     "output=textfeed.OutputOptions(dtype=..., prefetch=..., pin_memory=...)",
                     "reader=textfeed.ReaderOptions(ignore_under_area=..., reader_format=...)"):
        assert spelling in message, message
    assert caught[0].filename == __file__  # the warning points at the caller's line
    with old, no_warnings():
        with textfeed.Loader(str(UFO_SAMPLE), 2, profile="sakura", threads=1, **new_spelling()) as new, \
                textfeed.Loader(str(UFO_SAMPLE), 2, profile="sakura", threads=1, **new_spelling(reader=False)) as plain:
            assert old.state_dict() == new.state_dict()
            assert old._spec.sources[0].reader == new._spec.sources[0].reader
            assert old._spec.sources[0].reader != plain._spec.sources[0].reader
            assert old._spec.sources[0].reader.ignore_under_area == 1e12
            old_batches = batch_bytes(old, count=None)
            assert old_batches == batch_bytes(new, count=None)
            assert old_batches != batch_bytes(plain, count=None)  # the reader's part counts


def test_the_endpoint_first_still_works_with_a_warning():
    with pytest.warns(DeprecationWarning, match=r"endpoint first is deprecated: use Loader\(dataset, batch_size, "
                                                r"endpoint=endpoint\)"):
        with textfeed.Loader(None, dataset=str(SAMPLE), batch_size=2, threads=1,
                             output=textfeed.OutputOptions(prefetch=2)) as l:
            assert l.dataset.endpoint is None and len(l) == 5
    # An endpoint given first is the endpoint: refused here (a dataset name is no path) by the
    # daemon's connection, which nothing answers.
    with pytest.warns(DeprecationWarning), pytest.raises(errors.UnavailableError):
        textfeed.Loader("ipc:///tmp/textfeed-nobody-here.sock", dataset="icdar", batch_size=2,
                        daemon=textfeed.DaemonOptions(timeout=0.2))
    with pytest.raises(errors.ArgumentTypeError, match="endpoint both first and as endpoint="):
        textfeed.Loader("ipc:///a", dataset="icdar", batch_size=2, endpoint="ipc:///b")


@pytest.mark.parametrize("old,holder", [(dict(seed=1), "sampler"), (dict(crop_size=64), "recipe"),
                                        (dict(format="ufo"), "reader"), (dict(prefetch=2), "output"),
                                        (dict(timeout=1.0), "daemon")])
def test_a_former_keyword_beside_the_object_that_holds_it_is_an_error(old, holder):
    made = {"sampler": textfeed.SamplerOptions(), "recipe": textfeed.Recipe(), "reader": textfeed.ReaderOptions(),
            "output": textfeed.OutputOptions(), "daemon": textfeed.DaemonOptions()}[holder]
    (name,) = old
    with pytest.raises(errors.ArgumentTypeError, match=rf"got {name}= and {holder}=: {name} is an attribute of "
                                                       rf"{holder} now"):
        textfeed.Loader(str(SAMPLE), 2, **{holder: made}, **old)


def test_a_misspelt_former_keyword_is_named_with_its_new_place():
    with pytest.raises(errors.ArgumentTypeError, match=r"'crop_sise' \(did you mean 'crop_size' "
                                                       r"\(recipe=textfeed\.Recipe\(crop_size=\.\.\.\)\)"):
        textfeed.Loader(str(SAMPLE), 2, crop_sise=64)


def test_sources_take_reader_options_and_their_former_keywords():
    reader = textfeed.ReaderOptions(reader_format="icdar15", images_dir="images")
    with no_warnings():
        source = textfeed.Source(SAMPLE, weight=2.0, reader=reader)
    assert source.reader == reader and "reader=ReaderOptions(" in repr(source)
    with pytest.warns(DeprecationWarning, match=r"Source\(format=, images_dir=\) is deprecated: use "
                                                r"reader=textfeed\.ReaderOptions\(reader_format=\.\.\., images_dir"):
        old = textfeed.Source(SAMPLE, weight=2.0, format="icdar15", images_dir="images")
    assert old.reader == reader
    with pytest.raises(errors.ArgumentTypeError, match="reader= and the reader keywords"):
        textfeed.Source(SAMPLE, reader=reader, split="val")
    with pytest.raises(errors.ArgumentTypeError, match=r"Source\(\) got an unexpected keyword argument 'colour'"):
        textfeed.Source(SAMPLE, colour="red")
    with pytest.raises(errors.ArgumentTypeError, match="reader must be a textfeed.ReaderOptions"):
        textfeed.Source(SAMPLE, reader={"split": "val"})
    # A Source's options go over the Loader's, attribute by attribute.
    loader_reader = textfeed.ReaderOptions(ignore_text="exact", reader_format="ufo")
    assert textfeed.ReaderOptions(reader_format="icdar15").over(loader_reader) == \
        textfeed.ReaderOptions(ignore_text="exact", reader_format="icdar15")


def test_paddle_sources_take_reader_options(tmp_path):
    (tmp_path / "a.txt").write_text("img.jpg\t[]\nimg2.jpg\t[]\n")
    with no_warnings():
        sources, epoch_size = textfeed.paddle_sources([tmp_path / "a.txt"], 0.5,
                                                      reader=textfeed.ReaderOptions(images_dir="imgs"))
    assert epoch_size == 1 and sources[0].reader == textfeed.ReaderOptions(images_dir="imgs", reader_format="paddle")
    with pytest.warns(DeprecationWarning, match=r"paddle_sources\(images_dir=\) is deprecated"):
        old, _ = textfeed.paddle_sources([tmp_path / "a.txt"], 0.5, images_dir="imgs")
    assert old[0].reader == sources[0].reader


# ---------------------------------------------------------------- named structs from the binding


def test_the_binding_hands_over_named_structs_not_tuples():
    spec = _core.PipelineSpec(_core.Profile.SAKURA, str(SAMPLE))
    spec.set_option("crop_size", "64")
    spec.sampler.batch_size = 2
    spec.return_polygons = True
    feed = _core.open_embedded(spec, threads=1, prefetch=2, epoch=0, batch=0)
    try:
        tensors = feed.layout()["tensors"]
        assert [type(t) for t in tensors] == [_core.TensorDesc] * 4
        image = tensors[0]
        assert (image.name, image.dtype, image.shape[1:]) == ("image", _core.DType.FLOAT32, [3, 64, 64])
        assert image.offset_bytes == 0 and image.sample_bytes == 3 * 64 * 64 * 4
        got = feed.next(60_000)
        assert isinstance(got, _core.DeliveredBatch) and not isinstance(got, tuple)
        assert (got.epoch, got.batch, len(got.indices)) == (0, 0, 2) and got.errors == []
        assert isinstance(got.lease, _core.SlotLease) and len(got.lease) > 0
        assert set(got.invalid_polygons) == {"non_finite", "degenerate", "out_of_image", "self_intersecting",
                                             "repaired", "ignored"}
        sample = got.samples[0]
        assert isinstance(sample, _core.SampleMeta) and sample.image_id.endswith(".jpg")
        assert sample.original_size == (64, 64) and sample.scale == (1.0, 1.0)
        assert len(sample.polygons) == len(sample.ignore) and sample.polygons[0].shape[1] == 2
    finally:
        feed.close()


# ---------------------------------------------------------------- process-wide settings, optional parts


THREADS_CHILD = textwrap.dedent("""
    import sys
    import cv2
    cv2.setNumThreads(3)
    before = cv2.getNumThreads()
    import textfeed
    assert cv2.getNumThreads() == before, (cv2.getNumThreads(), before)
    assert not textfeed._core._thread_settings_made_for_testing()
    # Building the options and checking them starts no thread and changes no setting either.
    textfeed.Recipe(crop_size=64)
    assert not textfeed._core._thread_settings_made_for_testing()
    with textfeed.Loader(sys.argv[1], 2, profile="sakura", threads=1, recipe=textfeed.Recipe(crop_size=64)) as l:
        next(iter(l))
    assert textfeed._core._thread_settings_made_for_testing()
    print(cv2.getNumThreads())
""")

OPENCV_THREADS_OFF = textwrap.dedent("""
    import cv2
    cv2.setNumThreads(3)
    cv2.setNumThreads(0)  # what the Loader documents: OpenCV's own threads off
    print(cv2.getNumThreads())
""")


def test_importing_textfeed_changes_no_process_setting_and_a_loader_s_run_does():
    child = subprocess.run([sys.executable, "-c", THREADS_CHILD, str(SAMPLE)], capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == 0, child.stderr
    off = subprocess.run([sys.executable, "-c", OPENCV_THREADS_OFF], capture_output=True, text=True, timeout=60)
    assert off.returncode == 0, off.stderr
    assert child.stdout.split()[-1] == off.stdout.split()[-1]


DASK_CHILD = textwrap.dedent("""
    import sys
    import textfeed
    assert "textfeed.dask" not in sys.modules and "distributed" not in sys.modules, sorted(sys.modules)
    sys.modules["distributed"] = None  # as if python3-distributed were not installed
    try:
        import textfeed.dask
    except ImportError as e:
        print(e)
    else:
        raise SystemExit("textfeed.dask imported without distributed")
""")


def test_textfeed_dask_is_optional_and_names_the_package_it_needs():
    child = subprocess.run([sys.executable, "-c", DASK_CHILD], capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stdout + child.stderr
    assert "python3-distributed" in child.stdout and "textfeed.dask needs Dask's distributed" in child.stdout


# ---------------------------------------------------------------- the stubs as a user's type checker sees them


USER_SCRIPT = textwrap.dedent("""
    import textfeed

    good = textfeed.Loader("data", 8, recipe=textfeed.Recipe(crop_size=512, brightness=(0.8, 1.2)),
                           reader=textfeed.ReaderOptions(reader_format="ufo"),
                           output=textfeed.OutputOptions(dtype=textfeed.DType.UINT8))
    bad_type = textfeed.Recipe(crop_size="512")
    bad_name = textfeed.ReaderOptions(reader_format="coco")
""")


@pytest.mark.skipif(__import__("importlib").util.find_spec("mypy") is None, reason="mypy is not installed")
def test_a_type_checker_sees_the_typed_options(tmp_path):
    import os
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT)
    env = dict(os.environ, MYPYPATH=os.path.dirname(os.path.dirname(textfeed.__file__)))
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "--no-error-summary",
                           "--follow-imports=silent", str(script)], capture_output=True, text=True, env=env,
                          timeout=600)
    lines = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert [int(line.split(":")[1]) for line in lines] == [7, 8], done.stdout + done.stderr
