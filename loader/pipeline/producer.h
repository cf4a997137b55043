// SampleProducer: one worker thread's machinery to turn sample i of a source into its rows of a
// batch: read the sample, let the profile's family chain plan its geometry (augment/family.h),
// decode only the part of the image and at the scale the plan needs, and let the chain render
// the crop and its targets. All scratch memory is owned here and by the chain, and reused.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "augment/family.h"
#include "augment/inference.h"
#include "augment/profile.h"
#include "base/compact_row.h"
#include "base/image.h"
#include "base/tensor.h"
#include "loader/decode/decode.h"
#include "loader/sources/source.h"

namespace textfeed::loader {

// Reads sample `index` of `source` into `sample`, with its full size (sample.width, .height) from
// the encoded header, read by `decoder`, when the source does not know it. Errors: the source's,
// the header's (Decoder::read_info).
Status read_sample(const SampleSource& source, Decoder& decoder, uint32_t index,
                   SampleRead& sample);

// Where one sample's outputs go (rows of the batch tensors; see BatchLayout::view). A compact
// row (base/compact_row.h; families with compact rows) writes the warped uint8 crop to `crop` and
// its colour draw and words to `compact`; image and targets are then not written.
using SampleOutputs = augment::ChainOutputs;

// The stages of a sample, in pipeline order, and their accumulated wall times.
using augment::kNumStages;
using augment::kStageNames;
using augment::StageTimes;

// A resource type owned by one worker thread (not thread-safe). The source must outlive it.
class SampleProducer {
 public:
  SampleProducer(std::shared_ptr<const SampleSource> source, const augment::AugmentOptions& options,
                 const DecodeOptions& decode = {});

  // Writes sample `index` augmented with Rng(seed, epoch, index + copy * 2^32) into `out` (`copy`:
  // how many times the epoch drew the sample before, loader/sources/sampler.h). Never throws: it
  // runs inside parallel bodies, where an exception would fail a whole batch for one sample.
  // Errors: those of reading/decoding the image (kNotFound, kCorrupt, ... naming the file),
  // kInvalidArgument (an image too degenerate to plan), kInternal (a library threw, e.g. out of
  // memory, naming the sample); the outputs are then unspecified.
  // With `polygons` (may be null), also the sample's words after the augmentation, in crop px,
  // and its name (SampleMeta; scale 1, size the crop's).
  Status produce(uint32_t index, uint64_t seed, uint64_t epoch, const SampleOutputs& out,
                 SampleMeta* polygons = nullptr, uint32_t copy = 0);

  // Eval (docs/design.md "Evaluation batches"): writes sample `index` preprocessed as the
  // profile's reference inference does (augment/inference.h), on a canvas of options.image_size,
  // into `image` (3 planes), and its name, original size, scale and words (original px) into
  // `meta`. No random draw. Never throws. Errors: those of produce(); kInvalidArgument naming the
  // sample (an image larger than the canvas after sakura's flooring; pixels a cache already
  // resized, whose original size is gone). A failure still leaves the image's name in `meta`
  // (scales 0), and its words and size when they could be read.
  Status produce_eval(uint32_t index, const MutableImageView& image, SampleMeta& meta);

  const StageTimes& times() const { return times_; }
  // What the invalid_polygon policy found and did in the last produce() (zero for the families
  // that take quads).
  PolygonCounts last_polygons() const {
    return planned_ ? chain_->last_polygons() : PolygonCounts{};
  }
  // The chain of the profile's family (for `textfeed show`, which draws its last plan).
  const augment::Chain& chain() const { return *chain_; }

 private:
  Status produce_unguarded(uint32_t index, uint64_t seed, uint64_t epoch, const SampleOutputs& out,
                           SampleMeta* polygons, uint32_t copy);
  Status produce_eval_unguarded(uint32_t index, const MutableImageView& image, SampleMeta& meta);
  // The pixels a chain's request needs: the sample's decoded pixels, or a decode of the encoded
  // ones at the DCT scale the request allows (only the window it reads, when the decoder may).
  Status fetch_pixels(const augment::PixelRequest& request, augment::PixelGrant& grant);

  std::shared_ptr<const SampleSource> source_;
  augment::AugmentOptions options_;
  Decoder decoder_;
  SampleRead read_;  // the sample's words and pixels, as the source gives them
  Image decoded_;
  ImageView pixels_;  // decoded_ or read_.pixels
  augment::InferenceScratch inference_scratch_;
  const augment::Family& family_;
  std::unique_ptr<augment::Chain> chain_;
  bool planned_ = false;  // the last produce() reached the chain's plan
  StageTimes times_;
};

}  // namespace textfeed::loader
