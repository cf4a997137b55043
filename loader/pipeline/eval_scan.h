// Eval's look at every image before the first batch: an image that cannot be placed on the
// canvas is found when the pipeline (in process, or a daemon's stream) is made, in one message,
// instead of once per batch (docs/design.md "Evaluation batches").
#pragma once

#include "base/status.h"
#include "loader/sources/source.h"
#include "loader/spec/spec.h"

namespace textfeed::loader {

// For a profile whose inference keeps each image's size (augment::inference_keeps_size), reads
// every sample of `source` (the file, or the cache record) and its size from the header, and
// checks that it can be read and placed on spec.augment.image_size. Other profiles and training
// specs return at once: any readable image fits them. With OnBadSample::kReport the images found
// are logged in one warning (their rows will be reported missing in their batches) and OK comes
// back. Errors (OnBadSample::kFail): kInvalidArgument, one message counting the images that cannot
// be used, naming the first of them with the reason, and the image_size that fits them all.
Status check_eval_images(const SampleSource& source, const PipelineSpec& spec);

}  // namespace textfeed::loader
