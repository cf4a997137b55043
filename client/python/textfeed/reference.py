"""textfeed.reference: the C++ pipeline's steps one at a time, to hold them against the reference
pipelines (tests/golden, examples/) and to replay what happened to one sample.

  east_targets(vertices, labels, crop_size, map_scale, profile="upstage", ...) -> dict of maps
  db_targets(polys, ignore_tags, canvas_hw, shrink_ratio=0.4, ...)            -> DB maps and tags
  replay_geometry(profile, image_w, image_h, vertices, labels, seed, ...)    -> the geometric chain
  shrink_poly(quad), find_min_rect_angle(quad, metric)                       -> per-quad units
  replay_db_crop(image_hw, polys, ignore_tags, seed, ...)                    -> PaddleOCR's DB crop replay
  db_map_keypoints(points, w, h, flip=, angle_deg=, resize=)                 -> imgaug's keypoint mapping
  db_sample_params(image_w, image_h, polys, ignore_tags, seed, epoch, index) -> the DB geometry plan
  sample_params(...), warp_crop(...), photometric(...)                       -> per-sample steps
  mmocr_targets(family, polys, ignored, img_shape)                           -> mmocr's targets of
      pse, pan, fce, textsnake or db_mmocr for one image, as its module losses build them
  replay_mmocr_chain(chain, image_hw, polys, ignored, seed)                  -> the geometry of
      mmocr's psenet, panet, fcenet or textsnake training chain, seeded as its goldens

Every argument is checked (a wrong type raises errors.ArgumentTypeError), then the extension's
function runs. A training loop needs none of them: textfeed.Loader runs the whole chain.
"""

from . import _core
from ._checked import db_targets, east_targets, find_min_rect_angle, shrink_poly, typed
from ._db import db_map_keypoints, db_sample_params, replay_db_crop
from ._mmocr import mmocr_targets, replay_mmocr_chain

photometric = typed(_core.photometric)
replay_geometry = typed(_core.replay_geometry)
sample_params = typed(_core.sample_params)
warp_crop = typed(_core.warp_crop)
del typed

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
