# Types of the package namespace (__init__.py): what it re-exports. The functions wrapped by
# __init__.py's typed() keep the extension's signatures (_core.pyi); the rest are typed in their
# own modules (loader.py, _checked.py, errors.py).
from . import _core as _core
from . import errors as errors
from ._checked import east_targets as east_targets
from ._checked import find_min_rect_angle as find_min_rect_angle
from ._checked import shrink_poly as shrink_poly
from ._core import DType as DType
from ._core import IgnoreText as IgnoreText
from ._core import OnBadSample as OnBadSample
from ._core import PolyPolicy as PolyPolicy
from ._core import Profile as Profile
from ._core import Transport as Transport
from ._core import photometric as photometric
from ._core import replay_geometry as replay_geometry
from ._core import sample_params as sample_params
from ._core import warp_crop as warp_crop
from .loader import Batch as Batch
from .loader import Loader as Loader
from .loader import SampleError as SampleError

__version__: str
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
