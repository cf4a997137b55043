# Types of textfeed._core, the pybind11 extension (client/python/register_*.cc): one section per
# register_*() file, in the order module.cc calls them. Keep it in step with the bindings;
# tests/python/test_stubs.py compares it with the built module.
import enum
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

__version__: str

_Text = Union[str, bytes]  # a std::string: str, or bytes such as os.fsencode's paths

# The EAST and DB targets (augment/east/python_replay.cc, augment/db/python_replay.cc)

def east_targets(
    vertices: ArrayLike,
    labels: ArrayLike,
    crop_size: int,
    map_scale: float,
    profile: str = "upstage",
    *,
    fill_rule: Optional[str] = None,
    overlap: Optional[str] = None,
    ignored_targets: Optional[str] = None,
    roi_resize: Optional[str] = None,
    fix_orientation: Optional[bool] = None,
    clamp_geo: Optional[float] = None,
    angle_error: Optional[str] = None,
) -> dict[str, NDArray[np.float32]]:
    """'score' (M, M), 'geo' (5, M, M) and 'roi' (upstage) or 'ignored' (sakura)."""

def db_targets_flat(
    xy: ArrayLike,
    ends: ArrayLike,
    ignore_tags: ArrayLike,
    canvas_hw: tuple[int, int],
    *,
    shrink_ratio: float = 0.4,
    min_text_size: float = 8.0,
    thresh_min: float = 0.3,
    thresh_max: float = 0.7,
    exact: bool = False,
) -> dict[str, NDArray[Any]]:
    """'threshold_map', 'threshold_mask', 'shrink_map', 'shrink_mask' (H, W) and 'ignore_tags' (N,)."""

def shrink_poly(quad: ArrayLike) -> NDArray[np.float64]: ...
def find_min_rect_angle(quad: ArrayLike, metric: str = "sr") -> float: ...

# The EAST replay (augment/east/python_replay.cc; warp_crop and photometric: register_geometry.cc):
# the dicts hold 'sizes', 'crop', 'tries', 'fallback', 'height_ratio', 'angle_deg', 'vertices',
# 'labels', 'matrix' (and 'draws' or 'color').

def replay_geometry(
    profile: str,
    image_w: int,
    image_h: int,
    vertices: ArrayLike,
    labels: ArrayLike,
    seed: int,
    pre_resized: bool = False,
    crop_size: Optional[int] = None,
    image_size: Optional[int] = None,
) -> dict[str, Any]: ...
def sample_params(
    profile: str,
    image_w: int,
    image_h: int,
    vertices: ArrayLike,
    labels: ArrayLike,
    seed: int,
    epoch: int,
    index: int,
) -> dict[str, Any]: ...
def warp_crop(image: ArrayLike, matrix: ArrayLike, crop_size: int) -> NDArray[np.uint8]: ...
def photometric(
    crop: ArrayLike,
    profile: str,
    seed: int,
    epoch: int,
    index: int,
    *,
    color_jitter_p: Optional[float] = None,
    color_math: Optional[str] = None,
) -> tuple[NDArray[np.float32], dict[str, Any]]: ...
def color_jitter(
    image: ArrayLike,
    seed: int,
    profile: str = "upstage",
    *,
    color_jitter_p: Optional[float] = None,
) -> tuple[NDArray[np.float32], dict[str, Any]]: ...

# The DB replay (augment/db/python_replay.cc): polygons travel flat (xy float64, ends int32; textfeed._db flattens them). The
# dicts hold 'crop_xywh', 'scale', 'out_wh', 'fallback', 'tries', 'xy', 'ends', 'ignore_tags',
# 'kept' (and 'image', or the plan's 'flip', 'angle_deg', 'resize', 'rotate_image', 'resized_wh',
# 'matrix').

def replay_db_crop(
    image_h: int,
    image_w: int,
    xy: ArrayLike,
    ends: ArrayLike,
    ignore_tags: ArrayLike,
    seed: int,
    size: int,
    max_tries: int,
    min_crop_side_ratio: float,
    image: Optional[ArrayLike] = None,
) -> dict[str, Any]: ...
def db_map_keypoints(
    xy: ArrayLike, image_w: int, image_h: int, flip: bool, angle_deg: float, resize: float
) -> tuple[NDArray[np.float64], tuple[int, int]]: ...
def db_sample_params(
    image_w: int,
    image_h: int,
    xy: ArrayLike,
    ends: ArrayLike,
    ignore_tags: ArrayLike,
    seed: int,
    epoch: int,
    index: int,
    size: int = 640,
    image: Optional[ArrayLike] = None,
) -> dict[str, Any]: ...

# register_spec.cc: the typed spec (loader/spec/spec.h). Each enum member's `text` is the name the text
# edges take ("upstage", "shm", "mask-ignore").

class Profile(enum.Enum):
    UPSTAGE = 0
    SAKURA = 1
    BC7 = 2
    DB = 3
    @property
    def text(self) -> str: ...
    @property
    def maps_without_channel_axis(self) -> bool: ...

class DType(enum.Enum):
    FLOAT32 = 0
    UINT8 = 1
    @property
    def text(self) -> str: ...

class OnBadSample(enum.Enum):
    SKIP = 0
    FAIL = 1
    REPORT = 2
    @property
    def text(self) -> str: ...

class Mode(enum.Enum):
    TRAIN = 0
    EVAL = 1
    @property
    def text(self) -> str: ...

class Transport(enum.Enum):
    AUTO = 2
    SHM = 1
    FRAMES = 0
    @property
    def text(self) -> str: ...

class IgnoreText(enum.Enum):
    SUBSTRING = 0
    EXACT = 1
    @property
    def text(self) -> str: ...

class PolyPolicy(enum.Enum):
    SKIP = 0
    MINRECT = 1
    MASK_IGNORE = 2
    @property
    def text(self) -> str: ...

class Illegibility(enum.Enum):
    IGNORE = 0
    VALID = 1
    @property
    def text(self) -> str: ...

class ReaderFormat(enum.Enum):
    AUTO = 0
    ICDAR15 = 1
    UFO = 2
    TOTALTEXT = 3
    CTW1500 = 4
    PADDLE = 5
    MMOCR = 6
    @property
    def text(self) -> str: ...

class ReaderOptions:
    ignore_text: IgnoreText
    ignore_tags: list[str]
    poly_policy: PolyPolicy
    drop_under_area: float
    ignore_under_area: float
    images_dir: str
    gt_dir: str
    illegibility: Illegibility
    split: str
    format: ReaderFormat
    def __init__(self) -> None: ...
    def __eq__(self, other: ReaderOptions) -> bool: ...  # type: ignore[override]

class SourceSpec:
    reader: ReaderOptions
    weight: float
    def __init__(self, path: _Text, reader: ReaderOptions = ..., weight: float = ...) -> None: ...
    @property
    def path(self) -> str: ...
    @path.setter
    def path(self, value: _Text) -> None: ...

class SamplerOptions:
    seed: int
    batch_size: int
    rank: int
    world_size: int
    shuffle: bool
    drop_last: bool
    epoch_size: int
    def __init__(self) -> None: ...
    def set_resume(self, epoch: int, stages: list[tuple[int, int, list[int]]]) -> None: ...
    @property
    def resume(self) -> tuple[int, list[tuple[int, int, list[int]]]]: ...

class PipelineSpec:
    sources: list[SourceSpec]
    sampler: SamplerOptions
    on_bad_sample: OnBadSample
    mode: Mode
    return_polygons: bool
    def __init__(self, profile: Profile, path: _Text = "") -> None: ...
    @property
    def profile(self) -> Profile: ...
    @property
    def dtype(self) -> DType: ...
    @dtype.setter
    def dtype(self, value: DType) -> None: ...
    def set_option(self, name: str, value: str) -> None: ...
    def validate(self) -> None: ...

MAX_BATCH_SIZE: int
MAX_WORLD_SIZE: int
MAX_PREFETCH: int
MAX_IGNORE_TAGS: int
MAX_SOURCES: int
MAX_AREA: float
MAX_WEIGHT: float

def reader_defaults(profile: Profile) -> ReaderOptions: ...
MAX_EPOCH_SIZE: int
MAX_RESUME_STAGES: int

def default_on_bad_sample(mode: Mode) -> OnBadSample: ...
def option_names() -> str: ...
def recipe_fields() -> list[dict[str, Any]]: ...
def reader_fields() -> list[dict[str, Any]]: ...
def sampler_fields() -> list[dict[str, Any]]: ...
def check_recipe_option(name: str, value: str) -> None: ...
def validate_reader_options(options: ReaderOptions) -> None: ...

# register_loader.cc

# Feed.stats()'s "transport" (and each producer's), and each producer's "state"; textfeed.Loader.stats()
# gives their text ("shm", "frames, compact", "lost").

class ProducerState(enum.Enum):
    UP = 0
    LOST = 1
    OUT = 2
    @property
    def text(self) -> str: ...

class FeedTransport(enum.Enum):
    EMBEDDED = 0
    SHM = 1
    FRAMES = 2
    FRAMES_COMPACT = 3
    MULTI = 4
    @property
    def text(self) -> str: ...

class SlotLease:
    """One batch slot of a loader's ring, as a writable buffer (the buffer protocol)."""

    @property
    def slot(self) -> int: ...
    def __len__(self) -> int: ...

class SampleError:
    """A sample of a batch that could not be used (base/tensor.h SampleError)."""

    @property
    def index(self) -> int: ...
    @property
    def replaced_by(self) -> int: ...
    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...

class SampleMeta:
    """One row's image id, size, scales and words (eval, return_polygons)."""

    @property
    def image_id(self) -> str: ...
    @property
    def original_size(self) -> tuple[int, int]: ...
    @property
    def scale(self) -> tuple[float, float]: ...
    @property
    def polygons(self) -> list[NDArray[np.float32]]: ...
    @property
    def ignore(self) -> NDArray[np.bool_]: ...

class TensorDesc:
    """One tensor of a batch slot (base/tensor.h TensorDesc)."""

    @property
    def name(self) -> str: ...
    @property
    def dtype(self) -> DType: ...
    @property
    def shape(self) -> list[int]: ...
    @property
    def offset_bytes(self) -> int: ...
    @property
    def size_bytes(self) -> int: ...
    @property
    def sample_bytes(self) -> int: ...

class DeliveredBatch:
    """One batch from Feed.next(): slot and metadata."""

    @property
    def lease(self) -> SlotLease: ...
    @property
    def epoch(self) -> int: ...
    @property
    def batch(self) -> int: ...
    @property
    def indices(self) -> list[int]: ...
    @property
    def errors(self) -> list[SampleError]: ...
    @property
    def samples(self) -> Optional[list[SampleMeta]]: ...
    @property
    def invalid_polygons(self) -> dict[str, int]: ...

class Feed:
    """Batches from the embedded pipeline or a daemon; see textfeed.Loader."""

    def next(self, timeout_ms: int) -> Optional[DeliveredBatch]: ...
    def seek(self, epoch: int, batch: int) -> None: ...
    def layout(self) -> dict[str, Any]: ...
    def stats(self) -> dict[str, Any]: ...
    def position(self) -> tuple[int, int]: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def forked(self) -> bool: ...
    def set_release_event(self, factory: Optional[Callable[[], Any]]) -> None: ...
    def fenced_slots(self) -> int: ...
    def ring_address(self) -> int: ...
    def ring_bytes(self) -> int: ...
    def set_ring_guard(self, guard: object) -> None: ...

def open_embedded(spec: PipelineSpec, threads: int, prefetch: int, epoch: int, batch: int) -> Feed: ...
def open_remote(
    endpoint: _Text,
    spec: PipelineSpec,
    *,
    transport: Transport,
    prefetch: int,
    epoch: int,
    batch: int,
    client_name: _Text,
    timeout_s: float,
    daemon_timeout_s: float,
    reconnect_timeout_s: float,
    curve_server_key: _Text,
    curve_client_key: _Text,
) -> Feed: ...
def open_multi(
    endpoints: list[str],
    spec: PipelineSpec,
    *,
    transport: Transport,
    prefetch: int,
    epoch: int,
    batch: int,
    client_name: _Text,
    timeout_s: float,
    daemon_timeout_s: float,
    reconnect_timeout_s: float,
    stall_timeout_s: float,
    curve_server_keys: list[_Text],
    curve_client_key: _Text,
    local_threads: int,
    local_spec: Optional[PipelineSpec],
    payload: str,
) -> Feed: ...

MAX_PRODUCERS: int
MAX_WORKER_THREADS: int
MAX_TIMEOUT_SECONDS: float

def check_worker_threads(threads: int) -> None: ...
def _thread_settings_made_for_testing() -> bool: ...

# register_log.cc: the C++ log lines, queued for textfeed/_log.py

def _log_to_python() -> None: ...
def _log_to_stderr() -> None: ...
def _take_log_lines() -> tuple[list[tuple[int, str]], int]: ...
def _set_log_level(level: int) -> None: ...

# mmocr's targets of one image (augment/<family>/python_reference.cc; textfeed.reference.mmocr_targets
# checks the arguments): polys_xy (points, 2) float32, npts (polygons,) int32, ignored (polygons,) bool.
def mmocr_pse_targets(polys_xy: NDArray[np.float32], npts: NDArray[np.int32], ignored: NDArray[np.bool_],
                      img_hw: tuple[int, int]) -> dict[str, NDArray[Any]]: ...
def mmocr_pan_targets(polys_xy: NDArray[np.float32], npts: NDArray[np.int32], ignored: NDArray[np.bool_],
                      img_hw: tuple[int, int]) -> dict[str, NDArray[Any]]: ...
def mmocr_fce_targets(polys_xy: NDArray[np.float32], npts: NDArray[np.int32], ignored: NDArray[np.bool_],
                      img_hw: tuple[int, int]) -> dict[str, NDArray[Any]]: ...
def mmocr_textsnake_targets(polys_xy: NDArray[np.float32], npts: NDArray[np.int32],
                            ignored: NDArray[np.bool_], img_hw: tuple[int, int]) -> dict[str, NDArray[Any]]: ...
def mmocr_db_mmocr_targets(polys_xy: NDArray[np.float32], npts: NDArray[np.int32],
                           ignored: NDArray[np.bool_], img_hw: tuple[int, int]) -> dict[str, NDArray[Any]]: ...
# One seeded replay of an mmocr training chain's geometry (augment/mmocr/python_replay.cc;
# textfeed.reference.replay_mmocr_chain checks the arguments): the chain goldens' fields.
def replay_mmocr_chain(chain: str, image_hw: tuple[int, int], polys_xy: NDArray[np.float32],
                       npts: NDArray[np.int32], ignored: NDArray[np.bool_], seed: int) -> dict[str, Any]: ...
