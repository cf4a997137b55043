# Types of textfeed.reference (reference.py): the checked functions of _checked.py and the
# extension's functions that typed() wraps, with their signatures (_core.pyi).
from ._checked import db_targets as db_targets
from ._checked import east_targets as east_targets
from ._checked import find_min_rect_angle as find_min_rect_angle
from ._checked import shrink_poly as shrink_poly
from ._core import photometric as photometric
from ._core import replay_geometry as replay_geometry
from ._core import sample_params as sample_params
from ._core import warp_crop as warp_crop

__all__ = [
    "db_targets",
    "east_targets",
    "find_min_rect_angle",
    "photometric",
    "replay_geometry",
    "sample_params",
    "shrink_poly",
    "warp_crop",
]
