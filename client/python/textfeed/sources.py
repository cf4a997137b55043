"""textfeed.Source: one source of samples for a Loader, with its weight and reader options.

``Loader(dataset=...)`` takes a path, a :class:`Source`, or a list of them. Without weights the
sources concatenate (an epoch is every sample once, as ``ConcatDataset``); with a weight on every
source each epoch draws from them in proportion (``docs/design.md`` "Several sources").
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable
from typing import Any, Dict, List, Optional, Tuple

from . import _args, _core, errors

__all__ = ["Source", "paddle_sources"]

MAX_AREA = _core.MAX_AREA  # px², the reader's bound on an area (loader/spec.h kMaxArea)
MAX_WEIGHT = _core.MAX_WEIGHT  # loader/spec.h kMaxWeight
MAX_SOURCES = _core.MAX_SOURCES
# The reader's keywords, as Loader and Source take them (None keeps the default).
READER_KEYWORDS = ("ignore_text", "ignore_tags", "poly_policy", "ignore_under_area", "images_dir", "illegibility",
                   "split", "format")


def reader_from(profile: Any = None, **given: Any) -> Any:
    """_core.ReaderOptions: ``profile``'s defaults (upstage's when None), changed where a keyword is
    not None (C++ checks the bounds)."""
    unknown = sorted(set(given) - set(READER_KEYWORDS))
    if unknown:
        raise errors.ArgumentTypeError(f"unknown reader option(s) {unknown}; known: {list(READER_KEYWORDS)}")
    reader = _core.reader_defaults(_core.Profile.UPSTAGE if profile is None else profile)
    if given.get("ignore_text") is not None:
        reader.ignore_text = _args.enum("ignore_text", given["ignore_text"], _core.IgnoreText)
    if given.get("ignore_tags") is not None:
        tags = given["ignore_tags"]
        if isinstance(tags, (str, bytes)) or not isinstance(tags, Iterable):
            raise errors.ArgumentTypeError(f"ignore_tags must be a list of str, got {type(tags).__name__} {tags!r:.80}")
        # At most one past the bound is read: an endless iterable is refused, not drained.
        tags = list(itertools.islice(tags, _core.MAX_IGNORE_TAGS + 1))
        if len(tags) > _core.MAX_IGNORE_TAGS:
            raise errors.InvalidArgumentError(f"ignore_tags has more than {_core.MAX_IGNORE_TAGS} tags")
        reader.ignore_tags = [_args.text("ignore_tags entry", tag) for tag in tags]
    if given.get("poly_policy") is not None:
        reader.poly_policy = _args.enum("poly_policy", given["poly_policy"], _core.PolyPolicy)
    if given.get("ignore_under_area") is not None:
        reader.ignore_under_area = _args.real("ignore_under_area", given["ignore_under_area"], 0, MAX_AREA)
    if given.get("images_dir") is not None:
        reader.images_dir = _args.text("images_dir", given["images_dir"])
    if given.get("illegibility") is not None:
        reader.illegibility = _args.enum("illegibility", given["illegibility"], _core.Illegibility)
    if given.get("split") is not None:
        reader.split = _args.text("split", given["split"])  # C++ checks it is a file name stem
    if given.get("format") is not None:
        reader.format = _args.enum("format", given["format"], _core.ReaderFormat)
    return reader


class Source:
    """A dataset folder, a UFO ``.json``, a cache file or manifest, or (with an endpoint) a daemon's
    dataset name.

    Args:
        path: the path (str or ``os.PathLike``) or name.
        weight: None (concatenate) or a finite number in (0, 1e9]: every source of a Loader has a
            weight or none has. Only the ratios count.
        **reader_options: this source's reader options (``ignore_text``, ``ignore_tags``,
            ``poly_policy``, ``ignore_under_area``, ``images_dir``, ``illegibility``, ``split``, ``format``), over
            the Loader's.
    """

    __slots__ = ("path", "weight", "reader_options")

    def __init__(self, path: Any, weight: Optional[float] = None, **reader_options: Any) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise errors.ArgumentTypeError(f"Source path must be a str or os.PathLike, got {type(path).__name__} "
                                           f"{path!r:.80}")
        self.path = path
        self.weight = None if weight is None else _args.real("weight", weight, 0, MAX_WEIGHT, lo_open=True)
        given = {k: v for k, v in reader_options.items() if v is not None}
        reader_from(**given)  # every value checked now, not when a Loader is made
        self.reader_options: Dict[str, Any] = given

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in self.reader_options.items())
        weight = "" if self.weight is None else f", weight={self.weight!r}"
        return f"Source({os.fspath(self.path)!r}{weight}{extra})"


def source_list(dataset: Any) -> List[Any]:
    """``dataset`` as a list of paths and Sources (1..MAX_SOURCES)."""
    if isinstance(dataset, (str, bytes, os.PathLike, Source)):
        return [dataset]
    if not isinstance(dataset, Iterable):
        raise errors.ArgumentTypeError(f"dataset must be a path, a Source or a list of them, got "
                                       f"{type(dataset).__name__} {dataset!r:.80}")
    items = list(itertools.islice(dataset, MAX_SOURCES + 1))
    if not items:
        raise errors.InvalidArgumentError("dataset is an empty list: give at least one source")
    if len(items) > MAX_SOURCES:
        raise errors.InvalidArgumentError(f"dataset lists more than {MAX_SOURCES} sources")
    return items


def source_specs(dataset: Any, profile: Any, defaults: Dict[str, Any], check_path: Any) -> Tuple[List[Any], bool]:
    """The _core.SourceSpec of every source of ``dataset`` and whether they are weighted. ``defaults``:
    the Loader's reader keywords, over ``profile``'s; ``check_path(name, value)``: the path check of
    the Loader's mode."""
    specs, weights = [], []
    for i, item in enumerate(source_list(dataset)):
        what = "dataset" if not isinstance(dataset, (list, tuple)) else f"dataset[{i}]"
        # A plain item is a path with no weight, checked by the Loader's own path check and message.
        if isinstance(item, Source):
            path, weight, own = item.path, item.weight, item.reader_options
        else:
            path, weight, own = item, None, {}
        given = {**{k: v for k, v in defaults.items() if v is not None}, **own}
        specs.append(_core.SourceSpec(check_path(what, path), reader_from(profile, **given),
                                      0.0 if weight is None else weight))
        weights.append(weight is not None)
    if any(weights) and not all(weights):
        raise errors.InvalidArgumentError(f"either every source has a weight or none has: {sum(weights)} of "
                                          f"{len(weights)} have one")
    return specs, all(weights)


def paddle_sources(label_file_list: Any, ratio_list: Any = 1.0, **reader_options: Any) -> Tuple[List[Source], int]:
    """PaddleOCR's ``SimpleDataSet`` ``label_file_list`` + ``ratio_list`` as weighted Sources:
    ``(sources, epoch_size)`` for ``Loader(dataset=sources, epoch_size=epoch_size, ...)``.

    Label file i of n_i images (its non-blank lines) with ratio r_i becomes
    ``Source(file_i, weight=n_i * r_i, format="paddle")``, and epoch_size is the sum of
    ``round(n_i * r_i)``: each epoch draws about n_i * r_i samples of file i (the sampler's
    largest-remainder quotas), as SimpleDataSet's ``random.sample(lines, round(n_i * r_i))``. Unlike
    SimpleDataSet, which draws its subset once when it is made, the subset changes every epoch;
    and a ratio above 1 repeats samples where SimpleDataSet raises (docs/dataset_layouts.md).

    Args:
        label_file_list: the label files (str or os.PathLike), 1..MAX_SOURCES.
        ratio_list: one ratio for every file, or one per file; each finite and > 0.
        **reader_options: reader keywords for every source (as Source takes them).
    """
    files = source_list(label_file_list)
    if isinstance(ratio_list, (int, float)):
        ratios = [ratio_list] * len(files)
    else:
        ratios = list(itertools.islice(ratio_list, MAX_SOURCES + 1))
    if len(ratios) != len(files):
        raise errors.InvalidArgumentError(f"ratio_list has {len(ratios)} ratios for {len(files)} label files")
    sources, epoch_size = [], 0
    for i, (path, ratio) in enumerate(zip(files, ratios)):
        ratio = _args.real(f"ratio_list[{i}]", ratio, 0, MAX_WEIGHT, lo_open=True)
        with open(path, "rb") as f:  # the lines SimpleDataSet counts: one image per non-blank line
            n = sum(1 for line in f if line.strip())
        if n == 0:
            raise errors.InvalidArgumentError(f"{os.fspath(path)}: the label file lists no image")
        sources.append(Source(path, weight=n * ratio, format="paddle", **reader_options))
        epoch_size += max(1, round(n * ratio))
    return sources, epoch_size
