# Types of the package namespace (__init__.py): what it re-exports. The enums are the extension's
# (_core.pyi); the rest are typed in their own modules (loader.py, options.py, errors.py,
# reference.pyi).
from . import _core as _core
from . import errors as errors
from . import reference as reference
from ._core import DType as DType
from ._core import IgnoreText as IgnoreText
from ._core import Illegibility as Illegibility
from ._core import Mode as Mode
from ._core import OnBadSample as OnBadSample
from ._core import PolyPolicy as PolyPolicy
from ._core import Profile as Profile
from ._core import ReaderFormat as ReaderFormat
from ._core import Transport as Transport
from .loader import Batch as Batch
from .loader import Loader as Loader
from .loader import SampleError as SampleError
from .loader import gather_states as gather_states
from .options import DaemonOptions as DaemonOptions
from .options import OutputOptions as OutputOptions
from .options import ReaderOptions as ReaderOptions
from .options import Recipe as Recipe
from .options import SamplerOptions as SamplerOptions
from .sources import Source as Source
from .sources import paddle_sources as paddle_sources

__version__: str
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
