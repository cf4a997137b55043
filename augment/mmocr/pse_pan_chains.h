// The geometric part of mmocr 1.x's PSENet and PANet training chains (docs/targets.md §9.4).
#pragma once

#include "augment/mmocr/chain_state.h"
#include "base/status.h"

namespace textfeed::augment::mmocr {

// psenet/_base_psenet_resnet50_fpnf.py's train_pipeline between LoadOCRAnnotations and
// PackTextDetInputs, on `state` with `streams`. A sample the reference drops sets state.dropped
// (the step's name) and returns OK. Errors: kInternal (GEOS failed).
Status run_psenet(ChainState& state, ChainStreams& streams);

// panet/_base_panet_resnet18_fpem-ffm.py's train_pipeline, likewise.
Status run_panet(ChainState& state, ChainStreams& streams);

}  // namespace textfeed::augment::mmocr
