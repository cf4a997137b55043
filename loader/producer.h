// SampleProducer: one worker thread's machinery to turn sample i of a source into its rows of a
// batch: plan the geometry on the quads, decode only at the scale the plan needs, one warp to the
// crop, fused colour jitter + normalize, the profile's targets (a TargetBuilder: EAST today). All
// scratch memory is owned here and reused.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "augment/db_geometry.h"
#include "augment/inference.h"
#include "augment/plan.h"
#include "augment/photometric.h"
#include "augment/polygon_policy.h"
#include "augment/profile.h"
#include "augment/target_builder.h"
#include "augment/warp.h"
#include "base/image.h"
#include "base/tensor.h"
#include "loader/compact.h"
#include "loader/decode.h"
#include "loader/source.h"

namespace textfeed::loader {

// Reads sample `index` of `source` into `sample`, with its full size (sample.width, .height) from
// the encoded header, read by `decoder`, when the source does not know it. Errors: the source's,
// the header's (Decoder::read_info).
Status read_sample(const SampleSource& source, Decoder& decoder, uint32_t index, SampleRead& sample);

// Where one sample's outputs go (rows of the batch tensors; see BatchLayout::view).
struct SampleOutputs {
  MutableImageView image;                     // 3 planes of crop_size^2 (float32 normalized, or uint8)
  std::span<const MutableImageView> targets;  // one per tensor of the profile's TargetBuilder, in order
  // A compact row instead (loader/compact.h; EAST profiles): the warp writes `crop` (uint8 HWC,
  // crop_size^2), the colour draw and the words go to `compact`, and image and targets are not
  // written.
  CompactRow* compact = nullptr;
  MutableImageView crop;
};

// The stages of a sample, in pipeline order (what stats and benchmarks report).
inline constexpr int kNumStages = 6;
inline constexpr std::array<std::string_view, kNumStages> kStageNames = {"read", "decode", "plan",
                                                                        "warp", "photometric", "targets"};

// Accumulated wall time per stage, in seconds.
struct StageTimes {
  double read = 0, decode = 0, plan = 0, warp = 0, photometric = 0, targets = 0;
  uint64_t samples = 0;
  void add(const StageTimes& o);
  // Milliseconds per sample of each stage, in the order of kStageNames (zeros without samples).
  std::array<double, kNumStages> ms_per_sample() const;
};

// A resource type owned by one worker thread (not thread-safe). The source must outlive it.
class SampleProducer {
 public:
  SampleProducer(std::shared_ptr<const SampleSource> source, const augment::AugmentOptions& options,
                 const DecodeOptions& decode = {});

  // Writes sample `index` augmented with Rng(seed, epoch, index + copy * 2^32) into `out` (`copy`:
  // how many times the epoch drew the sample before, loader/sampler.h). Never throws: it
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
  // What the invalid_polygon policy found and did in the last produce() (zero for the EAST
  // profiles, whose readers give quads).
  const PolygonCounts& last_polygons() const { return polygons_; }
  // The plan of the last produced sample (for `textfeed show`): EAST profiles' and db's.
  const augment::GeometryPlan& last_plan() const { return plan_; }
  const augment::DbGeometryPlan& last_db_plan() const { return db_plan_; }

 private:
  Status produce_unguarded(uint32_t index, uint64_t seed, uint64_t epoch, const SampleOutputs& out, uint32_t copy);
  Status produce_eval_unguarded(uint32_t index, const MutableImageView& image, SampleMeta& meta);
  // Profile db (docs/targets.md §8): the words as polygons through the invalid_polygon policy,
  // the imgaug draws and the crop search on them, one warp of a decode at the needed DCT scale,
  // BGR normalize, the DB targets at the epoch's shrink ratio.
  Status produce_db(uint32_t index, uint64_t seed, uint64_t epoch, const SampleOutputs& out, uint32_t copy);
  Status render_db(const SampleRead& sample);

  std::shared_ptr<const SampleSource> source_;
  augment::AugmentOptions options_;
  Decoder decoder_;
  SampleRead read_;    // the sample's words and pixels, as the source gives them
  Image decoded_;
  ImageView pixels_;  // decoded_ or read_.pixels
  Image crop_;
  augment::GeometryPlan plan_;
  augment::WarpScratch warp_scratch_;
  augment::InferenceScratch inference_scratch_;
  std::unique_ptr<augment::TargetBuilder> targets_;  // the profile's, with its scratch
  // db only (empty otherwise):
  augment::DbGeometryOptions db_options_;
  std::unique_ptr<augment::PolygonPolicy> policy_;
  augment::PolygonSet words_;              // the sample's words after the policy
  std::vector<int32_t> db_ends_;           // words_.ends as the crop search takes them
  std::vector<unsigned char> db_ignore_;   // 1 = ignored, per word of words_
  augment::DbGeometryPlan db_plan_;
  std::vector<uint32_t> crop_ends_;        // db_plan_.crop.ends as the targets take them
  std::vector<unsigned char> crop_labels_;
  StageTimes times_;
  PolygonCounts polygons_;
};

}  // namespace textfeed::loader
