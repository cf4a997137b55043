"""What training scripts reach for on a ``torch.utils.data.DataLoader``, on a Loader: the
``loader.sampler`` a DDP script calls ``set_epoch`` on, a ``loader.dataset`` with a length, and
the way to the Loader's own keyword from DataLoader's (``num_workers``) or from a misspelt one.
"""

from __future__ import annotations

import difflib
from typing import Any, Iterable, List, Optional, Sequence

from . import errors

# DataLoader's keywords that have a Loader keyword of another name.
_DATALOADER_KEYWORDS = {
    "num_workers": "threads= (the worker threads of the pipeline in this process; None or 0: one per core)",
    "prefetch_factor": "prefetch= (slots in the ring: batches made ahead plus the ones you still hold)",
}


def unknown_keywords_error(unknown: Sequence[str], known: Iterable[str]) -> errors.ArgumentTypeError:
    """The TypeError for keywords that are neither a Loader keyword nor an augmentation option
    (``known``: both), each with DataLoader's equivalent or the closest known names."""
    known = sorted(set(known))
    parts = []
    for name in sorted(unknown):
        if name in _DATALOADER_KEYWORDS:
            parts.append(f"Loader() has no {name}= (DataLoader's): use {_DATALOADER_KEYWORDS[name]}")
            continue
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.7)
        hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
        parts.append(f"Loader() got an unexpected keyword argument {name!r}{hint}")
    return errors.ArgumentTypeError("; ".join(parts) + ". Its keywords are in help(textfeed.Loader), the "
                                    "augmentation options in textfeed._core.option_names()")


def refuse_endpoint_as_dataset(dataset: Any) -> None:
    """Without an endpoint, ``dataset`` is a path: an ``ipc://`` or ``tcp://`` there is a daemon's
    endpoint given to the wrong keyword."""
    for item in dataset if isinstance(dataset, (list, tuple)) else [dataset]:
        if isinstance(item, str) and item.startswith(("ipc://", "tcp://")):
            raise errors.InvalidArgumentError(
                f"dataset={item!r} is the endpoint of a daemon, not a dataset: pass it as endpoint= "
                f"(textfeed.Loader({item!r}, dataset=NAME, ...), NAME a dataset the daemon serves)")


def samples_per_rank(epoch_length: int, rank: int, world_size: int, *, drop_last: bool, padded: bool) -> int:
    """Samples a rank gets in a whole epoch of ``epoch_length`` draws: loader/sampler.cc's per_rank
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
