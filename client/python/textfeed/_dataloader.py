"""What training scripts reach for on a ``torch.utils.data.DataLoader``, on a Loader: the
``loader.sampler`` a DDP script calls ``set_epoch`` on, a ``loader.dataset`` with a length, and
the way to the Loader's own spelling from DataLoader's keywords (``num_workers``), from a misspelt
one, or from the Loader's keywords of before the typed options (``seed=``, ``crop_size=``).
"""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

from . import _args, errors
from .options import (READER_ATTRIBUTES, DaemonOptions, OutputOptions, ReaderOptions, Recipe, SamplerOptions,
                      recipe_value_of_text)

# DataLoader's keywords that have a Loader spelling of another name.
_DATALOADER_KEYWORDS = {
    "num_workers": "threads= (the worker threads of the pipeline in this process; None or 0: one per core)",
    "prefetch_factor": "output=textfeed.OutputOptions(prefetch=...) (slots in the ring: batches made ahead plus the "
                       "ones you still hold)",
}


class TypedOptions(NamedTuple):
    """A Loader's option objects: each given one, else the defaults (or the former keywords')."""

    recipe: Recipe
    reader: ReaderOptions
    sampler: SamplerOptions
    output: OutputOptions
    daemon: DaemonOptions


_HOLDERS: Dict[str, type] = {"recipe": Recipe, "reader": ReaderOptions, "sampler": SamplerOptions,
                             "output": OutputOptions, "daemon": DaemonOptions}


def _holder_attributes() -> Dict[str, Tuple[str, str]]:
    """{former Loader keyword: (the Loader argument now holding it, its attribute there)}: every
    attribute of the option objects was a Loader keyword, by the same name (the reader's
    ``reader_format`` was ``format``)."""
    moved: Dict[str, Tuple[str, str]] = {}
    for holder, cls in _HOLDERS.items():
        for field in dataclasses.fields(cls):
            if field.name in moved:  # two objects with one attribute name: a keyword could not say which
                raise errors.InternalError(f"{field.name} is an attribute of both {moved[field.name][0]} and {holder}")
            moved[field.name] = (holder, field.name)
    for row, attribute in READER_ATTRIBUTES.items():
        if attribute in moved:
            moved[row] = moved.pop(attribute)
    return moved


MOVED_KEYWORDS = _holder_attributes()
# Attributes of the option objects that never were Loader keywords (the reader's ``reader_format``,
# which was ``format``): {attribute: the Loader argument holding it}, for the hint of a refused one.
HELD_ONLY = {attribute: holder for holder, attribute in MOVED_KEYWORDS.values() if attribute not in MOVED_KEYWORDS}


def _new_spelling(holder: str, attributes: Sequence[str]) -> str:
    inner = ", ".join(f"{a}=..." for a in attributes)
    return f"{holder}=textfeed.{_HOLDERS[holder].__name__}({inner})"


def typed_options(given: Dict[str, Any], former: Dict[str, Any], *, stacklevel: int) -> TypedOptions:
    """The Loader's option objects: ``given`` (recipe=, reader=, ... as passed; None: defaults),
    with the former keywords (``former``: seed=, crop_size=, ...) made into the objects that hold
    them now, under one DeprecationWarning naming each new spelling. A former keyword given with
    the object that holds it, or a keyword that never was the Loader's, raises ArgumentTypeError
    (with DataLoader's equivalent, or the nearest names)."""
    for holder, cls in _HOLDERS.items():
        value = given[holder]
        if value is not None and not isinstance(value, cls):
            raise errors.ArgumentTypeError(f"{holder} must be a textfeed.{cls.__name__} or None, got "
                                           f"{type(value).__name__} {value!r:.80}")
    unknown = [name for name in former if name not in MOVED_KEYWORDS]
    if unknown:
        raise unknown_keywords_error(unknown)
    moved: Dict[str, Dict[str, Any]] = {}
    for name, value in former.items():
        holder, attribute = MOVED_KEYWORDS[name]
        if given[holder] is not None:
            raise errors.ArgumentTypeError(f"Loader() got {name}= and {holder}=: {name} is an attribute of "
                                           f"{holder} now; give it there ({_new_spelling(holder, [attribute])})")
        if holder == "recipe" and isinstance(value, str):
            value = recipe_value_of_text(attribute, value)  # the former keywords took the row's text
        moved.setdefault(holder, {})[attribute] = value
    if moved:
        spellings = "; ".join(_new_spelling(holder, list(attrs)) for holder, attrs in moved.items())
        warnings.warn(f"Loader({', '.join(f'{k}=' for k in former)}) is deprecated: use {spellings}",
                      DeprecationWarning, stacklevel=stacklevel)
    made = {holder: given[holder] if given[holder] is not None else cls(**moved.get(holder, {}))
            for holder, cls in _HOLDERS.items()}
    return TypedOptions(**made)


def _loader_keywords() -> List[str]:
    from .loader import Loader  # the Loader's own parameters, as its signature has them

    return [p for p in inspect.signature(Loader.__init__).parameters if p not in ("self", "deprecated")]


def unknown_keywords_error(unknown: Sequence[str]) -> errors.ArgumentTypeError:
    """The TypeError for keywords that are neither a Loader argument nor a former keyword, each
    with DataLoader's equivalent or the closest names (a former keyword's with its new place)."""
    known = sorted(set(_loader_keywords()) | set(MOVED_KEYWORDS))
    new_places = {name: _new_spelling(holder, [attribute]) for name, (holder, attribute) in MOVED_KEYWORDS.items()}
    parts = []
    for name in sorted(unknown):
        if name in _DATALOADER_KEYWORDS:
            parts.append(f"Loader() has no {name}= (DataLoader's): use {_DATALOADER_KEYWORDS[name]}")
        elif name in HELD_ONLY:
            parts.append(f"Loader() got an unexpected keyword argument {name!r} (did you mean "
                         f"{_new_spelling(HELD_ONLY[name], [name])}?)")
        else:
            parts.append(str(_args.unknown_keywords("Loader", [name], known, new_places)))
    return errors.ArgumentTypeError("; ".join(parts) + ". Its arguments are in help(textfeed.Loader), the "
                                    "augmentation options in help(textfeed.Recipe)")


def refuse_endpoint_as_dataset(dataset: Any) -> None:
    """Without an endpoint, ``dataset`` is a path: an ``ipc://`` or ``tcp://`` there is a daemon's
    endpoint given to the wrong keyword."""
    for item in dataset if isinstance(dataset, (list, tuple)) else [dataset]:
        if isinstance(item, str) and item.startswith(("ipc://", "tcp://")):
            raise errors.InvalidArgumentError(
                f"dataset={item!r} is the endpoint of a daemon, not a dataset: pass it as endpoint= "
                f"(textfeed.Loader({item!r}, dataset=NAME, ...), NAME a dataset the daemon serves)")


def samples_per_rank(epoch_length: int, rank: int, world_size: int, *, drop_last: bool, padded: bool) -> int:
    """Samples a rank gets in a whole epoch of ``epoch_length`` draws: loader/sources/sampler.cc's per_rank
    (DistributedSampler's ``num_samples``)."""
    if drop_last:
        return epoch_length // world_size
    if padded:
        return -(-epoch_length // world_size)
    return (epoch_length - rank + world_size - 1) // world_size if rank < epoch_length else 0


class LoaderSampler:
    """``loader.sampler``: the DistributedSampler surface of a Loader. ``set_epoch(e)`` is the
    Loader's; ``len()`` is the samples this rank gets in a whole epoch (DistributedSampler's
    ``len``: padded to a multiple of the ranks, or cut with drop_last)."""

    __slots__ = ("_loader",)

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def set_epoch(self, epoch: int) -> None:
        """As :meth:`textfeed.Loader.set_epoch`."""
        self._loader.set_epoch(epoch)

    def __len__(self) -> int:
        return self._loader._samples_per_rank()

    def __repr__(self) -> str:
        loader = self._loader
        return f"<textfeed sampler: rank {loader._rank} of {loader._world_size}, {len(self)} samples per epoch>"


class LoaderDataset:
    """``loader.dataset``: the samples a Loader reads. ``len()`` is their number (every source's,
    end to end); ``paths`` names the sources (dataset names with a daemon); ``endpoint`` is the
    daemon's (a list with several; None in this process)."""

    __slots__ = ("_paths", "_size", "_endpoint")

    def __init__(self, paths: List[str], size: int, endpoint: Optional[Any]) -> None:
        self._paths, self._size, self._endpoint = tuple(paths), size, endpoint

    @property
    def paths(self) -> tuple:
        return self._paths

    @property
    def endpoint(self) -> Optional[Any]:
        return self._endpoint

    def __len__(self) -> int:
        return self._size

    def __repr__(self) -> str:
        what = self._paths[0] if len(self._paths) == 1 else list(self._paths)
        where = "read in this process" if self._endpoint is None else f"served by {self._endpoint}"
        return f"<textfeed dataset {what!r}: {self._size} samples, {where}>"


def source_paths(sources: Sequence[Any]) -> List[str]:
    """The path (or dataset name) of each _core.SourceSpec, as text."""
    return [s.path for s in sources]
