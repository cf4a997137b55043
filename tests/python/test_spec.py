"""The typed spec as Python sees it: the enums at the package's top level, each keyword given as the
member or its name (parsed in one place), the reader options reaching the reader (embedded) and the
daemon (remote), the bounds from the extension, and _core.PipelineSpec itself."""

import pytest

import textfeed
from textfeed import _core, errors
from support import SAMPLE, Daemon


def loader(endpoint=None, **kw):
    args = dict(dataset=SAMPLE if endpoint is None else "icdar", batch_size=2, profile="sakura", threads=2,
                crop_size=128)
    args.update(kw)
    return textfeed.Loader(endpoint, **args)


def first_bytes(l):
    return [t.numpy().tobytes() for t in next(iter(l))]


def test_the_enums_are_at_the_top_level_with_the_names_c_plus_plus_parses():
    assert textfeed.Profile.UPSTAGE.text == "upstage" and textfeed.Profile.SAKURA.text == "sakura"
    assert textfeed.Profile.BC7.text == "bc7"
    assert textfeed.DType.UINT8.text == "uint8" and textfeed.DType.FLOAT32.text == "float32"
    assert textfeed.OnBadSample.FAIL.text == "fail"
    assert [t.text for t in textfeed.Transport.__members__.values()] == ["auto", "shm", "frames"]
    assert textfeed.PolyPolicy.MASK_IGNORE.text == "mask-ignore"
    assert textfeed.IgnoreText.EXACT.text == "exact"


def test_a_member_and_its_name_make_the_same_batches():
    with loader(profile="sakura", dtype="uint8", on_bad_sample="fail") as a, \
            loader(profile=textfeed.Profile.SAKURA, dtype=textfeed.DType.UINT8,
                   on_bad_sample=textfeed.OnBadSample.FAIL) as b:
        assert first_bytes(a) == first_bytes(b)
        assert a.state_dict() == b.state_dict() and a.state_dict()["profile"] == "sakura"


@pytest.mark.parametrize("kw,error,message", [
    (dict(profile=textfeed.DType.UINT8), errors.ArgumentTypeError, "profile must be one of ('upstage', 'sakura', 'bc7', 'db', 'psenet', 'panet', 'fcenet', 'textsnake')"),
    (dict(transport="udp"), errors.InvalidArgumentError, "transport must be one of ('auto', 'shm', 'frames')"),
    (dict(ignore_text="all"), errors.InvalidArgumentError, "ignore_text must be one of ('substring', 'exact')"),
    (dict(poly_policy=1), errors.ArgumentTypeError, "poly_policy must be one of"),
    (dict(ignore_tags="masked"), errors.ArgumentTypeError, "ignore_tags must be a list of str"),
    (dict(ignore_tags=["a\0b"]), errors.InvalidArgumentError, "ignore_tags entry contains a NUL"),
    (dict(ignore_under_area=-1.0), errors.InvalidArgumentError, "ignore_under_area must be a finite number"),
    (dict(images_dir="../elsewhere"), errors.InvalidArgumentError, "images_dir"),
    (dict(prefetch=1), errors.InvalidArgumentError, "prefetch must be in 2..64"),
])
def test_enum_and_reader_keywords_are_checked_and_named(kw, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        loader(**kw)


def test_the_bounds_come_from_the_extension():
    import textfeed.loader as module

    assert module.MAX_BATCH_SIZE == _core.MAX_BATCH_SIZE == 4096
    assert module.MAX_WORLD_SIZE == _core.MAX_WORLD_SIZE == 2**20
    assert module.MAX_PREFETCH == _core.MAX_PREFETCH == 64 and module.MIN_PREFETCH == 2


def test_reader_options_reach_the_reader_in_process(tmp_path):
    with pytest.raises(errors.NotFoundError, match="no folder .*nope"):
        loader(images_dir="nope")
    with loader(ignore_text="exact", poly_policy="minrect", ignore_tags=["stamp"], ignore_under_area=2.0) as l:
        assert next(iter(l)).indices


def test_an_endless_tag_iterable_is_refused_not_drained():
    import itertools
    with pytest.raises(errors.InvalidArgumentError, match="more than 256 tags"):
        loader(ignore_tags=itertools.repeat("x"))


def test_image_size_zero_turns_the_resize_off_as_in_c_plus_plus():
    with loader(profile="upstage", image_size=0, crop_size=128) as l:
        assert next(iter(l)).indices


def test_a_daemon_refuses_reader_options_it_was_not_started_with(tmp_path):
    d = Daemon(tmp_path)
    d.start()
    try:
        with pytest.raises(errors.InvalidArgumentError, match="other reader options.*ignore_text: the stream asks "
                                                              "for exact, the daemon read it with substring"):
            loader(d.endpoint, ignore_text=textfeed.IgnoreText.EXACT)
        # The same tags in another order, or repeated, are the same reader options.
        tags = ["stamp", "masked", "maintable", "excluded-region", "stamp"]
        with loader(d.endpoint, ignore_tags=tags) as l:
            assert next(iter(l)).indices
        with loader(d.endpoint, transport=textfeed.Transport.SHM) as l:
            assert l.stats()["transport"] == "shm"
    finally:
        d.stop()


def test_a_pipeline_spec_has_its_profile_s_defaults_and_checks_itself():
    spec = _core.PipelineSpec(textfeed.Profile.SAKURA, "data")
    assert spec.profile == textfeed.Profile.SAKURA and spec.dtype == textfeed.DType.FLOAT32
    assert spec.sources[0].path == "data" and spec.sources[0].reader == _core.ReaderOptions()
    assert spec.on_bad_sample == textfeed.OnBadSample.SKIP
    spec.set_option("crop_size", "256")
    spec.sampler.batch_size = 3
    assert spec.sampler.batch_size == 3
    spec.validate()
    with pytest.raises(errors.InvalidArgumentError, match="crop_size"):
        spec.set_option("crop_size", "many")
    spec.set_option("crop_size", "4")
    with pytest.raises(errors.InvalidArgumentError, match="crop_size"):
        spec.validate()
    with pytest.raises(errors.InvalidArgumentError):
        _core.PipelineSpec(textfeed.Profile.UPSTAGE).validate()  # no source path
