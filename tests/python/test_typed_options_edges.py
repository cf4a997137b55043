"""Issue 31, item 6, the review of the typed options: the Loader's former recipe keywords still take
the text their rows parse; every option class, Source and paddle_sources name the keyword a wrong
one may have meant; one option is never taken in two spellings; a value C++ cannot parse (an int
past int32, NaN) gets its row's bound in the message; what can be checked when an option object is
made is checked then; textfeed.dask's build options take lists and enum members;
reference.mmocr_targets refuses polygons that are no list of real arrays."""

import dataclasses
import inspect
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import textfeed
from textfeed import _args, _core, _dataloader, errors, reference

from support import SAMPLE

SQUARE = np.array([[10, 10], [40, 10], [40, 40], [10, 40]], np.float32)
REPO = Path(__file__).resolve().parents[2]


def former(**keywords):
    """The option objects a Loader makes of its former keywords (none of them given as objects)."""
    given = dict(recipe=None, reader=None, sampler=None, output=None, daemon=None)
    with pytest.warns(DeprecationWarning, match="is deprecated"):
        return _dataloader.typed_options(given, keywords, stacklevel=2)


# ---------------------------------------------------------------- the former recipe keywords as text


@pytest.mark.parametrize("name,text,value", [
    ("brightness", "0.8,1.2", (0.8, 1.2)),
    ("brightness", "0.2", 0.2),
    ("hue", "-0.1,0.1", (-0.1, 0.1)),
    ("mean", "0.5,0.5,0.5", (0.5, 0.5, 0.5)),
    ("rotate_deg", "10", 10.0),
    ("crop_size", "256", 256),
    ("vertices_f32", "true", True),
    ("vertices_f32", "0", False),
    ("resize", "1,1", (1.0, 1.0)),
    ("fill_rule", "union", "union"),
])
def test_a_former_recipe_keyword_given_as_text_is_parsed_by_its_row(name, text, value):
    assert former(**{name: text}).recipe == textfeed.Recipe(**{name: value})


def test_a_loader_takes_former_recipe_keywords_as_text():
    with pytest.warns(DeprecationWarning, match=r"recipe=textfeed\.Recipe\(brightness=\.\.\., mean=\.\.\."):
        with textfeed.Loader(str(SAMPLE), 2, threads=1, brightness="0.8,1.2", mean="0.5,0.5,0.5", rotate_deg="10",
                             vertices_f32="true") as loader:
            assert len(loader) > 0
    with pytest.warns(DeprecationWarning), textfeed.Loader(str(SAMPLE), 2, profile="db", threads=1, resize="1,1"):
        pass


@pytest.mark.parametrize("name,text,message", [
    ("brightness", "0.8;1.2", r"option brightness = '0.8;1.2': expected 'lo,hi'"),
    ("mean", "0.5,0.5", r"option mean = '0.5,0.5': expected three finite numbers"),
    ("vertices_f32", "yes", r"option vertices_f32 = 'yes': expected true or false"),
    ("crop_size", "7", r"augment option crop_size = 7: must be in \[8, 16384\]"),
    ("rotate_deg", "nan", r"option rotate_deg = 'nan': expected a finite decimal number"),
])
def test_a_former_recipe_keyword_whose_text_does_not_parse_gets_its_row_s_message(name, text, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        _dataloader.typed_options(dict(recipe=None, reader=None, sampler=None, output=None, daemon=None),
                                  {name: text}, stacklevel=2)


def test_the_recipe_itself_takes_typed_values_not_text():
    with pytest.raises(errors.ArgumentTypeError, match="brightness must be a number, got str"):
        textfeed.Recipe(brightness="0.8,1.2")
    assert "never the text" in inspect.getdoc(textfeed.Recipe)


# ---------------------------------------------------------------- unknown keywords


@pytest.mark.parametrize("make,message", [
    (lambda: textfeed.Recipe(croop_size=512), r"Recipe\(\) got an unexpected keyword argument 'croop_size' "
                                              r"\(did you mean 'crop_size'"),
    (lambda: textfeed.SamplerOptions(sed=1), r"SamplerOptions\(\) .* 'sed' \(did you mean 'seed'\?\)"),
    (lambda: textfeed.OutputOptions(prefetch_factor=2), r"'prefetch_factor' \(did you mean 'prefetch'\?\)"),
    (lambda: textfeed.ReaderOptions(format="ufo"), r"ReaderOptions\(\) .* 'format' \(did you mean 'reader_format'"),
    (lambda: textfeed.DaemonOptions(timout=1.0), r"DaemonOptions\(\) .* 'timout' \(did you mean 'timeout'"),
    (lambda: dataclasses.replace(textfeed.Recipe(), croop_size=1), r"'croop_size' \(did you mean 'crop_size'"),
    (lambda: textfeed.Source(SAMPLE, wieght=2), r"Source\(\) got an unexpected keyword argument 'wieght' "
                                                r"\(did you mean 'weight'"),
    (lambda: textfeed.Source(SAMPLE, readr=textfeed.ReaderOptions()), r"'readr' \(did you mean 'reader'"),
    (lambda: textfeed.paddle_sources(["x.txt"], ratio_lst=1), r"paddle_sources\(\) .* 'ratio_lst' \(did you "
                                                              r"mean 'ratio_list'"),
    (lambda: textfeed.Loader(str(SAMPLE), 2, reader_format="ufo"),
     r"'reader_format' \(did you mean reader=textfeed\.ReaderOptions\(reader_format=\.\.\.\)\?\)"),
], ids=lambda v: None)
def test_an_unknown_keyword_is_named_with_the_names_it_may_have_meant(make, message):
    with pytest.raises(errors.ArgumentTypeError, match=message):
        make()


def test_the_option_classes_stay_typed_dataclasses():
    for cls in (textfeed.Recipe, textfeed.ReaderOptions, textfeed.SamplerOptions, textfeed.OutputOptions,
                textfeed.DaemonOptions):
        assert dataclasses.is_dataclass(cls)
        assert list(inspect.signature(cls).parameters) == [f.name for f in dataclasses.fields(cls)]
    assert textfeed.Recipe(crop_size=64) == textfeed.Recipe(**{"crop_size": 64})


# ---------------------------------------------------------------- one option, one spelling


def test_a_source_refuses_two_spellings_of_one_option():
    with pytest.raises(errors.ArgumentTypeError, match=r"Source\(\) got format= and reader_format=, two spellings"):
        textfeed.Source(SAMPLE, format="ufo", reader_format="icdar15")


def test_a_source_names_its_unknown_keyword_beside_two_spellings():
    with pytest.raises(errors.ArgumentTypeError) as refused:
        textfeed.Source(SAMPLE, format="ufo", reader_format="icdar15", colour="red")
    said = str(refused.value)
    assert "unexpected keyword argument 'colour'" in said and "argument 'reader_format'" not in said, said


# ---------------------------------------------------------------- the endpoint given first


@pytest.mark.parametrize("first", [str(SAMPLE), SAMPLE, [str(SAMPLE)], ["ipc:///a", str(SAMPLE)], {"ipc:///a"}],
                         ids=["str", "path", "list", "mixed", "set"])
def test_a_first_argument_that_is_no_endpoint_beside_dataset_is_the_dataset_twice(first):
    with pytest.raises(errors.ArgumentTypeError, match="Loader\\(\\) got multiple values for argument 'dataset'"):
        textfeed.Loader(first, dataset=str(SAMPLE), batch_size=2)


def test_a_list_of_endpoints_first_is_still_the_former_call():
    with pytest.warns(DeprecationWarning, match="endpoint first is deprecated"), \
            pytest.raises(errors.UnavailableError):
        textfeed.Loader(["ipc:///tmp/textfeed-nobody-here.sock"], dataset="icdar", batch_size=2,
                        daemon=textfeed.DaemonOptions(timeout=0.2))
    with pytest.warns(DeprecationWarning), pytest.raises(errors.InvalidArgumentError, match="lists 0 daemons"):
        textfeed.Loader([], dataset="icdar", batch_size=2)


# ---------------------------------------------------------------- numbers past a float or an int32


def test_an_int_past_the_largest_float_is_a_wrong_value_named():
    with pytest.raises(errors.InvalidArgumentError, match=r"weight must be a finite number in .*an int of 1329 bits"):
        _args.real("weight", 10**400, 0, 1)
    with pytest.raises(errors.InvalidArgumentError, match="ignore_under_area must be a finite number"):
        textfeed.ReaderOptions(ignore_under_area=10**400)
    with pytest.raises(errors.InvalidArgumentError, match="timeout must be a finite number"):
        textfeed.DaemonOptions(timeout=10**400)
    with pytest.raises(errors.InvalidArgumentError, match=r"seed must be in 0\.\.\d+, got an int of 16610 bits"):
        textfeed.SamplerOptions(seed=10**5000)  # str() of such an int raises; the message does not


def row_bound(name):
    return re.escape(next(r["bound"] for r in _core.recipe_fields() if r["name"] == name))


@pytest.mark.parametrize("attribute,value,message", [
    ("total_epochs", 2**31, rf"augment option total_epochs = 2147483648: must be in {row_bound('total_epochs')}$"),
    ("total_epochs", -5, rf"augment option total_epochs = -5: must be in {row_bound('total_epochs')}$"),
    ("image_size", 2**70, rf"augment option image_size = {2**70}: must be {row_bound('image_size')}$"),
    ("map_scale", math.nan, rf"augment option map_scale = nan: must be in {row_bound('map_scale')}$"),
    ("map_scale", -math.inf, rf"augment option map_scale = -inf: must be in {row_bound('map_scale')}$"),
    ("rotate_deg", 10**400, rf"augment option rotate_deg = an int of 1329 bits: must be in {row_bound('rotate_deg')}"),
    ("std", (1, math.inf, 1), rf"augment option std = inf: must be in {row_bound('std')}$"),
    ("brightness", (0.8, math.nan), r"augment option brightness = \[0.8, nan\]: need 0 <= lo <= hi <= 10$"),
    ("hue", math.inf, r"augment option hue = \[-inf, inf\]: need -0.5 <= lo <= hi <= 0.5$"),
    ("resize", (math.nan, 2), r"augment option resize = \[nan, 2\]: need 0 < lo <= hi <= 16$"),
], ids=["int32+1", "negative", "2**70", "nan", "-inf", "10**400", "triple-inf", "range-nan", "one-inf", "range-nan-lo"])
def test_a_value_c_plus_plus_cannot_parse_gets_its_row_s_bound(attribute, value, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        textfeed.Recipe(**{attribute: value})


# ---------------------------------------------------------------- checked when made


def test_a_sampler_s_rank_past_its_world_size_is_refused_when_made():
    with pytest.raises(errors.InvalidArgumentError, match=r"rank must be in 0\.\.world_size-1, got rank 1 of 1"):
        textfeed.SamplerOptions(rank=1, world_size=1)
    assert textfeed.SamplerOptions(rank=1).rank == 1  # world_size from torch.distributed: checked by the Loader


@pytest.mark.parametrize("local,error,message", [
    (5, errors.ArgumentTypeError, "local_dataset must be a path, a Source or a list of them, got int 5"),
    ({"a": 1}, errors.ArgumentTypeError, "local_dataset must be a path, a Source or a list of them, got dict"),
    ([], errors.InvalidArgumentError, "local_dataset is an empty list"),
    (b"/data", errors.ArgumentTypeError, "local_dataset must be a str or os.PathLike path, got bytes"),
    ([str(SAMPLE), 3], errors.ArgumentTypeError, r"local_dataset\[1\] must be a str or os.PathLike path"),
])
def test_a_daemon_s_local_dataset_is_checked_when_made(local, error, message):
    with pytest.raises(error, match=message):
        textfeed.DaemonOptions(local_threads=1, local_dataset=local)


def test_a_daemon_s_options_keep_their_checked_values():
    options = textfeed.DaemonOptions(local_threads=np.int64(2), local_dataset=iter([str(SAMPLE)]))
    assert type(options.local_threads) is int and options.local_threads == 2
    assert options.local_dataset == (str(SAMPLE),)  # an iterator is read once, when made
    source = textfeed.Source(SAMPLE)
    assert textfeed.DaemonOptions(local_threads=1, local_dataset=source).local_dataset is source


# ---------------------------------------------------------------- ignore_tags


@pytest.mark.parametrize("tags,error,message", [
    ({"a": 1}, errors.ArgumentTypeError, "ignore_tags must be a list of str, got dict"),
    ([""], errors.InvalidArgumentError, "ignore_tags: a tag is empty"),
    (["stamp", "a,b"], errors.InvalidArgumentError, "ignore_tags: a tag holds a comma, 'a,b'"),
])
def test_ignore_tags_refuses_a_mapping_an_empty_tag_and_a_comma(tags, error, message):
    with pytest.raises(error, match=message):
        textfeed.ReaderOptions(ignore_tags=tags)


# ---------------------------------------------------------------- paddle_sources and the payload's figure


def test_paddle_sources_refuse_another_format(tmp_path):
    (tmp_path / "a.txt").write_text("img.jpg\t[]\n")
    with pytest.warns(DeprecationWarning), \
            pytest.raises(errors.InvalidArgumentError, match="reader_format must be 'paddle' or None, got 'ufo'"):
        textfeed.paddle_sources([tmp_path / "a.txt"], format="ufo")
    with pytest.raises(errors.InvalidArgumentError, match="got 'icdar15'"):
        textfeed.paddle_sources([tmp_path / "a.txt"], reader=textfeed.ReaderOptions(reader_format="icdar15"))
    sources, _ = textfeed.paddle_sources([tmp_path / "a.txt"], reader=textfeed.ReaderOptions(reader_format="paddle"))
    assert sources[0].reader.reader_format is textfeed.ReaderFormat.PADDLE


def test_the_compact_payload_s_share_of_the_bytes_is_the_measured_one():
    doc = " ".join(inspect.getdoc(textfeed.OutputOptions).split())
    assert "a sixth of the bytes" in doc and "quarter" not in doc, doc
    for page in ("README.md", "docs/design.md", "docs/scaling.md"):
        assert "a sixth" in " ".join((REPO / page).read_text().split()), page


# ---------------------------------------------------------------- textfeed.dask's build options


@pytest.fixture
def tfdask():
    pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Debian's distributed on Python 3.11
        import textfeed.dask
    return textfeed.dask


@pytest.mark.parametrize("options,args", [
    (dict(ignore_tags=["a", "b"]), ["--ignore-tags", "a,b"]),
    (dict(ignore_tags=[]), ["--ignore-tags", ""]),
    (dict(ignore_tags="a,b"), ["--ignore-tags", "a,b"]),
    (dict(ignore_text=textfeed.IgnoreText.EXACT), ["--ignore-text", "exact"]),
    (dict(profile=textfeed.Profile.DB), ["--profile", "db"]),
    (dict(poly_policy=textfeed.PolyPolicy.MINRECT), ["--poly-policy", "minrect"]),
    (dict(reader_format="ufo"), ["--format", "ufo"]),
    (dict(format=textfeed.ReaderFormat.UFO), ["--format", "ufo"]),
    (dict(image_size=512), ["--image-size", "512"]),
])
def test_build_cache_options_take_lists_and_enum_members(tfdask, options, args):
    assert tfdask._build_args(options) == args


@pytest.mark.parametrize("options,message", [
    (dict(format="ufo", reader_format="icdar15"), "got format= and reader_format=, two spellings"),
    (dict(ignore_tags=["a", 1]), "ignore_tags = .*expected a list of str"),
    (dict(image_size=[1]), "image_size = .*expected a str, a number"),
    (dict(colour="red"), "unknown option 'colour'"),
])
def test_build_cache_refuses_bad_options(tfdask, options, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        tfdask._build_args(options)


def test_build_cache_documents_every_reader_option(tfdask):
    doc = " ".join(inspect.getdoc(tfdask.build_cache).split())
    for row in _core.reader_fields():
        assert re.search(rf"\b{row['name']}\b", doc), row["name"]
    assert "reader_format" in doc


# ---------------------------------------------------------------- mmocr's polygons


@pytest.mark.parametrize("polys,message", [
    (None, "polys must be a list of .*got NoneType"),
    (5, "polys must be a list of .*got int"),
    ({0: SQUARE}, "polys must be a list of .*got dict"),
    (iter([SQUARE]), "polys must be a list of .*got list_iterator"),
    ([SQUARE.astype(np.complex64)], r"polys\[0\] holds complex numbers"),
    ([SQUARE.tolist(), (SQUARE + 1j).tolist()], r"polys\[1\] holds complex numbers"),
])
def test_mmocr_polygons_that_are_no_list_of_real_arrays_are_refused(polys, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's ComplexWarning would say what it dropped
        with pytest.raises(errors.ArgumentTypeError, match=message):
            reference.mmocr_targets("pse", polys, [False] * 2, (64, 64))
