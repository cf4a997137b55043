// The geometric part of mmocr 1.x's FCENet and TextSnake training chains (docs/targets.md §9.4).
#pragma once

#include "augment/mmocr/chain_state.h"
#include "base/status.h"

namespace textfeed::augment::mmocr {

// fcenet/_base_fcenet_resnet50_fpn.py's train_pipeline between LoadOCRAnnotations and
// PackTextDetInputs, on `state` with `streams`. A sample the reference drops sets state.dropped
// (the step's name) and returns OK. Errors: kInternal (GEOS failed).
Status run_fcenet(ChainState& state, ChainStreams& streams);

// textsnake/_base_textsnake_resnet50_fpn-unet.py's train_pipeline, likewise.
Status run_textsnake(ChainState& state, ChainStreams& streams);

}  // namespace textfeed::augment::mmocr
