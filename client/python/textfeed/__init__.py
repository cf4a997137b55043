"""textfeed: text-detection training batches built in C++, for PyTorch training loops.

    loader = textfeed.Loader("data/train", 8, profile="upstage")  # the pipeline in this process
    loader = textfeed.Loader("train", 8, endpoint="ipc:///tmp/textfeed.sock")  # from a daemon
    loader = textfeed.Loader("data/train", 8, recipe=textfeed.Recipe(crop_size=512),
                             sampler=textfeed.SamplerOptions(seed=1, drop_last=True))
    for img, gt_score_map, gt_geo_map, roi_mask in loader: ...

The Loader's typed options: Recipe (the augmentation), ReaderOptions, SamplerOptions,
OutputOptions, DaemonOptions. The enums they take (each also taken by its name): Profile, DType,
OnBadSample, Transport, IgnoreText, PolyPolicy, Illegibility, ReaderFormat, Mode. The pipeline's
steps one at a time (east_targets, replay_geometry, ...), to replay a sample or hold it against a
reference, are in textfeed.reference. textfeed.dask (optional: Debian's python3-distributed) runs
cache builds and daemons on a Dask cluster; ``import textfeed`` does not import it.
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
from .options import DaemonOptions, OutputOptions, ReaderOptions, Recipe, SamplerOptions
from .sources import Source, paddle_sources

__version__ = _core.__version__
__all__ = [
    "Batch",
    "DType",
    "DaemonOptions",
    "IgnoreText",
    "Illegibility",
    "Loader",
    "Mode",
    "OnBadSample",
    "OutputOptions",
    "PolyPolicy",
    "Profile",
    "ReaderFormat",
    "ReaderOptions",
    "Recipe",
    "SampleError",
    "SamplerOptions",
    "Source",
    "Transport",
    "errors",
    "gather_states",
    "paddle_sources",
    "reference",
    "__version__",
]
