"""textfeed: EAST training batches built in C++, for PyTorch training loops.

    loader = textfeed.Loader(dataset="data/train", batch_size=8, profile="upstage")  # no daemon
    loader = textfeed.Loader("ipc:///tmp/textfeed.sock", dataset="train", batch_size=8)  # a daemon
    for img, gt_score_map, gt_geo_map, roi_mask in loader: ...

The enums of the Loader's keywords (each also taken by its name): Profile, DType, OnBadSample,
Transport, IgnoreText, PolyPolicy, Illegibility, ReaderFormat, Mode. The pipeline's steps one at a time (east_targets,
replay_geometry, ...), to replay a sample or hold it against a reference, are in textfeed.reference.
"""

try:
    from . import _core
except ImportError as e:  # pragma: no cover - exercised only on a broken install
    raise ImportError(
        "textfeed's C++ extension (textfeed._core) is not built or not on PYTHONPATH. "
        "Build with `make` and run with PYTHONPATH=<build>/python, using /usr/bin/python3."
    ) from e

from . import _core, errors, reference
from ._core import DType, IgnoreText, Illegibility, Mode, OnBadSample, PolyPolicy, Profile, ReaderFormat, Transport
from .loader import Batch, Loader, SampleError, gather_states
from .sources import Source, paddle_sources

__version__ = _core.__version__
__all__ = [
    "Batch",
    "DType",
    "IgnoreText",
    "Illegibility",
    "Loader",
    "Mode",
    "OnBadSample",
    "PolyPolicy",
    "Profile",
    "ReaderFormat",
    "SampleError",
    "Source",
    "Transport",
    "errors",
    "gather_states",
    "paddle_sources",
    "reference",
    "__version__",
]
