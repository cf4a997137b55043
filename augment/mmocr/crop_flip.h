// mmocr's TextDetRandomCropFlip (FCENet's training chain, docs/targets.md §9.4): with probability
// 0.5, cut a box from the image along rows and columns no word crosses and flip that box (left-
// right, up-down or both), with the words wholly inside it.
#pragma once

#include "augment/mmocr/chain_state.h"
#include "base/status.h"

namespace textfeed::augment::mmocr {

// TextDetRandomCropFlip(pad_ratio 0.1, crop_ratio 0.5, iter_num 1, min_area_ratio 0.2) on
// `state`, drawing from `streams` as the reference does (logged under step
// "TextDetRandomCropFlip": "apply", then per attempt i "attempt<i>.x_idx" / "attempt<i>.y_idx",
// then "flip_type"). Keeps the reference's loop: at most 10 boxes, the last one used even if it
// failed; after a box too small the polygons stay as they are; after a box that cuts a word only
// the words before it are kept. The words wholly inside the box are flipped (in their dtype) and
// moved after the others, while `ignored` and `labels` are only narrowed to the kept words in
// their old order, so they may no longer line up with `polygons` (as in mmocr; each polygon's
// `src` still names its input word). Whenever a flip kind is drawn, appends a kRegionFlip op
// (rect = the box, x1/y1 exclusive, possibly empty; code = the kind). Does not mark the trace
// (the chain runner does). Errors: kInternal (GEOS or OpenCV failed, or ignored/labels not the
// length of polygons).
Status text_det_random_crop_flip(ChainState& state, ChainStreams& streams);

}  // namespace textfeed::augment::mmocr
