"""textfeed.Source: one source of samples for a Loader, with its weight and reader options.

``Loader(dataset=...)`` takes a path, a :class:`Source`, or a list of them. Without weights the
sources concatenate (an epoch is every sample once, as ``ConcatDataset``); with a weight on every
source each epoch draws from them in proportion (``docs/design.md`` "Several sources").
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _args, _core, errors
from ._core import ReaderFormat
from .options import READER_ATTRIBUTES, ReaderOptions

__all__ = ["Source", "paddle_sources"]

MAX_AREA = _core.MAX_AREA  # px², the reader's bound on an area (loader/spec/spec.h kMaxArea)
MAX_WEIGHT = _core.MAX_WEIGHT  # loader/spec/spec.h kMaxWeight
MAX_SOURCES = _core.MAX_SOURCES


def _reader_of(caller: str, own: Sequence[str], reader: Optional[ReaderOptions], keywords: Any) -> ReaderOptions:
    """``reader``, or the reader keywords of before ReaderOptions (``format=``, ``split=``, ...) made
    into one, with a DeprecationWarning naming the new spelling; never both, and never two
    spellings of one option (``format=`` and ``reader_format=``). ``own``: the other parameters of
    ``caller``, for the names an unknown keyword may have meant."""
    if reader is not None and not isinstance(reader, ReaderOptions):
        raise errors.ArgumentTypeError(f"reader must be a textfeed.ReaderOptions or None, got "
                                       f"{type(reader).__name__} {reader!r:.80}")
    attributes = [f.name for f in dataclasses.fields(ReaderOptions)]
    unknown = [k for k in keywords if k not in attributes and k not in READER_ATTRIBUTES]
    if unknown:
        raise _args.unknown_keywords(caller, unknown, [*own, *attributes, *READER_ATTRIBUTES])
    if not keywords:
        return ReaderOptions() if reader is None else reader
    if reader is not None:
        raise errors.ArgumentTypeError(f"{caller}() got reader= and the reader keywords {sorted(keywords)}: give "
                                       "them in the ReaderOptions")
    spelt: Dict[str, str] = {}  # {attribute: the keyword that gave it}
    for keyword in keywords:
        attribute = READER_ATTRIBUTES.get(keyword, keyword)
        if attribute in spelt:
            raise errors.ArgumentTypeError(f"{caller}() got {spelt[attribute]}= and {keyword}=, two spellings of "
                                           f"one option: give it once, as reader=textfeed.ReaderOptions("
                                           f"{attribute}=...)")
        spelt[attribute] = keyword
    warnings.warn(f"{caller}({', '.join(f'{k}=' for k in keywords)}) is deprecated: use reader=textfeed.ReaderOptions("
                  f"{', '.join(f'{a}=...' for a in spelt)})", DeprecationWarning, stacklevel=3)
    return ReaderOptions(**{a: keywords[k] for a, k in spelt.items() if keywords[k] is not None})


class Source:
    """A dataset folder, a UFO ``.json``, a cache file or manifest, or (with an endpoint) a daemon's
    dataset name.

    Args:
        path: the path (str or ``os.PathLike``) or name.
        weight: None (concatenate) or a finite number in (0, 1e9]: every source of a Loader has a
            weight or none has. Only the ratios count.
        reader: this source's :class:`textfeed.ReaderOptions`, over the Loader's (an attribute
            left None is the Loader's). The reader keywords of before (``format=``, ``split=``,
            ...) still work, with a DeprecationWarning.
    """

    __slots__ = ("path", "weight", "reader")

    def __init__(self, path: Union[str, "os.PathLike[str]"], weight: Optional[float] = None,
                 reader: Optional[ReaderOptions] = None, **deprecated: Any) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise errors.ArgumentTypeError(f"Source path must be a str or os.PathLike, got {type(path).__name__} "
                                           f"{path!r:.80}")
        self.path = path
        self.weight = None if weight is None else _args.real("weight", weight, 0, MAX_WEIGHT, lo_open=True)
        self.reader: ReaderOptions = _reader_of("Source", ("path", "weight", "reader"), reader, deprecated)

    def __repr__(self) -> str:
        weight = "" if self.weight is None else f", weight={self.weight!r}"
        reader = "" if self.reader == ReaderOptions() else f", reader={self.reader!r}"
        return f"Source({os.fspath(self.path)!r}{weight}{reader})"


DatasetArg = Union[str, "os.PathLike[str]", Source, Sequence[Union[str, "os.PathLike[str]", Source]]]


def source_list(dataset: Any, what: str = "dataset") -> List[Any]:
    """``dataset`` as a list of paths and Sources (1..MAX_SOURCES); ``what`` names it in errors."""
    if isinstance(dataset, (str, bytes, os.PathLike, Source)):
        return [dataset]
    if isinstance(dataset, Mapping) or not isinstance(dataset, Iterable):
        raise errors.ArgumentTypeError(f"{what} must be a path, a Source or a list of them, got "
                                       f"{type(dataset).__name__} {dataset!r:.80}")
    items = list(itertools.islice(dataset, MAX_SOURCES + 1))
    if not items:
        raise errors.InvalidArgumentError(f"{what} is an empty list: give at least one source")
    if len(items) > MAX_SOURCES:
        raise errors.InvalidArgumentError(f"{what} lists more than {MAX_SOURCES} sources")
    return items


def source_specs(dataset: Any, profile: Any, defaults: ReaderOptions, check_path: Any) -> Tuple[List[Any], bool]:
    """The _core.SourceSpec of every source of ``dataset`` and whether they are weighted. ``defaults``:
    the Loader's reader options, over ``profile``'s; ``check_path(name, value)``: the path check of
    the Loader's mode."""
    specs, weights = [], []
    for i, item in enumerate(source_list(dataset)):
        what = "dataset" if not isinstance(dataset, (list, tuple)) else f"dataset[{i}]"
        # A plain item is a path with no weight, checked by the Loader's own path check and message.
        if isinstance(item, Source):
            path, weight, own = item.path, item.weight, item.reader.over(defaults)
        else:
            path, weight, own = item, None, defaults
        specs.append(_core.SourceSpec(check_path(what, path), own._to_core(profile), 0.0 if weight is None else weight))
        weights.append(weight is not None)
    if any(weights) and not all(weights):
        raise errors.InvalidArgumentError(f"either every source has a weight or none has: {sum(weights)} of "
                                          f"{len(weights)} have one")
    return specs, all(weights)


def paddle_sources(label_file_list: Any, ratio_list: Any = 1.0, reader: Optional[ReaderOptions] = None,
                   **deprecated: Any) -> Tuple[List[Source], int]:
    """PaddleOCR's ``SimpleDataSet`` ``label_file_list`` + ``ratio_list`` as weighted Sources:
    ``(sources, epoch_size)`` for ``Loader(dataset=sources, epoch_size=epoch_size, ...)``.

    Label file i of n_i images (its non-blank lines) with ratio r_i becomes
    ``Source(file_i, weight=n_i * r_i, reader=ReaderOptions(reader_format="paddle"))``, and epoch_size is the sum of
    ``round(n_i * r_i)``: each epoch draws about n_i * r_i samples of file i (the sampler's
    largest-remainder quotas), as SimpleDataSet's ``random.sample(lines, round(n_i * r_i))``. Unlike
    SimpleDataSet, which draws its subset once when it is made, the subset changes every epoch;
    and a ratio above 1 repeats samples where SimpleDataSet raises (docs/dataset_layouts.md).

    Args:
        label_file_list: the label files (str or os.PathLike), 1..MAX_SOURCES.
        ratio_list: one ratio for every file, or one per file; each finite and > 0.
        reader: the :class:`textfeed.ReaderOptions` of every source; its ``reader_format`` is
            ``"paddle"`` (None or "paddle": another format is refused). The reader keywords of
            before still work, with a DeprecationWarning.
    """
    given = _reader_of("paddle_sources", ("label_file_list", "ratio_list", "reader"), reader, deprecated)
    if given.reader_format not in (None, ReaderFormat.PADDLE):
        named = getattr(given.reader_format, "text", given.reader_format)  # a member: ReaderOptions made it one
        raise errors.InvalidArgumentError(f"paddle_sources reads PaddleOCR label files: reader_format must be "
                                          f"'paddle' or None, got {named!r}")
    paddle = dataclasses.replace(given, reader_format="paddle")
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
        sources.append(Source(path, weight=n * ratio, reader=paddle))
        epoch_size += max(1, round(n * ratio))
    return sources, epoch_size
