"""textfeed: EAST training batches built in C++, for PyTorch training loops.

    loader = textfeed.Loader(dataset="data/train", batch_size=8, profile="upstage")  # no daemon
    loader = textfeed.Loader("ipc:///tmp/textfeed.sock", dataset="train", batch_size=8)  # a daemon
    for img, gt_score_map, gt_geo_map, roi_mask in loader: ...

Functions re-exported from the C++ extension:
  east_targets(vertices, labels, crop_size, map_scale, profile="upstage", ...) -> dict of maps
  replay_geometry(profile, image_w, image_h, vertices, labels, seed, ...)    -> the geometric chain
  shrink_poly(quad), find_min_rect_angle(quad, metric)                       -> per-quad units
  sample_params(...), warp_crop(...), photometric(...)                       -> per-sample steps
"""

try:
    from . import _core
except ImportError as e:  # pragma: no cover - exercised only on a broken install
    raise ImportError(
        "textfeed's C++ extension (textfeed._core) is not built or not on PYTHONPATH. "
        "Build with `make` and run with PYTHONPATH=<build>/python, using /usr/bin/python3."
    ) from e

from . import _core, errors
from ._checked import east_targets, find_min_rect_angle, shrink_poly, typed
from ._core import DType, IgnoreText, OnBadSample, PolyPolicy, Profile, Transport
from .loader import Batch, Loader, SampleError

# Every argument of a public function is checked; wrong types raise errors.ArgumentTypeError.
photometric = typed(_core.photometric)
replay_geometry = typed(_core.replay_geometry)
sample_params = typed(_core.sample_params)
warp_crop = typed(_core.warp_crop)
del typed

__version__ = _core.__version__
__all__ = [
    "Batch",
    "DType",
    "IgnoreText",
    "Loader",
    "OnBadSample",
    "PolyPolicy",
    "Profile",
    "SampleError",
    "Transport",
    "errors",
    "east_targets",
    "find_min_rect_angle",
    "photometric",
    "replay_geometry",
    "sample_params",
    "shrink_poly",
    "warp_crop",
    "__version__",
]
