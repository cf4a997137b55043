"""textfeed.Loader: EAST training batches for a PyTorch loop, in place of ``DataLoader``.

Without an endpoint the C++ pipeline runs inside this process on a pool of worker threads
(embedded mode); with one, batches come from ``textfeed serve`` (one stream per DDP rank), written
straight into this process's shared memory over the daemon's ipc endpoint. Either way the
batches are the same bytes for the same seed, and each is a tuple of torch tensors
``(img, gt_score_map, gt_geo_map, roi_mask)`` in a ring of slots allocated once (page-locked for
CUDA when it is there), valid for as long as you keep any of them.
"""

from __future__ import annotations

import bisect
import functools
import inspect
import itertools
import logging
import numbers
import os
import socket
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import torch

from . import _args, _core, _dataloader, _log, errors, options
from .options import MAX_SEED, DaemonOptions, OutputOptions, ReaderOptions, Recipe, SamplerOptions
from .sources import DatasetArg, source_specs

__all__ = ["Batch", "Loader", "SampleError", "gather_states"]

logger = logging.getLogger("textfeed")

_DTYPES = {_core.DType.FLOAT32: torch.float32, _core.DType.UINT8: torch.uint8}  # the layout's dtypes
# 2: the state names its dataset (dataset_fingerprint); 3: elastic resume; 4: epoch_size and mode
_STATE_VERSION = 4
# The bounds C++ checks too (loader/spec/spec.h, client/feed.h), from the one place they are defined.
MAX_BATCH_SIZE = _core.MAX_BATCH_SIZE  # as the daemon's
MAX_WORLD_SIZE = _core.MAX_WORLD_SIZE
MAX_PREFETCH = _core.MAX_PREFETCH
MIN_PREFETCH = options.MIN_PREFETCH  # options.py says why two is the least
MAX_EPOCH = 2**63 - 1
_WAIT_SLICE_MS = 100  # next() waits in slices like this, so Ctrl-C is seen between them
_said_no_cuda = False


class SampleError(NamedTuple):
    """A sample that could not be used: ``replaced_by`` was written in its place (training's
    ``skip``), or ``replaced_by == index`` when nothing was (eval's ``report``: its row is blank and
    ``Batch.missing`` marks it)."""

    index: int  # type: ignore[assignment]  # the row's index; shadows tuple.index on purpose
    replaced_by: int
    code: str
    message: str


class Batch(tuple):
    """``(img, gt_score_map, gt_geo_map, roi_mask)``, unpacked like the reference loaders' tuples;
    with profile ``db``, ``(image, threshold_map, threshold_mask, shrink_map, shrink_mask)`` as
    PaddleOCR's ``KeepKeys`` gives them, the maps ``[B, H, W]``. ``names`` says which is which, and
    ``get(name)`` takes a tensor by name.

    Also carries where it came from: ``epoch``, ``batch`` (index within the epoch), ``indices``
    (index of each row over all sources, end to end), ``sources`` (which source of the Loader's
    list each row came from), ``source_indices`` (its index in that source), ``errors`` (bad
    samples replaced in this batch, or reported missing in eval), ``missing`` (per row: True when
    the row is blank because its image could not be used, eval's ``on_bad_sample="report"``; score
    its words as missed) and ``invalid_polygons`` (the invalid_polygon policy's counts). An eval batch (``mode="eval"``) is ``(img,)`` alone and
    carries per sample ``image_ids``, ``original_sizes``, ``scales``, ``polygons`` and ``ignore``
    (also set in training with ``return_polygons=True``; None otherwise).
    """

    names: Tuple[str, ...]
    epoch: int
    batch: int
    indices: List[int]
    sources: List[int]
    source_indices: List[int]
    errors: List[SampleError]
    missing: List[bool]
    # Words the invalid_polygon policy found defective in this batch, by defect ("non_finite",
    # "degenerate", "out_of_image", "self_intersecting"), and what it did ("repaired", "ignored").
    invalid_polygons: Dict[str, int]
    # Per sample, in eval mode (and with return_polygons in training; else None):
    image_ids: Optional[List[str]]                    # the image's path below the dataset root
                                                      # ("<source>: <path>" with several sources)
    original_sizes: Optional[List[Tuple[int, int]]]   # (h, w) of the original image (training: the crop)
    scales: Optional[List[Tuple[float, float]]]       # (sx, sy): canvas px per original px (training: 1)
    polygons: Optional[List[List[np.ndarray]]]        # per word a float32 (n_points, 2) array, x y in
                                                      # original px (eval) or crop px (training)
    ignore: Optional[List[np.ndarray]]                # per word: True = ignored

    def get(self, name: str) -> torch.Tensor:
        """The tensor called ``name`` (one of ``names``)."""
        if name not in self.names:
            raise KeyError(f"no tensor {name!r} in this batch (it has {', '.join(self.names)})")
        return self[self.names.index(name)]

    @property
    def img(self) -> torch.Tensor:
        return self[0]

    @property
    def gt_score_map(self) -> torch.Tensor:
        return self[1]

    @property
    def gt_geo_map(self) -> torch.Tensor:
        return self[2]

    @property
    def roi_mask(self) -> torch.Tensor:
        return self[3]


class _PinnedRing:
    """Page-locks the ring for CUDA while it lives, so ``tensor.cuda(non_blocking=True)`` overlaps."""

    def __init__(self, address: int, size: int) -> None:
        self._cudart = torch.cuda.cudart()
        err = self._cudart.cudaHostRegister(address, size, 0)
        if int(getattr(err, "value", err)) != 0:
            raise errors.TextfeedIOError(f"cudaHostRegister of {size >> 20} MiB of batch slots failed: {err}")
        self.address = address

    def __del__(self) -> None:
        self._cudart.cudaHostUnregister(self.address)


def _recorded_event() -> Any:
    """An event recorded on the current stream of the current device as a slot's last tensor dies:
    copies queued from it there (``.cuda(non_blocking=True)`` after ``torch.cuda.set_device``, as
    DDP scripts do) have run when it completes."""
    event = torch.cuda.Event()
    event.record()
    return event


def _distributed_defaults(rank: Optional[int], world_size: Optional[int]) -> Tuple[int, int]:
    import torch.distributed as dist

    initialized = dist.is_available() and dist.is_initialized()
    if rank is None:
        rank = dist.get_rank() if initialized else 0
    if world_size is None:
        world_size = dist.get_world_size() if initialized else 1
    return rank, world_size


class _Setup(NamedTuple):
    """What every feed of a Loader is opened with, checked (the typed options, resolved)."""

    profile: _core.Profile
    mode: _core.Mode
    on_bad_sample: _core.OnBadSample
    batch_size: int
    rank: int
    world_size: int
    recipe: Recipe
    sampler: SamplerOptions
    output: OutputOptions


def _pipeline_spec(sources: List[Any], setup: _Setup) -> _core.PipelineSpec:
    """The one _core.PipelineSpec of a Loader, checked as a whole (validate()), for either opener."""
    spec = _core.PipelineSpec(setup.profile)
    spec.sources = sources
    spec.on_bad_sample = setup.on_bad_sample
    spec.mode = setup.mode
    spec.return_polygons = setup.output.return_polygons
    spec.dtype = _args.enum("dtype", setup.output.dtype, _core.DType)  # a member already: OutputOptions made it one
    for name, value in setup.recipe._texts().items():
        spec.set_option(name, value)
    sampler = _core.SamplerOptions()
    s = setup.sampler
    sampler.seed, sampler.batch_size, sampler.rank, sampler.world_size = s.seed, setup.batch_size, setup.rank, \
        setup.world_size
    sampler.shuffle, sampler.drop_last, sampler.epoch_size = s.shuffle, s.drop_last, s.epoch_size or 0
    spec.sampler = sampler
    spec.validate()
    return spec


def _thread_count(threads: Any) -> int:
    """None or an int that C++'s one bound (MAX_WORKER_THREADS) accepts; 0 for one per core."""
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise errors.ArgumentTypeError(f"threads must be an int or None, got {type(threads).__name__} {threads!r:.80}")
    _core.check_worker_threads(int(threads))  # the message of every entry point, from C++
    return int(threads)


def _endpoints(endpoint: Any) -> Optional[Any]:
    """None, one endpoint (a str), or a list of them (several producers, MAX_PRODUCERS at most)."""
    if endpoint is None or isinstance(endpoint, str):
        return None if endpoint is None else _args.text("endpoint", endpoint)
    if not isinstance(endpoint, (list, tuple)):
        raise errors.ArgumentTypeError(f"endpoint must be a str, a list of str or None, got "
                                       f"{type(endpoint).__name__} {endpoint!r:.80}")
    if not 1 <= len(endpoint) <= _core.MAX_PRODUCERS:
        raise errors.InvalidArgumentError(f"endpoint lists {len(endpoint)} daemons; 1..{_core.MAX_PRODUCERS}")
    out = [_args.text(f"endpoint[{i}]", e) for i, e in enumerate(endpoint)]
    if len(set(out)) != len(out):
        raise errors.InvalidArgumentError("endpoint names a daemon twice")
    return out


def _multi_opener(endpoints: List[str], daemon: DaemonOptions, payload: str) -> Any:
    """_core.open_multi with the arguments of a feed of daemons bound."""
    return functools.partial(_core.open_multi, endpoints, transport=daemon.transport, **daemon._timeouts(),
                             curve_server_keys=daemon._server_keys(endpoints), curve_client_key=daemon._client_key(),
                             local_threads=daemon.local_threads or 0, payload=payload)


def _check_daemon_use(endpoint: Any, daemon: DaemonOptions, output: OutputOptions) -> None:
    """What only a feed of daemons takes is refused without an endpoint."""
    if endpoint is None and (daemon.local_threads is not None or daemon.local_dataset is not None):
        raise errors.InvalidArgumentError("local_threads and local_dataset go with an endpoint: this "
                                          "process's threads as one more producer beside the daemons")
    if endpoint is None and output.payload != "full":
        raise errors.InvalidArgumentError("payload='compact' goes with an endpoint: the daemons send it")


def _shard(rank: Optional[int], world_size: Optional[int]) -> Tuple[int, int]:
    """rank and world_size, from torch.distributed where not given, checked together."""
    rank, world_size = _distributed_defaults(rank, world_size)
    rank = _args.integer("rank", rank, 0, MAX_WORLD_SIZE - 1)
    world_size = _args.integer("world_size", world_size, 1, MAX_WORLD_SIZE)
    if rank >= world_size:
        raise errors.InvalidArgumentError(f"rank must be in 0..world_size-1, got rank {rank} of {world_size}")
    return rank, world_size


def _target_row_shape(shape: Sequence[int], profile: _core.Profile, is_image: bool) -> Tuple[int, ...]:
    """The shape of one row of a tensor of the layout ([channels, height, width]) as the batch gives
    it: a profile whose reference gives its one-channel maps as [B, H, W] (PaddleOCR's DB: a
    [B, 1, H, W] map would broadcast in its loss) gets them so."""
    row = tuple(shape[1:])
    if profile.maps_without_channel_axis and not is_image and row[0] == 1:
        return row[1:]
    return row


def _fingerprint_text(value: Optional[int]) -> Optional[str]:
    return None if value is None else f"{value:016x}"


def _checked_batches(value: Any, world_size: int) -> Any:
    """state['batch']: an int (every rank in step), or one int per rank (gather_states)."""
    if isinstance(value, (list, tuple)):
        if len(value) != world_size:
            raise errors.InvalidArgumentError(f"state['batch'] lists {len(value)} counts for {world_size} ranks")
        return [_args.integer(f"state['batch'][{r}]", v, 0, MAX_EPOCH) for r, v in enumerate(value)]
    return _args.integer("state['batch']", value, 0, MAX_EPOCH)


def _checked_stages(value: Any) -> List[Tuple[int, int, List[int]]]:
    """state['resume']: a list of [world_size, batch_size, [batches per rank or one for all]]."""
    if not isinstance(value, (list, tuple)) or len(value) > _core.MAX_RESUME_STAGES:
        raise errors.InvalidArgumentError(f"state['resume'] must be a list of at most {_core.MAX_RESUME_STAGES} "
                                          f"stages, got {value!r:.80}")
    stages = []
    for i, stage in enumerate(value):
        what = f"state['resume'][{i}]"
        if not isinstance(stage, (list, tuple)) or len(stage) != 3:
            raise errors.InvalidArgumentError(f"{what} must be [world_size, batch_size, batches], got {stage!r:.80}")
        w = _args.integer(f"{what}[0]", stage[0], 1, MAX_WORLD_SIZE)
        b = _args.integer(f"{what}[1]", stage[1], 1, MAX_BATCH_SIZE)
        counts = stage[2]
        if not isinstance(counts, (list, tuple)) or len(counts) not in (1, w):
            raise errors.InvalidArgumentError(f"{what}[2] must list 1 or {w} batch counts, got {counts!r:.80}")
        stages.append((w, b, [_args.integer(f"{what}[2]", k, 0, MAX_EPOCH) for k in counts]))
    return stages


def gather_states(states: Sequence[Mapping]) -> Dict[str, Any]:
    """One state for every rank, from each rank's :meth:`Loader.state_dict` (gathered by the user,
    e.g. with ``torch.distributed.all_gather_object``): needed when the ranks were not in step, so
    that an elastic resume leaves out exactly what each of them delivered."""
    if isinstance(states, (str, bytes, Mapping)) or not isinstance(states, Iterable):
        raise errors.ArgumentTypeError(f"states must be a list of state dicts, got {type(states).__name__}")
    states = list(itertools.islice(states, MAX_WORLD_SIZE + 1))
    if not states or not all(isinstance(s, Mapping) and "rank" in s and "batch" in s for s in states):
        raise errors.InvalidArgumentError("states must be a non-empty list of Loader.state_dict() results")
    by_rank: Dict[int, Mapping[str, Any]] = {}
    for i, s in enumerate(states):
        # Checked before use as a key or a count: a list there is the caller's error, named as such.
        rank = _args.integer(f"states[{i}]['rank']", s["rank"], 0, MAX_WORLD_SIZE - 1)
        _args.integer(f"states[{i}]['batch']", s["batch"], 0, MAX_EPOCH)
        by_rank.setdefault(rank, s)
        same = {k: v for k, v in s.items() if k not in ("rank", "batch")}
        first = {k: v for k, v in states[0].items() if k not in ("rank", "batch")}
        if same != first:
            diff = sorted(k for k in set(same) | set(first) if same.get(k) != first.get(k))
            raise errors.InvalidArgumentError(f"the states of ranks {states[0]['rank']} and {s['rank']} differ in "
                                              f"{diff}: they are not of one checkpoint")
    world_size = _args.integer("states[0]['world_size']", states[0].get("world_size"), 1, MAX_WORLD_SIZE)
    if sorted(by_rank) != list(range(world_size if isinstance(world_size, int) else -1)) or len(states) != world_size:
        raise errors.InvalidArgumentError(f"need exactly one state of each rank 0..{world_size}-1, got ranks "
                                          f"{sorted(s['rank'] for s in states)}")
    gathered = dict(states[0])
    counts = [by_rank[r]["batch"] for r in range(world_size)]
    gathered["rank"], gathered["batch"] = 0, counts[0] if len(set(counts)) == 1 else counts
    return gathered


def _is_endpoint(value: Any) -> bool:
    """Whether a first argument given beside ``dataset=`` is an endpoint (the former call's): None
    (this process), an ipc:// or tcp:// str, or a list of such (an empty one is refused as an
    endpoint list, by its count)."""
    def one(v: Any) -> bool:
        return isinstance(v, str) and v.startswith(("ipc://", "tcp://"))

    if isinstance(value, (list, tuple)):
        return all(one(v) for v in value)
    return value is None or one(value)


class _EndpointFirst(type):
    """The Loader's metaclass: it takes textfeed's former call with the endpoint first,
    ``Loader(endpoint, dataset=..., batch_size=...)``, as ``Loader(dataset, batch_size,
    endpoint=endpoint)`` with a DeprecationWarning. A first argument that is no endpoint beside
    ``dataset=`` is the dataset given twice. Any other call goes to ``Loader.__init__`` as it is."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and "dataset" in kwargs:
            if not _is_endpoint(args[0]):
                raise errors.ArgumentTypeError(f"Loader() got multiple values for argument 'dataset': "
                                               f"{args[0]!r:.80} first and dataset={kwargs['dataset']!r:.80} (an "
                                               "endpoint given first is None, an ipc:// or tcp:// str or a list of "
                                               "them)")
            if "endpoint" in kwargs:
                raise errors.ArgumentTypeError("Loader() got an endpoint both first and as endpoint=: give it once, "
                                               "as endpoint=")
            warnings.warn("Loader(endpoint, dataset=...) with the endpoint first is deprecated: use "
                          "Loader(dataset, batch_size, endpoint=endpoint)", DeprecationWarning, stacklevel=2)
            kwargs["endpoint"], args = args[0], ()
        return super().__call__(*args, **kwargs)


class Loader(metaclass=_EndpointFirst):
    """Batches of augmented samples and their targets, in place of ``torch.utils.data.DataLoader``.

        loader = textfeed.Loader("data/train", 8, profile="upstage",
                                 recipe=textfeed.Recipe(crop_size=512),
                                 sampler=textfeed.SamplerOptions(seed=1))
        for img, gt_score_map, gt_geo_map, roi_mask in loader: ...

    Every argument is checked before anything starts: a wrong type raises
    :class:`textfeed.errors.ArgumentTypeError` (a ``TypeError``), a wrong value
    :class:`textfeed.errors.InvalidArgumentError` (a ``ValueError``), naming the argument. ints are
    ints (never bools), numbers are finite; every enum argument takes the member or its name.

    Args:
        dataset: without an endpoint, a dataset folder (ICDAR-2015), a UFO ``.json``, a cache file
            from ``textfeed cache build`` or a manifest of shard files from ``textfeed cache
            merge``, as a str or ``os.PathLike``; with one, a dataset NAME the daemon serves. Or a
            :class:`textfeed.Source` (a weight, its own reader options), or a list of them.
        batch_size: samples per batch, 1..4096.
        profile: :class:`textfeed.Profile`, the public pipeline whose recipe is the default:
            ``"upstage"`` (Upstage/boostcamp baseline), ``"sakura"`` (SakuraRiven/EAST), ``"bc7"``
            (the 7th-generation boostcamp baseline: upstage with albumentations 1.4.12
            ``ColorJitter()``) or ``"db"`` (PaddleOCR's DB detection chain: batches ``(image,
            threshold_map, threshold_mask, shrink_map, shrink_mask)``).
        recipe: :class:`textfeed.Recipe`, the augmentation options changed from the profile's
            (None: the profile's recipe).
        reader: :class:`textfeed.ReaderOptions`, the dataset readers' options changed from the
            profile's (a Source's own go over them).
        sampler: :class:`textfeed.SamplerOptions`: seed, rank, world_size, shuffle, drop_last,
            epoch_size (None: seed 0, the shard of ``torch.distributed``, shuffled).
        output: :class:`textfeed.OutputOptions`: dtype, pin_memory, prefetch, return_polygons,
            payload (None: float32 images in 4 pinned slots).
        mode: :class:`textfeed.Mode`: ``"train"`` (augmented crops and targets) or ``"eval"``: no
            random augmentation, the profile's inference preprocessing (upstage: long side resized
            to ``image_size``, padded at the bottom and right to ``image_size`` square, ImageNet
            normalization; sakura: each side floored to a multiple of 32, placed at the top left of
            an ``image_size`` square canvas; db: PaddleOCR's ``DetResizeForTest``, longer side
            limited to ``image_size``, sides rounded to multiples of 32, image_size a multiple of
            32, top left on a black square, BGR planes), dataset order, every sample exactly once
            over the ranks (the later ranks may get one sample fewer, so ``len()`` may differ by
            one between ranks; shuffle and drop_last are ignored). Every profile needs
            ``image_size`` (the canvas side). Eval batches hold the image only, and per sample
            ``image_ids``, ``original_sizes``, ``scales``, ``polygons``, ``ignore`` and
            ``missing`` (docs/design.md "Evaluation batches").
        threads: this process's worker threads: None or 0 for one per core, else
            1..``textfeed._core.MAX_WORKER_THREADS`` (1024; the bound of every textfeed command).
        on_bad_sample: :class:`textfeed.OnBadSample`, what a sample that cannot be used does.
            Training: ``"skip"`` (the default: write a deterministic replacement, report it in
            ``errors``) or ``"fail"``. Eval never replaces an image: ``"fail"`` (the default: the
            Loader refuses to start when an image cannot be placed on the canvas (sakura, whose
            scan also finds files that cannot be read), and a batch raises at an image that cannot
            be read) or ``"report"`` (the row is left blank and marked in ``Batch.missing``, with
            its image id, words and reason, so that a metric can count its words as missed).
        endpoint: ``textfeed serve``'s endpoint (``ipc:///tmp/textfeed.sock``, ``tcp://host:port``);
            None runs the pipeline in this process. A list of endpoints feeds this rank from all of
            those daemons at once (and from ``daemon.local_threads``): each batch is made by
            whichever has room, and delivered in order; a daemon that dies or stalls has its batches
            made by the others, and rejoins when it comes back (docs/design.md "Several
            producers"). One endpoint is the list of one: ``"x"`` and ``["x"]`` are the same feed.
            ``output.prefetch`` is per producer; the ring holds ``prefetch * producers + 1`` slots,
            and ``prefetch`` more with several producers.
        daemon: :class:`textfeed.DaemonOptions`, how the daemons' batches come: transport,
            timeouts, CURVE keys, this process's own threads beside them.

    The keywords of earlier versions (``seed=``, ``crop_size=``, ``prefetch=``, ``format=``, ...)
    still work, each with a DeprecationWarning naming its place in the typed options; giving one
    together with the object that holds it is an error.

    Iteration: ``iter(loader)`` runs one epoch from the position (see :meth:`set_epoch`). One
    iteration runs at a time: a new ``iter()`` supersedes the previous iterator, which raises
    CancelledError if advanced again; so does a :meth:`load_state_dict` that takes (the next
    ``iter()`` then starts exactly at the loaded position; a refused state changes nothing). The
    Loader belongs to the process that made it: after ``os.fork()`` the child must make its own (the
    inherited one raises, and close() there only lets go of it). close() may come from another
    thread: an iteration waiting for a batch then raises CancelledError.

    What a DataLoader has, read-only: ``batch_size``, ``drop_last``, ``sampler`` (``set_epoch(e)``
    is :meth:`set_epoch`; ``len()`` the samples this rank gets per epoch, as DistributedSampler's)
    and ``dataset`` (``len()`` its samples, every source's; its repr names them). DataLoader's
    ``num_workers=`` and ``prefetch_factor=`` are refused with the Loader's own spelling
    (``threads=``, ``OutputOptions(prefetch=)``), and a misspelt keyword with the nearest ones.

    Threads: the first Loader of a process makes its thread settings (OpenCV's own threads off,
    so that the pipeline's pool owns the cores) and keeps them until the process exits; importing
    textfeed changes no process-wide setting.

    Log lines: what the C++ side says (where a dataset's images are, records a reader left out, a
    daemon lost and back) goes to ``logging.getLogger("textfeed")`` at its level, so the script's
    logging configuration governs it (``logging.basicConfig(level=logging.INFO)`` shows the info
    lines; Python's default shows warnings and errors only). Lines from C++ threads reach the logger
    at the Loader's next call (while it waits for a batch, within 100 ms).
    """

    def __init__(self, dataset: DatasetArg, batch_size: int, *, profile: Union[_core.Profile, str] = "upstage",
                 recipe: Optional[Recipe] = None, reader: Optional[ReaderOptions] = None,
                 sampler: Optional[SamplerOptions] = None, output: Optional[OutputOptions] = None,
                 mode: Union[_core.Mode, str] = "train", threads: Optional[int] = None,
                 on_bad_sample: Union[_core.OnBadSample, str, None] = None,
                 endpoint: Union[str, Sequence[str], None] = None, daemon: Optional[DaemonOptions] = None,
                 **deprecated: Any) -> None:
        # First: close() and __del__ work on a Loader whose __init__ raised.
        self._pid = os.getpid()
        self._feed: Optional[Any] = None
        self._pinned = False
        self._said_missing: set = set()  # eval rows reported missing that were logged
        typed = _dataloader.typed_options(dict(recipe=recipe, reader=reader, sampler=sampler, output=output,
                                               daemon=daemon), deprecated, stacklevel=4)
        endpoint = _endpoints(endpoint)
        _check_daemon_use(endpoint, typed.daemon, typed.output)
        setup = self._setup(batch_size, profile, mode, on_bad_sample, typed)
        if endpoint is None:
            _dataloader.refuse_endpoint_as_dataset(dataset)
        # Each argument is checked whichever mode uses it: a wrong one is wrong in both.
        sources, weighted = source_specs(dataset, setup.profile, typed.reader,
                                         _args.path if endpoint is None else _args.text)
        if typed.sampler.epoch_size is not None and not weighted:
            raise errors.InvalidArgumentError("epoch_size applies to weighted sources (Source(path, weight=...)); "
                                              "without weights an epoch is every sample once")
        thread_count = _thread_count(threads)
        # One endpoint is a list of one: the same feed either way. Checked in embedded mode too.
        endpoints = [] if endpoint is None else [endpoint] if isinstance(endpoint, str) else endpoint
        opener = _multi_opener(endpoints, typed.daemon, typed.output.payload)
        rank, world_size = setup.rank, setup.world_size
        spec = _pipeline_spec(sources, setup)
        if endpoint is None:
            opener = functools.partial(_core.open_embedded, threads=thread_count)
        else:
            opener = functools.partial(opener, local_spec=self._local_spec(dataset, typed, setup),
                                       client_name=f"{socket.gethostname()} pid {os.getpid()} rank {rank}/{world_size}")
        self._profile = setup.profile
        self._seed, self._batch_size = setup.sampler.seed, setup.batch_size
        self._rank, self._world_size = rank, world_size
        self._shuffle, self._drop_last = setup.sampler.shuffle, setup.sampler.drop_last
        self._endpoint = endpoint
        self._resume: Tuple[int, List[Any]] = (0, [])  # the elastic resume the feed was opened with
        self._epoch, self._next = 0, 0  # position: batch `_next` of epoch `_epoch` comes next
        self._placed = True  # the next iteration starts at the position as it is (else: next epoch)
        # (epoch, batch) of the last load_state_dict() while no iteration ran since, else None.
        self._loaded_position: Optional[Tuple[int, int]] = None
        self._generation = 0  # of the newest iterator; an older one raises when advanced
        self._superseded_by = ""  # what ended the iterators before the newest, for their message
        self._spec, self._prefetch, self._pin_memory = spec, setup.output.prefetch, setup.output.pin_memory
        self._opener = functools.partial(opener, prefetch=setup.output.prefetch)
        self._open(0)

    @staticmethod
    def _setup(batch_size: Any, profile: Any, mode: Any, on_bad_sample: Any,
               typed: _dataloader.TypedOptions) -> _Setup:
        """The arguments every feed is opened with, checked; enums as _core's members. No
        on_bad_sample: the mode's default (eval: fail, training: skip)."""
        mode = _args.enum("mode", mode, _core.Mode)
        on_bad = _core.default_on_bad_sample(mode) if on_bad_sample is None else \
            _args.enum("on_bad_sample", on_bad_sample, _core.OnBadSample)
        profile = _args.enum("profile", profile, _core.Profile)
        batch_size = _args.integer("batch_size", batch_size, 1, MAX_BATCH_SIZE)
        rank, world_size = _shard(typed.sampler.rank, typed.sampler.world_size)
        return _Setup(profile=profile, mode=mode, on_bad_sample=on_bad, batch_size=batch_size, rank=rank,
                      world_size=world_size, recipe=typed.recipe, sampler=typed.sampler, output=typed.output)

    @staticmethod
    def _local_spec(dataset: Any, typed: _dataloader.TypedOptions, setup: _Setup) -> Optional[_core.PipelineSpec]:
        """With local_threads: the spec of this process's own producer, which reads paths
        (local_dataset, or the daemons' dataset names taken as paths)."""
        if typed.daemon.local_threads is None:
            return None
        local = dataset if typed.daemon.local_dataset is None else typed.daemon.local_dataset
        sources, _ = source_specs(local, setup.profile, typed.reader, _args.path)
        return _pipeline_spec(sources, setup)

    def _open(self, epoch: int) -> None:
        """Opens the feed of self._spec at the start of ``epoch``, and takes its layout."""
        _log.sync_level()
        try:
            feed = self._opener(self._spec, epoch=epoch, batch=0)
        finally:
            _log.flush()  # what reading the dataset said (its layout, records left out), even when it failed
        layout = feed.layout()
        # Per tensor: dtype, elements per row, byte offset in the slot, shape of a row.
        self._views = []
        tensors: List[_core.TensorDesc] = layout["tensors"]
        self._names = tuple(t.name for t in tensors)
        for i, t in enumerate(tensors):
            torch_dtype = _DTYPES[t.dtype]
            per_row = t.sample_bytes // torch.empty((), dtype=torch_dtype).element_size()
            row = _target_row_shape(t.shape, self._profile, is_image=i == 0)
            self._views.append((torch_dtype, per_row, t.offset_bytes, row))
        self._batches_per_epoch = int(layout["batches_per_epoch"])
        resumed = layout.get("resumed_batches")
        self._resumed_batches = None if resumed is None else int(resumed)
        self._dataset_size = int(layout["dataset_size"])
        self._source_starts = list(itertools.accumulate(layout.get("source_sizes") or [self._dataset_size],
                                                        initial=0))[:-1]
        # None for a daemon that does not send it yet: load_state_dict then checks the size only.
        self._fingerprint = _fingerprint_text(layout.get("dataset_fingerprint"))
        self._feed = feed
        if self._pin_memory:
            self._pin()

    # ------------------------------------------------------------------ the DataLoader surface

    def __len__(self) -> int:
        """Batches per epoch for this rank (equal for every rank in training; in eval mode a later
        rank may have one fewer)."""
        return self._batches_per_epoch

    @property
    def batch_size(self) -> int:
        """Samples per batch (the last batch of an epoch may have fewer without drop_last)."""
        return self._batch_size

    @property
    def drop_last(self) -> bool:
        """Whether the samples that do not divide evenly over the ranks and the short last batch are
        dropped (as given; eval mode ignores it)."""
        return self._drop_last

    @property
    def sampler(self) -> _dataloader.LoaderSampler:
        """What DDP scripts call on a DataLoader's sampler: ``loader.sampler.set_epoch(e)`` is
        :meth:`set_epoch`; ``len(loader.sampler)`` is the samples this rank gets per epoch."""
        return _dataloader.LoaderSampler(self)

    @property
    def dataset(self) -> _dataloader.LoaderDataset:
        """The samples this Loader reads: ``len(loader.dataset)`` is their number (every source's, end
        to end); its repr names the sources and where they are read."""
        return _dataloader.LoaderDataset(_dataloader.source_paths(self._spec.sources), self._dataset_size,
                                         self._endpoint)

    def set_epoch(self, epoch: int) -> None:
        """The epoch the next iteration runs (as ``DistributedSampler.set_epoch``), 0..2**63-1.
        Without it, each iteration runs the epoch after the previous one's (epoch 0 first), as
        ``RandomSampler`` draws a new order each time. Called during an iteration, it applies to the
        next one; the running one finishes its epoch. After :meth:`load_state_dict`, naming the
        state's epoch keeps the state's position, however often it is named before the iteration
        starts (a DDP loop calls ``sampler.set_epoch(e)`` at the top of each epoch, the resumed one
        included; a state taken after the epoch's last batch makes that iteration empty); another
        epoch starts at its first batch."""
        self._check_process()
        epoch = _args.integer("epoch", epoch, 0, MAX_EPOCH)
        if self._loaded_position is not None and epoch == self._loaded_position[0]:
            # The state's own position, also when it was the epoch's end (this iteration is then
            # empty) and however often it is named before an iteration starts.
            self._epoch, self._next = self._loaded_position
        else:
            self._epoch, self._next, self._loaded_position = epoch, 0, None
        self._placed = True

    def __iter__(self) -> Iterator[Batch]:
        """The batches of one epoch: the one set_epoch() named, or where load_state_dict() resumes, or
        else the epoch after the previous iteration's. Supersedes any earlier iterator."""
        self._check_process()
        self._live_feed()
        if not self._placed:
            self._epoch, self._next = self._epoch + 1, 0
            if self._epoch > MAX_EPOCH:
                raise errors.InvalidArgumentError(f"epoch {self._epoch} is past the last one, {MAX_EPOCH}")
        self._placed = False
        self._loaded_position = None
        self._supersede("a newer iter() of its Loader: one iteration runs at a time")
        return self._iterate(self._generation, self._epoch, self._next)

    def state_dict(self) -> Dict[str, Any]:
        """Where the iteration stands: a Loader given this resumes with exactly the next batch. Names
        the setup and the dataset (``dataset_fingerprint``, a hash of its index), so that it is
        refused by a Loader of another one. ``resume`` lists the stages of an elastic resume that
        made this epoch's order (empty when the epoch is whole). Every input that decides the order
        is in it or in the fingerprint (the sources, their order and exact weights): seed, shuffle,
        drop_last, ``epoch_size`` (None: the Loader was given none) and ``mode``."""
        self._check_process()
        resume = self._resume[1] if self._resume[1] and self._epoch == self._resume[0] else []
        return {"version": _STATE_VERSION, "epoch": self._epoch, "batch": self._next, "seed": self._seed,
                "batch_size": self._batch_size, "rank": self._rank, "world_size": self._world_size,
                "shuffle": self._shuffle, "drop_last": self._drop_last, "profile": self._profile.text,
                "epoch_size": self._spec.sampler.epoch_size or None, "mode": self._spec.mode.text,
                "dataset_size": self._dataset_size, "dataset_fingerprint": self._fingerprint,
                "resume": [[w, b, list(k)] for w, b, k in resume]}

    def load_state_dict(self, state: Mapping) -> None:
        """Resumes at the position of :meth:`state_dict` (or of :func:`gather_states` over every
        rank's); the next iteration yields the rest of that epoch. Every field is checked (type,
        range, and that it matches this Loader: version, seed, shuffle, drop_last, profile,
        epoch_size, mode, dataset_size, dataset_fingerprint); a mismatch raises InvalidArgumentError
        naming the field.

        Elastic: the state may come from another ``world_size`` or ``batch_size``. The rest of its
        epoch is then exactly the samples no rank had delivered, sharded anew over this Loader's
        ranks (docs/design.md "Elastic resume"): one rank's state stands for every rank when they
        were in step (as DDP keeps them); ranks that were not must be gathered with
        :func:`gather_states`. Batches in flight at the checkpoint that the training did not
        count are not in the state: take it right after an optimizer step."""
        self._check_process()
        epoch, batch, stages = self._checked_state(state)
        same = (state["world_size"], state["batch_size"]) == (self._world_size, self._batch_size)
        if not (same and isinstance(batch, int)):
            counts = batch if isinstance(batch, list) else [batch]
            stages, batch = stages + [(state["world_size"], state["batch_size"], counts)], 0
        previous = self._resume
        if (epoch, stages) != previous and (stages or previous[1]):
            self._reopen(epoch, stages)
        try:
            batch = _args.integer("state['batch']", batch, 0, self._batches_in(epoch))
        except errors.InvalidArgumentError:
            if self._resume != previous:
                self._reopen(*previous)  # a refused state changes nothing
            raise
        self._epoch, self._next, self._placed = epoch, batch, True
        self._loaded_position = (epoch, batch)  # until an iteration starts: set_epoch(epoch) keeps it
        if self._next >= self._batches_in(self._epoch):
            self._epoch, self._next = self._epoch + 1, 0
        # A running iterator would go on from where it was, not from the state: it ends here, reopened
        # feed or not, and the next iter() starts exactly at the loaded position.
        self._supersede("load_state_dict(): a state was loaded, and the next iter() resumes at it")

    def stats(self) -> Dict[str, Any]:
        """Batches and samples delivered, samples/s, seconds spent waiting, slots in flight and held,
        skipped samples, reconnects; in embedded mode also ms per sample for each pipeline stage.
        With an endpoint, ``producers``: per daemon (and the local threads) its ``state``
        ("up", "lost", "out"), ``transport``, batches ``delivered`` and ``reissued`` (made by the
        others when it was lost), ``in_flight``, ``wait_seconds`` (the training waiting for its
        batches), ``reconnects`` and ``last_error``; and ``remade``: batches made again because an
        earlier one needed their slot."""
        self._check_process()
        s = dict(self._live_feed().stats())
        s["samples_per_second"] = s["samples"] / s["elapsed_seconds"] if s["elapsed_seconds"] > 0 else 0.0
        transport: _core.FeedTransport = s["transport"]
        s["transport"] = transport.text  # the enums' text, as stats have always shown them
        producers = [dict(p, state=p["state"].text, transport=p["transport"].text) for p in s.get("producers", [])]
        if producers:
            s["producers"] = producers
        s["mode"] = ("embedded" if transport == _core.FeedTransport.EMBEDDED else
                     "several" if transport == _core.FeedTransport.MULTI else "remote")
        s["pinned"] = self._pinned
        return s

    def close(self) -> None:
        """Stops producing (closes the daemon stream), waiting only for the sample each worker is on.
        Tensors already handed out stay valid. Any thread may call it; an iteration waiting for a
        batch then raises CancelledError. In a forked child it only lets go of the parent's Loader."""
        feed, self._feed = getattr(self, "_feed", None), None
        if feed is not None and os.getpid() == getattr(self, "_pid", None):
            feed.close()
            _log.flush()

    def __enter__(self) -> "Loader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    # ------------------------------------------------------------------ internals

    def _check_process(self) -> None:
        if os.getpid() != self._pid:
            raise errors.CancelledError(
                f"this Loader was created in process {self._pid}; this is process {os.getpid()}, a fork of it, "
                "where its worker threads do not exist: create a new Loader after the fork")

    def _live_feed(self) -> Any:
        self._check_process()
        feed = self._feed
        if feed is None:
            raise errors.CancelledError("this Loader is closed")
        return feed

    def _samples_per_rank(self) -> int:
        """Samples this rank gets in a whole epoch (``len(loader.sampler)``), as the C++ sampler shards."""
        length = self._spec.sampler.epoch_size or self._dataset_size  # epoch_size 0: every sample once
        training = self._spec.mode != _core.Mode.EVAL  # eval neither pads nor drops
        return _dataloader.samples_per_rank(length, self._rank, self._world_size,
                                            drop_last=training and self._drop_last, padded=training)

    def _batches_in(self, epoch: int) -> int:
        """Batches of ``epoch`` for this rank: those of an epoch, or of what an elastic resume left."""
        if self._resumed_batches is not None and self._resume[1] and epoch == self._resume[0]:
            return self._resumed_batches
        return self._batches_per_epoch

    def _reopen(self, epoch: int, stages: List[Any]) -> None:
        """A new feed whose sampler resumes ``epoch`` after ``stages`` (none: whole epochs). The old
        one is closed only once the new one opened: a resume the sampler refuses changes nothing."""
        old_feed, old_resume = self._live_feed(), self._resume
        self._spec.sampler.set_resume(epoch, stages)
        try:
            self._open(epoch)
        except BaseException:
            self._spec.sampler.set_resume(*old_resume)
            raise
        self._resume = (epoch, stages)
        if old_feed is not self._feed:
            old_feed.close()

    def _supersede(self, by: str) -> None:
        """Ends every iterator made so far: the next one advanced raises CancelledError naming ``by``."""
        self._generation += 1
        self._superseded_by = by

    def _iterate(self, generation: int, epoch: int, start: int) -> Iterator[Batch]:
        sought = None
        for k in range(start, self._batches_in(epoch)):
            if generation != self._generation:
                raise errors.CancelledError(f"this iterator was superseded by {self._superseded_by}")
            feed = self._live_feed()
            if feed is not sought:
                # Free when the batches produced ahead are the ones wanted. Again on a feed reopened
                # meanwhile (a refused elastic state puts the old setup back in a new feed).
                feed.seek(epoch, k)
                sought = feed
            batch = self._take(feed)
            if (batch.epoch, batch.batch) != (epoch, k):
                raise errors.InternalError(f"expected epoch {epoch} batch {k}, got epoch {batch.epoch} "
                                           f"batch {batch.batch}")
            if not self._placed:  # set_epoch() / load_state_dict() meanwhile placed the next iteration
                self._epoch, self._next = epoch, k + 1
            yield batch
        if generation == self._generation and not self._placed:
            self._epoch, self._next, self._placed = epoch + 1, 0, True

    def _checked_state(self, state: Any) -> Tuple[int, Any, List[Any]]:
        """(epoch, batch, resume stages) of a state from state_dict() or gather_states(), every field
        checked against this Loader; ``batch`` is an int, or a list of one count per rank."""
        if not isinstance(state, Mapping):
            raise errors.ArgumentTypeError(f"state must be a dict from Loader.state_dict(), got "
                                           f"{type(state).__name__}")
        mine = self.state_dict()
        # The version first: a state of another version lacks or adds fields, and that is its reason.
        if "version" in state:
            version = _args.integer("state['version']", state["version"], 0, 2**31)
            if version != _STATE_VERSION:
                raise errors.InvalidArgumentError(f"state['version'] is {version}; this textfeed reads version "
                                                  f"{_STATE_VERSION} (a state saved by another textfeed version)")
        missing = [k for k in mine if k not in state]
        unknown = sorted(repr(k) for k in state if k not in mine)
        if unknown:
            raise errors.InvalidArgumentError(f"the state has unknown field(s) {', '.join(unknown)}")
        if missing:
            raise errors.InvalidArgumentError(f"the state lacks field(s) {', '.join(map(repr, missing))}")
        # Each input that decides the order (the sources and weights are in the fingerprint).
        checks = {"seed": lambda v: _args.integer("state['seed']", v, 0, MAX_SEED),
                  "shuffle": lambda v: _args.boolean("state['shuffle']", v),
                  "drop_last": lambda v: _args.boolean("state['drop_last']", v),
                  "profile": lambda v: _args.text("state['profile']", v, 64),
                  "epoch_size": lambda v: None if v is None else _args.integer("state['epoch_size']", v, 1,
                                                                               _core.MAX_EPOCH_SIZE),
                  "mode": lambda v: _args.text("state['mode']", v, 64),
                  "dataset_size": lambda v: _args.integer("state['dataset_size']", v, 1, 2**63)}
        for key, check in checks.items():
            theirs = check(state[key])
            if theirs != mine[key]:
                raise errors.InvalidArgumentError(f"state['{key}'] is {theirs!r} but this Loader has {key}="
                                                  f"{mine[key]!r}: the state belongs to another setup")
        world_size = _args.integer("state['world_size']", state["world_size"], 1, MAX_WORLD_SIZE)
        _args.integer("state['batch_size']", state["batch_size"], 1, MAX_BATCH_SIZE)
        _args.integer("state['rank']", state["rank"], 0, world_size - 1)
        self._check_fingerprint(state["dataset_fingerprint"])
        epoch = _args.integer("state['epoch']", state["epoch"], 0, MAX_EPOCH)
        return epoch, _checked_batches(state["batch"], world_size), _checked_stages(state["resume"])

    def _check_fingerprint(self, theirs: Any) -> None:
        if theirs is not None:
            theirs = _args.text("state['dataset_fingerprint']", theirs, 16)
            if len(theirs) != 16 or any(c not in "0123456789abcdef" for c in theirs):
                raise errors.InvalidArgumentError(f"state['dataset_fingerprint'] must be 16 hex digits or None, got "
                                                  f"{theirs!r}")
        if self._fingerprint is None:
            return  # a daemon that does not send it: the size check above is all there is
        if theirs is None:
            raise errors.InvalidArgumentError("state['dataset_fingerprint'] is None (saved by a Loader that did not "
                                              "know its dataset), so it cannot be checked against this dataset")
        if theirs != self._fingerprint:
            raise errors.InvalidArgumentError(f"state['dataset_fingerprint'] is {theirs!r} but this Loader's dataset "
                                              f"is {self._fingerprint!r}: the state belongs to another dataset")

    def _pin(self) -> None:
        global _said_no_cuda
        if not torch.cuda.is_available():
            if not _said_no_cuda:
                logger.info("textfeed: CUDA is not available; batch slots stay in ordinary (pageable) memory")
                _said_no_cuda = True
            return
        feed = self._feed
        assert feed is not None  # _pin runs on an open feed
        feed.set_ring_guard(_PinnedRing(feed.ring_address(), feed.ring_bytes()))
        # A released slot is reused only after the copies queued from it on the current stream ran:
        # the feed keeps it until the event recorded as its last tensor died completes (and waits
        # for the oldest such event when every slot is out).
        feed.set_release_event(_recorded_event)
        self._pinned = True

    def _take(self, feed: Any) -> Batch:
        # OverloadedError (every slot held by batches still referenced) is the caller's to fix.
        got = None
        while got is None:
            try:
                got = feed.next(_WAIT_SLICE_MS)
            finally:
                _log.flush()  # what C++ said meanwhile (a daemon lost, then back), one wait slice late at most
        lease, epoch, index, indices = got.lease, got.epoch, got.batch, got.indices
        errs, samples, polygons = got.errors, got.samples, got.invalid_polygons
        del got  # the lease alone holds the slot now
        rows = len(indices)
        try:
            batch = Batch(torch.frombuffer(lease, dtype=dtype, count=rows * per_row, offset=offset).view(rows, *row)
                          for dtype, per_row, offset, row in self._views)
        except BaseException:
            # A traceback keeps this frame, and so its locals, alive for as long as the exception is
            # kept (pytest, a logger, sys.last_traceback): the slot must not stay with it.
            del lease
            raise
        batch.names = self._names
        batch.epoch, batch.batch, batch.indices = epoch, index, list(indices)
        starts = self._source_starts
        batch.sources = [bisect.bisect_right(starts, i) - 1 for i in batch.indices]
        batch.source_indices = [i - starts[s] for i, s in zip(batch.indices, batch.sources)]
        batch.errors = [SampleError(e.index, e.replaced_by, e.code, e.message) for e in errs]
        lost = {e.index for e in batch.errors if e.replaced_by == e.index}
        batch.missing = [i in lost for i in batch.indices]
        batch.invalid_polygons = polygons
        batch.image_ids = batch.original_sizes = batch.scales = batch.polygons = batch.ignore = None
        if samples is not None:
            batch.image_ids = [s.image_id for s in samples]
            batch.original_sizes = [s.original_size for s in samples]
            batch.scales = [s.scale for s in samples]
            batch.polygons = [s.polygons for s in samples]
            batch.ignore = [s.ignore for s in samples]
        for e in batch.errors:
            if e.replaced_by != e.index:
                logger.warning("textfeed: sample %d replaced by %d in epoch %d batch %d: %s", e.index,
                               e.replaced_by, epoch, index, e.message)
            elif e.index not in self._said_missing:  # eval's report: once per image, not per pass
                self._said_missing.add(e.index)
                logger.warning("textfeed: sample %d missing from epoch %d batch %d (its row is blank, "
                               "Batch.missing marks it): %s", e.index, epoch, index, e.message)
        return batch


# help(), pydoc and inspect show the signature of __init__, which the metaclass's __call__ (which
# takes *args, **kwargs to recognise the endpoint given first) would otherwise hide.
setattr(Loader, "__signature__", inspect.signature(Loader.__init__).replace(
    parameters=list(inspect.signature(Loader.__init__).parameters.values())[1:]))
