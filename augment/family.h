// Detector families as plug-ins. A family (EAST, DB, ...) is one folder under augment/ holding its
// training chain (the per-sample steps from the words as read to the rows of a batch), its target
// builder and one registration (augment/families.cc) that says which profiles it trains. The
// producer, the pipeline, the wire and the client see only the interfaces below: they never name
// a family, and a new family touches none of them.
//
// A sample goes through a chain in two steps, with the pixels fetched between them by the caller:
//   plan():   the random geometric draws on the words alone, and the pixels the render will need
//             (a source -> output matrix, the output rectangle, the scales along the axes), so
//             that the caller decodes only that part of a JPEG, at the DCT scale it allows;
//   render(): the warp of those pixels, the colour draws and the photometric steps, the targets
//             (or, for a compact row, the warped crop and what a receiver needs to finish it).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "augment/geometry/warp.h"
#include "augment/inference.h"
#include "augment/profile.h"
#include "augment/target_builder.h"
#include "base/compact_row.h"
#include "base/image.h"
#include "base/quad.h"
#include "base/rng.h"
#include "base/status.h"
#include "base/tensor.h"

namespace textfeed::augment {

// The stages of a sample, in pipeline order (what stats and benchmarks report).
inline constexpr int kNumStages = 6;
inline constexpr std::array<std::string_view, kNumStages> kStageNames = {
    "read", "decode", "plan", "warp", "photometric", "targets"};

// Accumulated wall time per stage, in seconds.
struct StageTimes {
  double read = 0, decode = 0, plan = 0, warp = 0, photometric = 0, targets = 0;
  uint64_t samples = 0;
  void add(const StageTimes& o);
  // Milliseconds per sample of each stage, in the order of kStageNames (zeros without samples).
  std::array<double, kNumStages> ms_per_sample() const;
};

// The clock stage times are taken with, and the seconds since `start` on it.
using StageClock = std::chrono::steady_clock;
inline double seconds_since(StageClock::time_point start) {
  return std::chrono::duration<double>(StageClock::now() - start).count();
}

// One sample's words and size as its source gives them (full-image px; views of the caller's
// storage). Every source gives quads with labels (1 = text, 0 = ignored); a source that kept the
// annotated polygons (any point count) gives them too, and a polygon family reads those.
struct SampleWords {
  std::string_view name;      // the image, for messages
  int width = 0, height = 0;  // the image's size, px
  bool pre_resized = false;   // pixels and words already went through the profile's resize
  std::span<const Quad> quads;
  std::span<const unsigned char> labels;
  std::span<const float> poly_xy;         // x, y pairs of every polygon, in order
  std::span<const uint32_t> poly_points;  // points per polygon (empty: no polygons kept)
  std::span<const unsigned char> poly_labels;
};

// Which pixels a render needs: it warps the full-size source through `matrix` (source px ->
// output px) into an out_w x out_h rectangle at the output's top left, and the matrix scales
// the source's two axes by min_scale and max_scale (what decides the DCT scale to decode at).
struct PixelRequest {
  double matrix[6] = {1, 0, 0, 0, 1, 0};
  int out_w = 0, out_h = 0;
  double min_scale = 1, max_scale = 1;
};

// The pixels fetched for a request: `pixels` decoded at `scale` of full size (a window of them,
// where `frame` says), and the matrix from those pixels to the output.
struct PixelGrant {
  ImageView pixels;
  double matrix[6] = {1, 0, 0, 0, 1, 0};
  double scale = 1;
  SourceFrame frame;
};

// Where one sample's outputs go (rows of the batch tensors).
struct ChainOutputs {
  MutableImageView image;  // 3 planes of crop_size^2 (float32 normalized, or uint8)
  std::span<const MutableImageView> targets;  // one per tensor of the family's builder, in order
  // A compact row instead (families that support it): the warp writes `crop` (uint8 HWC,
  // crop_size^2), the colour draw and the words go to `compact`; image and targets are not
  // written.
  CompactRow* compact = nullptr;
  MutableImageView crop;
};

// One worker thread's training chain of a family, with its scratch (not thread-safe). plan()
// comes first for every sample, then render() with the pixels of plan's request.
class Chain {
 public:
  virtual ~Chain() = default;

  // Draws the sample's geometry from `rng` (seeded per sample) for `epoch` and fills `request`.
  // Errors: kInvalidArgument (a sample too degenerate to plan, a word the policy refuses).
  virtual Status plan(const SampleWords& sample, Rng& rng, uint64_t epoch,
                      PixelRequest& request) = 0;

  // Renders the planned sample from `pixels` into `out`, adding the warp, photometric and target
  // times to `times`. Errors: kInvalidArgument (outputs that do not match, a compact row for a
  // family without one), kInternal (a library failed).
  virtual Status render(const PixelGrant& pixels, Rng& rng, uint64_t epoch, const ChainOutputs& out,
                        StageTimes& times) = 0;

  // The last sample's words after the augmentation, crop px, with their own point counts.
  virtual void words_after(SampleMeta& meta) const = 0;

  // What the invalid_polygon policy found and did in the last plan() (zero for quad families).
  virtual PolygonCounts last_polygons() const { return {}; }
};

// A detector family: its name, its chain and targets, its evaluation preprocessing, and what it
// takes. Its profiles' names, defaults and evaluation rules are its folder's profiles.cc
// (augment/profile.h ProfileEntry), which clients link without the chain.
class Family {
 public:
  virtual ~Family() = default;

  virtual std::string_view name() const = 0;
  // The profiles it trains (each profile belongs to exactly one family).
  virtual std::span<const Profile> profiles() const = 0;
  bool trains(Profile profile) const {
    for (Profile p : profiles())
      if (p == profile) return true;
    return false;
  }
  // A builder of its targets configured by `options` (the builder's header says which fields).
  virtual std::unique_ptr<TargetBuilder> make_target_builder(
      const AugmentOptions& options) const = 0;
  // A worker thread's chain for `options`.
  virtual std::unique_ptr<Chain> make_chain(const AugmentOptions& options) const = 0;
  // How `profile` (one it trains) prepares an image at evaluation time (augment/inference.h):
  // a constant of its folder.
  virtual const InferenceStyle& inference_style(Profile profile) const = 0;
  // Whether its rows can travel compact (a receiver runs the colour and the targets).
  virtual bool compact_rows() const { return false; }
};

// The family that trains `profile` (augment/families.cc registers them). Every Profile has one
// (tests/augment/family_test.cc); a value outside the enum, which validate() refuses, aborts.
const Family& family_of(Profile profile);

// Whether rows of `profile` can travel compact (its family's compact_rows()). Errors:
// kInvalidArgument naming the profiles that can.
Status check_compact_rows(Profile profile);

// Every registered family, in registration order.
std::span<const Family* const> families();

}  // namespace textfeed::augment
