"""textfeed.reference: the C++ pipeline's steps one at a time, to hold them against the reference
pipelines (tests/golden, examples/) and to replay what happened to one sample.

  east_targets(vertices, labels, crop_size, map_scale, profile="upstage", ...) -> dict of maps
  db_targets(polys, ignore_tags, canvas_hw, shrink_ratio=0.4, ...)            -> DB maps and tags
  replay_geometry(profile, image_w, image_h, vertices, labels, seed, ...)    -> the geometric chain
  shrink_poly(quad), find_min_rect_angle(quad, metric)                       -> per-quad units
  sample_params(...), warp_crop(...), photometric(...)                       -> per-sample steps

Every argument is checked (a wrong type raises errors.ArgumentTypeError), then the extension's
function runs. A training loop needs none of them: textfeed.Loader runs the whole chain.
"""

from . import _core
from ._checked import db_targets, east_targets, find_min_rect_angle, shrink_poly, typed

photometric = typed(_core.photometric)
replay_geometry = typed(_core.replay_geometry)
sample_params = typed(_core.sample_params)
warp_crop = typed(_core.warp_crop)
del typed

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
