"""textfeed.Loader: EAST training batches for a PyTorch loop, in place of ``DataLoader``.

Without an endpoint the C++ pipeline runs inside this process on a pool of worker threads
(embedded mode); with one, batches come from ``textfeed serve`` (one stream per DDP rank), written
straight into this process's shared memory when the daemon is on the same host. Either way the
batches are the same bytes for the same seed, and each is a tuple of torch tensors
``(img, gt_score_map, gt_geo_map, roi_mask)`` in a ring of slots allocated once (page-locked for
CUDA when it is there), valid for as long as you keep any of them.
"""

from __future__ import annotations

import collections
import gc
import logging
import os
import socket
from typing import Any, Deque, Dict, Iterator, List, NamedTuple, Optional, Tuple

import torch

from . import _core, errors

__all__ = ["Batch", "Loader", "SampleError"]

logger = logging.getLogger("textfeed")

PROFILES = ("upstage", "sakura")
_DTYPES = {"float32": torch.float32, "uint8": torch.uint8}
_STATE_VERSION = 1
_WAIT_SLICE_MS = 100  # next() waits in slices like this, so Ctrl-C is seen between them
_said_no_cuda = False


class SampleError(NamedTuple):
    """A sample that could not be read: ``replaced_by`` was written in its place (``skip``)."""

    index: int
    replaced_by: int
    code: str
    message: str


class Batch(tuple):
    """``(img, gt_score_map, gt_geo_map, roi_mask)``, unpacked like the reference loaders' tuples.

    Also carries where it came from: ``epoch``, ``batch`` (index within the epoch), ``indices``
    (dataset index of each row) and ``errors`` (bad samples replaced in this batch).
    """

    epoch: int
    batch: int
    indices: List[int]
    errors: List[SampleError]

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


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _distributed_defaults(rank: Optional[int], world_size: Optional[int]) -> Tuple[int, int]:
    import torch.distributed as dist

    initialized = dist.is_available() and dist.is_initialized()
    if rank is None:
        rank = dist.get_rank() if initialized else 0
    if world_size is None:
        world_size = dist.get_world_size() if initialized else 1
    return rank, world_size


class Loader:
    """Batches of augmented EAST samples and their targets, in place of ``torch.utils.data.DataLoader``.

    Args:
        endpoint: ``textfeed serve``'s endpoint (``ipc:///tmp/textfeed.sock``, ``tcp://host:port``);
            None runs the pipeline in this process (``dataset`` is then a path).
        dataset: with an endpoint, a dataset NAME the daemon serves; else a dataset folder
            (ICDAR-2015), a UFO ``.json`` or a cache file from ``textfeed cache build``.
        batch_size: samples per batch.
        profile: ``"upstage"`` (Upstage/boostcamp baseline) or ``"sakura"`` (SakuraRiven/EAST).
        seed: every random draw of sample i in epoch e comes from (seed, e, i).
        rank, world_size: this process's shard (``DistributedSampler`` semantics); default to
            ``torch.distributed`` when it is initialized, else 0 and 1.
        shuffle: a new permutation per epoch; drop_last: drop the uneven tail and the short batch.
        dtype: ``"float32"`` (normalized, as the references) or ``"uint8"`` (normalize on the GPU).
        pin_memory: page-lock the slots for CUDA when CUDA is available. A slot is refilled only
            after the copies queued from its tensors on the current CUDA stream and device have run
            (copies on other streams must be synchronized by the caller before dropping them).
        prefetch: slots in the ring, allocated once: batches produced ahead plus the ones you
            still hold (a ``for`` loop holds one while it asks for the next). At least 2.
        threads: embedded mode's worker threads (default: one per core).
        on_bad_sample: ``"skip"`` (write a deterministic replacement, report it) or ``"fail"``.
        transport: remote mode: ``"auto"`` (shared memory on this host), ``"shm"``, ``"frames"``.
        timeout: seconds to wait for the daemon's first answer.
        daemon_timeout, reconnect_timeout: seconds of silence after which the daemon is gone, and
            how long to try to reconnect (resuming at the first batch not delivered).
        curve_server_key, curve_client_key: key files for a tcp daemon with CURVE (``textfeed keygen``).
        image_size, crop_size, map_scale, **options: augmentation options changed from the profile
            (``textfeed._core.option_names()`` lists them; unknown names raise TypeError).
    """

    def __init__(self, endpoint: Optional[str] = None, *, dataset: str, batch_size: int,
                 profile: str = "upstage", seed: int = 0, rank: Optional[int] = None,
                 world_size: Optional[int] = None, shuffle: bool = True, drop_last: bool = False,
                 dtype: str = "float32", pin_memory: bool = True, prefetch: int = 4,
                 threads: Optional[int] = None, on_bad_sample: str = "skip", transport: str = "auto",
                 timeout: float = 10.0, daemon_timeout: float = 10.0, reconnect_timeout: float = 60.0,
                 curve_server_key: Optional[str] = None, curve_client_key: Optional[str] = None,
                 image_size: Optional[int] = None, crop_size: Optional[int] = None,
                 map_scale: Optional[float] = None, **options: Any) -> None:
        self._feed: Optional[Any] = None  # set last: close() and __del__ work on a half-made Loader
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise errors.InvalidArgumentError(f"batch_size must be a positive int, got {batch_size!r}")
        if profile not in PROFILES:
            raise errors.InvalidArgumentError(f"profile must be one of {PROFILES}, got {profile!r}")
        if dtype not in _DTYPES:
            raise errors.InvalidArgumentError(f"dtype must be one of {tuple(_DTYPES)}, got {dtype!r}")
        if not isinstance(prefetch, int) or not 2 <= prefetch <= 64:
            raise errors.InvalidArgumentError(f"prefetch must be an int in 2..64, got {prefetch!r}")
        if on_bad_sample not in ("skip", "fail"):
            raise errors.InvalidArgumentError(f"on_bad_sample must be 'skip' or 'fail', got {on_bad_sample!r}")
        known = {n.strip() for n in _core.option_names().split(",")}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"Loader() got unknown augmentation option(s) {unknown}; known: {sorted(known)}")
        overrides = {k: _option_text(v) for k, v in options.items()}
        for name, value in (("image_size", image_size), ("crop_size", crop_size), ("map_scale", map_scale)):
            if value is not None:
                overrides[name] = _option_text(value)
        rank, world_size = _distributed_defaults(rank, world_size)
        self._seed, self._batch_size = seed, batch_size
        self._rank, self._world_size = rank, world_size
        self._shuffle, self._drop_last, self._profile = shuffle, drop_last, profile
        self._endpoint, self._dataset = endpoint, dataset
        self._epoch, self._next = 0, 0  # position: batch `_next` of epoch `_epoch` comes next
        self._placed = True  # the next iteration starts at the position as it is (else: next epoch)
        self._fences: Deque[Tuple[Any, List[int]]] = collections.deque()
        self._pinned = False
        common = dict(profile=profile, overrides=overrides, seed=seed, batch_size=batch_size, rank=rank,
                      world_size=world_size, shuffle=shuffle, drop_last=drop_last, dtype=dtype,
                      on_bad_sample=on_bad_sample, prefetch=prefetch, epoch=0, batch=0)
        if endpoint is None:
            feed = _core.open_embedded(dataset=str(dataset), threads=threads or 0, **common)
        else:
            name = f"{socket.gethostname()} pid {os.getpid()} rank {rank}/{world_size}"
            feed = _core.open_remote(endpoint=endpoint, dataset=str(dataset), transport=transport,
                                     client_name=name, timeout_s=timeout, daemon_timeout_s=daemon_timeout,
                                     reconnect_timeout_s=reconnect_timeout,
                                     curve_server_key=str(curve_server_key or ""),
                                     curve_client_key=str(curve_client_key or ""), **common)
        layout = feed.layout()
        # Per tensor: dtype, elements per row, byte offset in the slot, shape of a row.
        self._views = []
        for _name, dtype, shape, offset, sample_bytes in layout["tensors"]:
            torch_dtype = _DTYPES[dtype]
            per_row = sample_bytes // torch.empty((), dtype=torch_dtype).element_size()
            self._views.append((torch_dtype, per_row, offset, tuple(shape[1:])))
        self._batches_per_epoch = int(layout["batches_per_epoch"])
        self._dataset_size = int(layout["dataset_size"])
        self._feed = feed
        if pin_memory:
            self._pin()

    # ------------------------------------------------------------------ the DataLoader surface

    def __len__(self) -> int:
        """Batches per epoch for this rank (equal for every rank)."""
        return self._batches_per_epoch

    def set_epoch(self, epoch: int) -> None:
        """The epoch the next iteration runs (as ``DistributedSampler.set_epoch``). Without it, each
        iteration runs the epoch after the previous one's (epoch 0 first), as ``RandomSampler`` draws a
        new order each time."""
        self._epoch, self._next, self._placed = int(epoch), 0, True

    def __iter__(self) -> Iterator[Batch]:
        """The batches of one epoch: the one set_epoch() named, or where load_state_dict() resumes, or
        else the epoch after the previous iteration's."""
        feed = self._live_feed()
        if not self._placed:
            self._epoch, self._next = self._epoch + 1, 0
        self._placed = False
        epoch, start = self._epoch, self._next
        feed.seek(epoch, start)  # free when the batches produced ahead are the ones wanted
        for k in range(start, self._batches_per_epoch):
            batch = self._take(feed)
            if (batch.epoch, batch.batch) != (epoch, k):
                raise errors.InternalError(f"expected epoch {epoch} batch {k}, got epoch {batch.epoch} "
                                           f"batch {batch.batch}")
            self._epoch, self._next = epoch, k + 1
            yield batch
        self._epoch, self._next, self._placed = epoch + 1, 0, True

    def state_dict(self) -> Dict[str, Any]:
        """Where the iteration stands: a Loader given this resumes with exactly the next batch."""
        return {"version": _STATE_VERSION, "epoch": self._epoch, "batch": self._next, "seed": self._seed,
                "batch_size": self._batch_size, "rank": self._rank, "world_size": self._world_size,
                "shuffle": self._shuffle, "drop_last": self._drop_last, "profile": self._profile,
                "dataset_size": self._dataset_size}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Resumes at the position of :meth:`state_dict`; the next iteration yields the remaining
        batches of that epoch. Raises InvalidArgumentError if the state belongs to another setup."""
        if state.get("version") != _STATE_VERSION:
            raise errors.InvalidArgumentError(f"state version {state.get('version')!r} is not {_STATE_VERSION}")
        mine = self.state_dict()
        for key in ("seed", "batch_size", "world_size", "shuffle", "drop_last", "profile", "dataset_size"):
            if state.get(key) != mine[key]:
                raise errors.InvalidArgumentError(
                    f"the state was saved with {key}={state.get(key)!r}; this Loader has {mine[key]!r}")
        batch = int(state["batch"])
        if not 0 <= batch <= self._batches_per_epoch:
            raise errors.InvalidArgumentError(f"batch {batch} is outside an epoch of {self._batches_per_epoch}")
        self._epoch, self._next, self._placed = int(state["epoch"]), batch, True
        if self._next == self._batches_per_epoch:
            self._epoch, self._next = self._epoch + 1, 0

    def stats(self) -> Dict[str, Any]:
        """Batches and samples delivered, samples/s, seconds spent waiting, slots in flight and held,
        skipped samples, reconnects; in embedded mode also ms per sample for each pipeline stage."""
        s = dict(self._live_feed().stats())
        s["samples_per_second"] = s["samples"] / s["elapsed_seconds"] if s["elapsed_seconds"] > 0 else 0.0
        s["mode"] = "embedded" if self._endpoint is None else "remote"
        s["pinned"] = self._pinned
        return s

    def close(self) -> None:
        """Stops producing (closes the daemon stream). Tensors already handed out stay valid."""
        feed, self._feed = self._feed, None
        if feed is not None:
            feed.close()

    def __enter__(self) -> "Loader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    # ------------------------------------------------------------------ internals

    def _live_feed(self) -> Any:
        if self._feed is None:
            raise errors.CancelledError("this Loader is closed")
        return self._feed

    def _pin(self) -> None:
        global _said_no_cuda
        if not torch.cuda.is_available():
            if not _said_no_cuda:
                logger.info("textfeed: CUDA is not available; batch slots stay in ordinary (pageable) memory")
                _said_no_cuda = True
            return
        feed = self._feed
        feed.set_ring_guard(_PinnedRing(feed.ring_address(), feed.ring_bytes()))
        # A released slot is reused only after the copies queued from it on the current stream ran.
        feed.defer_releases(True)
        self._pinned = True

    def _recycle(self, wait: bool = False) -> None:
        """Hands slots whose tensors are gone back to the ring (after their CUDA copies, if pinned).

        A fence is an event recorded on the current stream of the current device after the slots'
        tensors were dropped: copies queued from them there (``.cuda(non_blocking=True)`` after
        ``torch.cuda.set_device(local_rank)``, as DDP scripts do) have run when it completes.
        """
        if not self._pinned:
            return
        feed = self._feed
        pending = feed.take_pending()
        if pending:
            event = torch.cuda.Event()
            event.record()
            self._fences.append((event, pending))
        while self._fences and (self._fences[0][0].query() or wait):
            event, slots = self._fences.popleft()
            event.synchronize()
            feed.release_slots(slots)
            wait = False

    def _take(self, feed: Any) -> Batch:
        retried = False
        while True:
            self._recycle()
            try:
                got = feed.next(_WAIT_SLICE_MS)
            except errors.OverloadedError:
                if retried:
                    raise
                gc.collect()  # tensors in reference cycles may be all that holds the slots
                self._recycle(wait=True)
                retried = True
                continue
            if got is not None:
                break
        lease, epoch, index, indices, errs = got
        rows = len(indices)
        batch = Batch(torch.frombuffer(lease, dtype=dtype, count=rows * per_row, offset=offset).view(rows, *row)
                      for dtype, per_row, offset, row in self._views)
        batch.epoch, batch.batch, batch.indices = epoch, index, list(indices)
        batch.errors = [SampleError(*e) for e in errs]
        for e in batch.errors:
            logger.warning("textfeed: sample %d replaced by %d in epoch %d batch %d: %s", e.index, e.replaced_by,
                           epoch, index, e.message)
        return batch
