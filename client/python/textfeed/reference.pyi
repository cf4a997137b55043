# Types of textfeed.reference (reference.py): the checked functions of _checked.py and _db.py and the
# extension's functions that typed() wraps, with their signatures (_core.pyi).
from ._checked import db_targets as db_targets
from ._checked import east_targets as east_targets
from ._checked import find_min_rect_angle as find_min_rect_angle
from ._checked import shrink_poly as shrink_poly
from ._db import db_map_keypoints as db_map_keypoints
from ._db import db_sample_params as db_sample_params
from ._db import replay_db_crop as replay_db_crop
from ._mmocr import mmocr_targets as mmocr_targets
from ._mmocr import replay_mmocr_chain as replay_mmocr_chain
from ._core import photometric as photometric
from ._core import replay_geometry as replay_geometry
from ._core import sample_params as sample_params
from ._core import warp_crop as warp_crop

__all__ = [
    "db_map_keypoints",
    "db_sample_params",
    "db_targets",
    "east_targets",
    "find_min_rect_angle",
    "mmocr_targets",
    "photometric",
    "replay_db_crop",
    "replay_mmocr_chain",
    "replay_geometry",
    "sample_params",
    "shrink_poly",
    "warp_crop",
]
