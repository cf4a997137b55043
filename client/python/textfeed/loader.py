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
import math
import numbers
import os
import socket
from collections.abc import Iterable, Mapping
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np
import torch

from . import _args, _core, _dataloader, _log, errors
from .sources import Source, source_specs

__all__ = ["Batch", "Loader", "SampleError", "gather_states"]

logger = logging.getLogger("textfeed")

_DTYPES = {"float32": torch.float32, "uint8": torch.uint8}  # by the layout's dtype names
# 2: the state names its dataset (dataset_fingerprint); 3: elastic resume; 4: epoch_size and mode
_STATE_VERSION = 4
# The bounds C++ checks too (loader/spec.h, client/feed.h), from the one place they are defined.
MAX_BATCH_SIZE = _core.MAX_BATCH_SIZE  # as the daemon's
MAX_WORLD_SIZE = _core.MAX_WORLD_SIZE
MAX_PREFETCH = _core.MAX_PREFETCH
# The feeds take 1 slot, but a ``for`` loop holds the batch it was given while it asks for the next
# (the loop variable is rebound only once the next one arrives): with one slot, the second batch
# could never be made. Two is the least a loop can run on.
MIN_PREFETCH = 2
MAX_EPOCH = 2**63 - 1
MAX_SEED = 2**64 - 1
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


def _pipeline_arguments(*, batch_size: Any, profile: Any, seed: Any, rank: Any, world_size: Any, shuffle: Any,
                        drop_last: Any, dtype: Any, prefetch: Any, on_bad_sample: Any, mode: Any,
                        return_polygons: Any) -> Dict[str, Any]:
    """The keywords of the pipeline and the sampler, checked; enums as _core's members. No
    on_bad_sample: the mode's default (eval: fail, training: skip)."""
    mode = _args.enum("mode", mode, _core.Mode)
    if on_bad_sample is None:
        on_bad_sample = _core.default_on_bad_sample(mode)
    return dict(batch_size=_args.integer("batch_size", batch_size, 1, MAX_BATCH_SIZE),
                profile=_args.enum("profile", profile, _core.Profile),
                seed=_args.integer("seed", seed, 0, MAX_SEED),
                rank=_args.optional_integer("rank", rank, 0, MAX_WORLD_SIZE - 1),
                world_size=_args.optional_integer("world_size", world_size, 1, MAX_WORLD_SIZE),
                shuffle=_args.boolean("shuffle", shuffle), drop_last=_args.boolean("drop_last", drop_last),
                dtype=_args.enum("dtype", dtype, _core.DType),
                prefetch=_args.integer("prefetch", prefetch, MIN_PREFETCH, MAX_PREFETCH),
                on_bad_sample=_args.enum("on_bad_sample", on_bad_sample, _core.OnBadSample),
                mode=mode,
                return_polygons=_args.boolean("return_polygons", return_polygons))


def _augment_overrides(image_size: Any, crop_size: Any, map_scale: Any, options: Dict[str, Any]) -> Dict[str, str]:
    """The augmentation options changed from the profile, as the text C++ parses (and validates)."""
    known = {n.strip() for n in _core.option_names().split(",")}
    unknown = sorted(set(options) - known)
    if unknown:
        keywords = inspect.signature(Loader.__init__).parameters
        raise _dataloader.unknown_keywords_error(unknown, known | {k for k in keywords if k not in ("self", "options")})
    overrides = {k: _args.option_value(k, v) for k, v in options.items()}
    # Their types are checked here, their bounds by the recipe's table (one message at every edge).
    for name, value in (("image_size", image_size), ("crop_size", crop_size)):
        if value is not None:
            overrides[name] = str(_args.integer(name, value, -(2**31), 2**31 - 1))
    if map_scale is not None:
        overrides["map_scale"] = repr(_args.real("map_scale", map_scale, -math.inf, math.inf))
    return overrides


def _pipeline_spec(sources: List[Any], common: Dict[str, Any], overrides: Dict[str, str]) -> Any:
    """The one _core.PipelineSpec of a Loader, checked as a whole (validate()), for either opener."""
    spec = _core.PipelineSpec(common["profile"])
    spec.sources = sources
    spec.on_bad_sample = common["on_bad_sample"]
    spec.mode = common["mode"]
    spec.return_polygons = common["return_polygons"]
    spec.dtype = common["dtype"]
    for name, value in overrides.items():
        spec.set_option(name, value)
    sampler = _core.SamplerOptions()
    for key in ("seed", "batch_size", "rank", "world_size", "shuffle", "drop_last", "epoch_size"):
        setattr(sampler, key, common[key])
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


def _daemon_arguments(transport: Any, **seconds: Any) -> Dict[str, Any]:
    """The transport and the timeouts (each a finite number of seconds in (0, a day]) as _core takes them."""
    limit = _core.MAX_TIMEOUT_SECONDS
    out: Dict[str, Any] = {"transport": _args.enum("transport", transport, _core.Transport)}
    for name, value in seconds.items():
        out[f"{name}_s"] = _args.real(name, value, 0, limit, lo_open=True)
    return out


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


def _server_keys(value: Any, endpoints: List[str]) -> List[bytes]:
    """curve_server_key for a list of endpoints: None, one file for every tcp endpoint (for the
    one endpoint of a list of one, whatever it is), or one per endpoint (None where that daemon
    takes no CURVE, e.g. ipc)."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        if len(value) != len(endpoints):
            raise errors.InvalidArgumentError(f"curve_server_key lists {len(value)} files for {len(endpoints)} "
                                              "endpoints: one each (None for a daemon without CURVE)")
        return [b"" if v is None else _args.path(f"curve_server_key[{i}]", v) for i, v in enumerate(value)]
    key = _args.path("curve_server_key", value)
    return [key if e.startswith("tcp://") or len(endpoints) == 1 else b"" for e in endpoints]


_PAYLOADS = ("full", "compact")


def _multi_opener(endpoints: List[str], transport: Any, timeout: Any, daemon_timeout: Any, reconnect_timeout: Any,
                  stall_timeout: Any, server_key: Any, client_key: Any, local_threads: Any, payload: Any) -> Any:
    """_core.open_multi with the arguments of a feed of daemons checked and bound."""
    return functools.partial(
        _core.open_multi, endpoints,
        **_daemon_arguments(transport, timeout=timeout, daemon_timeout=daemon_timeout,
                            reconnect_timeout=reconnect_timeout, stall_timeout=stall_timeout),
        curve_server_keys=_server_keys(server_key, endpoints),
        curve_client_key=b"" if client_key is None else _args.path("curve_client_key", client_key),
        local_threads=0 if local_threads is None else _args.integer("local_threads", local_threads, 1,
                                                                    _core.MAX_WORKER_THREADS),
        payload=_args.choice("payload", payload, _PAYLOADS))


def _shard(rank: Optional[int], world_size: Optional[int]) -> Tuple[int, int]:
    """rank and world_size, from torch.distributed where not given, checked together."""
    rank, world_size = _distributed_defaults(rank, world_size)
    rank = _args.integer("rank", rank, 0, MAX_WORLD_SIZE - 1)
    world_size = _args.integer("world_size", world_size, 1, MAX_WORLD_SIZE)
    if rank >= world_size:
        raise errors.InvalidArgumentError(f"rank must be in 0..world_size-1, got rank {rank} of {world_size}")
    return rank, world_size


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


class Loader:
    """Batches of augmented EAST samples and their targets, in place of ``torch.utils.data.DataLoader``.

    Every argument is checked before anything starts: a wrong type raises
    :class:`textfeed.errors.ArgumentTypeError` (a ``TypeError``), a wrong value
    :class:`textfeed.errors.InvalidArgumentError` (a ``ValueError``), naming the argument. ints are
    ints (never bools), numbers are finite.

    Args:
        endpoint: ``textfeed serve``'s endpoint (``ipc:///tmp/textfeed.sock``, ``tcp://host:port``);
            None runs the pipeline in this process (``dataset`` is then a path). A list of endpoints
            feeds this rank from all of those daemons at once (and from ``local_threads``): each
            batch is made by whichever has room, and delivered in order; a daemon that dies or
            stalls has its batches made by the others, and rejoins when it comes back
            (docs/design.md "Several producers"). One endpoint is the list of one: ``"x"`` and
            ``["x"]`` are the same feed. ``prefetch`` is per producer; the ring holds
            ``prefetch * producers + 1`` slots, and ``prefetch`` more with several producers.
        dataset: with an endpoint, a dataset NAME the daemon serves; else a dataset folder
            (ICDAR-2015), a UFO ``.json``, a cache file from ``textfeed cache build`` or a manifest of
            shard files from ``textfeed cache merge``, as a str or ``os.PathLike``.
        batch_size: samples per batch, 1..4096.
        profile: :class:`textfeed.Profile` or its name: ``"upstage"`` (Upstage/boostcamp baseline),
            ``"sakura"`` (SakuraRiven/EAST), ``"bc7"`` (the 7th-generation boostcamp baseline:
            upstage with albumentations 1.4.12 ``ColorJitter()``) or ``"db"`` (PaddleOCR's DB
            detection chain: batches ``(image, threshold_map, threshold_mask, shrink_map,
            shrink_mask)``; ``total_epochs=N`` grows the shrink ratio with the epoch). Every enum
            keyword takes the member or its name.
        seed: every random draw of sample i in epoch e comes from (seed, e, i); 0..2**64-1.
        rank, world_size: this process's shard (``DistributedSampler`` semantics); default to
            ``torch.distributed`` when it is initialized, else 0 and 1. 0 <= rank < world_size <= 2**20.
        shuffle: a new permutation per epoch; drop_last: drop the uneven tail and the short batch.
        dtype: :class:`textfeed.DType`: ``"float32"`` (normalized, as the references) or
            ``"uint8"`` (normalize on the GPU).
        pin_memory: page-lock the slots for CUDA when CUDA is available. A slot is refilled only
            after the copies queued from its tensors on the current CUDA stream and device have run
            (copies on other streams must be synchronized by the caller before dropping them).
        prefetch: slots in the ring, allocated once: batches produced ahead plus the ones you
            still hold (a ``for`` loop holds one while it asks for the next, hence at least 2).
            2..``textfeed.loader.MAX_PREFETCH`` (64).
        threads: embedded mode's worker threads: None or 0 for one per core, else
            1..``textfeed._core.MAX_WORKER_THREADS`` (1024; the bound of every textfeed command).
        on_bad_sample: :class:`textfeed.OnBadSample`, what a sample that cannot be used does.
            Training: ``"skip"`` (the default: write a deterministic replacement, report it in
            ``errors``) or ``"fail"``. Eval never replaces an image: ``"fail"`` (the default: the
            Loader refuses to start when an image cannot be placed on the canvas (sakura, whose
            scan also finds files that cannot be read), and a batch raises at an image that cannot
            be read) or ``"report"`` (the row is left blank and
            marked in ``Batch.missing``, with its image id, words and reason, so that a metric can
            count its words as missed).
        transport: remote mode, :class:`textfeed.Transport`: ``"auto"`` (shared memory when the daemon offers it: its ipc://
            endpoint; frames over tcp), ``"shm"`` (insist), ``"frames"``.
        timeout: seconds to wait for the daemon's first answer.
        daemon_timeout, reconnect_timeout: seconds of silence after which the daemon is gone, and
            how long to try to reconnect (resuming at the first batch not delivered). Every timeout
            is a finite number of seconds > 0 and at most a day (86400).
        curve_server_key, curve_client_key: key files for a tcp daemon with CURVE (``textfeed keygen``).
        image_size, crop_size, map_scale, **options: augmentation options changed from the profile
            (``textfeed._core.option_names()`` lists them; unknown names raise TypeError). The
            colour ranges take a ``(lo, hi)`` pair or one number: ``brightness=(0.8, 1.0)``.
        ignore_text, ignore_tags, poly_policy, ignore_under_area, images_dir, illegibility, split, format:
            the dataset reader's options; None keeps the default. ignore_text (:class:`textfeed.IgnoreText`):
            ``"substring"`` (a ``###`` anywhere marks an ICDAR word ignored, the default) or
            ``"exact"``; ignore_tags: UFO words with any of these tags are background (default
            ``["masked", "excluded-region", "maintable", "stamp"]``, at most 256); poly_policy
            (:class:`textfeed.PolyPolicy`): a UFO word of more than 4 points is ``"skip"``-ped
            (the default), replaced by its ``"minrect"``, or that with label 0 (``"mask-ignore"``);
            ignore_under_area: UFO words below this hull area (px², 0..1e12) are ignored, 0 = off;
            images_dir: the images folder below the dataset root (relative, default
            ``"images"``; a UFO json looks in ``img/<split>/`` first); illegibility
            (:class:`textfeed.Illegibility`): a UFO word marked illegible is ``"ignore"``-d
            (label 0, the default) or the flag is not read and every word is ``"valid"``;
            split: the annotation file a dataset folder reads, ``ufo/<split>.json`` or every
            ``<x>_receipt/ufo/<split>.json`` merged (default ``"train"``; e.g. ``"val"``); format
            (:class:`textfeed.ReaderFormat`): the annotation format, ``"auto"`` (detected, the
            default), ``"icdar15"``, ``"ufo"``, ``"totaltext"``, ``"ctw1500"``, ``"paddle"``
            (PaddleOCR label file) or ``"mmocr"`` (docs/dataset_layouts.md). A daemon
            reads its datasets with the options it was started with and refuses others.
        mode: :class:`textfeed.Mode`: ``"train"`` (augmented crops and targets) or ``"eval"``: no
            random augmentation, the profile's inference preprocessing (upstage: long side resized
            to ``image_size``, padded at the bottom and right to ``image_size`` square, ImageNet
            normalization; sakura: each side floored to a multiple of 32, placed at the top left of
            an ``image_size`` square canvas), dataset order, every sample exactly once over the
            ranks (the later ranks may get one sample fewer, so ``len()`` may differ by one between
            ranks; shuffle and drop_last are ignored). db: PaddleOCR's ``DetResizeForTest``
            (longer side limited to ``image_size``, sides rounded to multiples of 32; image_size a
            multiple of 32), top left on a black square, BGR planes. Every profile needs
            ``image_size`` (the canvas side). Eval batches hold the image only, and per sample
            ``image_ids``, ``original_sizes``, ``scales``, ``polygons`` and ``ignore``, and
            ``missing`` (docs/design.md "Evaluation batches"). No image is ever replaced in eval
            (see ``on_bad_sample``).
        return_polygons: training mode: each batch also carries every sample's polygons after the
            augmentation, in crop pixels (``polygons``, ``ignore``).
        local_threads: with an endpoint, this process's own worker threads as one more
            producer (1..MAX_WORKER_THREADS); None: none. They read ``local_dataset`` (what
            ``dataset`` takes in embedded mode; default: the daemons' dataset names taken as
            paths), which must be the daemons' dataset (its fingerprint is checked).
        stall_timeout: with several producers, seconds a daemon may hold the batch the training
            waits for before it is taken for lost (its batches go to the others) though it still
            answers.
        payload: with an endpoint, ``"full"`` or ``"compact"``: the daemons send each
            batch's warped uint8 crops (before the colour jitter), colour draws and words, and this
            process's producer threads run the colour jitter, the normalization and the targets
            (about a quarter of the bytes on the network for upstage; the same batches, byte for
            byte; training with an EAST profile, as frames).
        curve_server_key with a list of endpoints: one file for every tcp endpoint (the one
            endpoint's whatever it is), or a list with one per endpoint (None for a daemon without
            CURVE).

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
    ``num_workers=`` and ``prefetch_factor=`` are refused with the Loader's keyword (``threads=``,
    ``prefetch=``), and a misspelt keyword with the nearest ones.

    Log lines: what the C++ side says (where a dataset's images are, records a reader left out, a
    daemon lost and back) goes to ``logging.getLogger("textfeed")`` at its level, so the script's
    logging configuration governs it (``logging.basicConfig(level=logging.INFO)`` shows the info
    lines; Python's default shows warnings and errors only). Lines from C++ threads reach the logger
    at the Loader's next call (while it waits for a batch, within 100 ms).
    """

    def __init__(self, endpoint: Optional[str] = None, *, dataset: Any, batch_size: int,
                 profile: Any = "upstage", seed: int = 0, rank: Optional[int] = None,
                 world_size: Optional[int] = None, shuffle: bool = True, drop_last: bool = False,
                 dtype: Any = "float32", pin_memory: bool = True, prefetch: int = 4,
                 threads: Optional[int] = None, on_bad_sample: Any = None, transport: Any = "auto",
                 timeout: float = 10.0, daemon_timeout: float = 10.0, reconnect_timeout: float = 60.0,
                 curve_server_key: Optional[Any] = None, curve_client_key: Optional[Any] = None,
                 image_size: Optional[int] = None, crop_size: Optional[int] = None,
                 map_scale: Optional[float] = None, ignore_text: Any = None,
                 ignore_tags: Optional[Iterable[str]] = None, poly_policy: Any = None,
                 ignore_under_area: Optional[float] = None, images_dir: Optional[str] = None,
                 illegibility: Any = None, split: Optional[str] = None, format: Any = None,
                 epoch_size: Optional[int] = None,
                 mode: Any = "train", return_polygons: bool = False, local_threads: Optional[int] = None,
                 local_dataset: Any = None, stall_timeout: float = 30.0, payload: str = "full",
                 **options: Any) -> None:
        # First: close() and __del__ work on a Loader whose __init__ raised.
        self._pid = os.getpid()
        self._feed: Optional[Any] = None
        self._pinned = False
        self._said_missing: set = set()  # eval rows reported missing that were logged
        endpoint = _endpoints(endpoint)
        if endpoint is None and (local_threads is not None or local_dataset is not None):
            raise errors.InvalidArgumentError("local_threads and local_dataset go with an endpoint: this "
                                              "process's threads as one more producer beside the daemons")
        payload = _args.choice("payload", payload, _PAYLOADS)
        if endpoint is None and payload != "full":
            raise errors.InvalidArgumentError("payload='compact' goes with an endpoint: the daemons send it")
        if local_dataset is not None and local_threads is None:
            raise errors.InvalidArgumentError("local_dataset without local_threads: give both")
        common = _pipeline_arguments(batch_size=batch_size, profile=profile, seed=seed, rank=rank,
                                     world_size=world_size, shuffle=shuffle, drop_last=drop_last, dtype=dtype,
                                     prefetch=prefetch, on_bad_sample=on_bad_sample, mode=mode,
                                     return_polygons=return_polygons)
        overrides = _augment_overrides(image_size, crop_size, map_scale, options)
        reader = dict(ignore_text=ignore_text, ignore_tags=ignore_tags, poly_policy=poly_policy,
                      ignore_under_area=ignore_under_area, images_dir=images_dir, illegibility=illegibility,
                      split=split, format=format)
        pin_memory = _args.boolean("pin_memory", pin_memory)
        if endpoint is None:
            _dataloader.refuse_endpoint_as_dataset(dataset)
        # Each argument is checked whichever mode uses it: a wrong one is wrong in both.
        sources, weighted = source_specs(dataset, common["profile"], reader,
                                         _args.path if endpoint is None else _args.text)
        common["epoch_size"] = _args.integer("epoch_size", 0 if epoch_size is None else epoch_size, 0,
                                             _core.MAX_EPOCH_SIZE)
        if epoch_size is not None and not weighted:
            raise errors.InvalidArgumentError("epoch_size applies to weighted sources (Source(path, weight=...)); "
                                              "without weights an epoch is every sample once")
        threads = _thread_count(threads)
        # One endpoint is a list of one: the same feed either way. Checked in embedded mode too.
        endpoints = [] if endpoint is None else [endpoint] if isinstance(endpoint, str) else endpoint
        opener = _multi_opener(endpoints, transport, timeout, daemon_timeout, reconnect_timeout, stall_timeout,
                               curve_server_key, curve_client_key, local_threads, payload)
        if endpoint is None:
            opener = functools.partial(_core.open_embedded, threads=threads)
        common["rank"], common["world_size"] = _shard(common["rank"], common["world_size"])
        spec = _pipeline_spec(sources, common, overrides)
        if endpoint is not None:
            # The local threads read paths: local_dataset, or the daemons' dataset names taken as paths.
            local_spec = None
            if local_threads is not None:
                local, _ = source_specs(dataset if local_dataset is None else local_dataset, common["profile"],
                                        reader, _args.path)
                local_spec = _pipeline_spec(local, common, overrides)
            opener = functools.partial(opener, local_spec=local_spec)
        self._seed, self._batch_size = common["seed"], common["batch_size"]
        self._rank, self._world_size = common["rank"], common["world_size"]
        self._shuffle, self._drop_last = common["shuffle"], common["drop_last"]
        self._profile = common["profile"].text  # a state_dict() names it as text
        self._endpoint = endpoint
        self._resume: Tuple[int, List[Any]] = (0, [])  # the elastic resume the feed was opened with
        self._epoch, self._next = 0, 0  # position: batch `_next` of epoch `_epoch` comes next
        self._placed = True  # the next iteration starts at the position as it is (else: next epoch)
        # (epoch, batch) of the last load_state_dict() while no iteration ran since, else None.
        self._loaded_position: Optional[Tuple[int, int]] = None
        self._generation = 0  # of the newest iterator; an older one raises when advanced
        self._superseded_by = ""  # what ended the iterators before the newest, for their message
        if endpoint is not None:
            opener = functools.partial(opener, client_name=f"{socket.gethostname()} pid {os.getpid()} rank "
                                                           f"{self._rank}/{self._world_size}")
        self._spec, self._prefetch, self._pin_memory = spec, common["prefetch"], pin_memory
        self._opener = functools.partial(opener, prefetch=common["prefetch"])
        self._open(0)

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
        self._names = tuple(str(t[0]) for t in layout["tensors"])
        for name, dtype, shape, offset, sample_bytes in layout["tensors"]:
            torch_dtype = _DTYPES[dtype]
            per_row = sample_bytes // torch.empty((), dtype=torch_dtype).element_size()
            row = tuple(shape[1:])
            if self._profile == "db" and name != "image" and row[0] == 1:
                row = row[1:]  # PaddleOCR's maps are [B, H, W]: a [B, 1, H, W] map would broadcast in its loss
            self._views.append((torch_dtype, per_row, offset, row))
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
                "shuffle": self._shuffle, "drop_last": self._drop_last, "profile": self._profile,
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
        lease, epoch, index, indices, errs, samples, polygons = got
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
        batch.errors = [SampleError(*e) for e in errs]
        lost = {e.index for e in batch.errors if e.replaced_by == e.index}
        batch.missing = [i in lost for i in batch.indices]
        batch.invalid_polygons = polygons
        batch.image_ids = batch.original_sizes = batch.scales = batch.polygons = batch.ignore = None
        if samples is not None:
            batch.image_ids = [s[0] for s in samples]
            batch.original_sizes = [s[1] for s in samples]
            batch.scales = [s[2] for s in samples]
            batch.polygons = [s[3] for s in samples]
            batch.ignore = [s[4] for s in samples]
        for e in batch.errors:
            if e.replaced_by != e.index:
                logger.warning("textfeed: sample %d replaced by %d in epoch %d batch %d: %s", e.index,
                               e.replaced_by, epoch, index, e.message)
            elif e.index not in self._said_missing:  # eval's report: once per image, not per pass
                self._said_missing.add(e.index)
                logger.warning("textfeed: sample %d missing from epoch %d batch %d (its row is blank, "
                               "Batch.missing marks it): %s", e.index, epoch, index, e.message)
        return batch
