// TargetBuilder: the training targets of one detector family, written per sample straight into
// the sample's rows of a batch. The pipeline knows only this interface: it asks a builder which
// tensors it writes (BatchLayout places them after the image) and hands it each sample's words in
// crop coordinates. Each detector family (augment/family.h) has one builder: EAST's score, geometry
// and mask (augment/east/targets.h), DB's probability, threshold and their masks
// (augment/db/targets.h); the pipeline, the wire and the client carry a layout's tensors by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "augment/profile.h"
#include "base/image.h"
#include "base/status.h"

namespace textfeed::augment {

// One tensor a builder writes per sample: `channels` planes of side x side, stacked (CHW).
struct TargetTensor {
  std::string_view name;  // static storage (a literal): layouts and the wire refer to it
  DType dtype = DType::kF32;
  int channels = 1;
  int side = 0;  // px
};

// The most tensors one builder writes: the pipeline keeps a sample's views on the stack.
inline constexpr size_t kMaxTargetTensors = 8;

// The words of one sample as polygons in crop px, flat: word k's points are
// xy[2 * first(k) .. 2 * end(k)), x then y. `ends` holds each word's end (in points, increasing);
// empty means every word is a quad (4 points), which is what the readers give today (a longer
// polygon is reduced to a quad by its reader's PolyPolicy). A view: the caller owns the storage.
struct PolygonsView {
  std::span<const double> xy;
  std::span<const uint32_t> ends;

  static PolygonsView quads(std::span<const double> xy) { return {xy, {}}; }
  size_t size() const { return ends.empty() ? xy.size() / 8 : ends.size(); }
  size_t first(size_t k) const { return ends.empty() ? 4 * k : (k == 0 ? 0 : ends[k - 1]); }
  size_t end(size_t k) const { return ends.empty() ? 4 * (k + 1) : ends[k]; }
  size_t points(size_t k) const { return end(k) - first(k); }
  // Word k's coordinates (2 * points(k) doubles).
  std::span<const double> word(size_t k) const { return xy.subspan(2 * first(k), 2 * points(k)); }
  // Whether the storage holds exactly the points the ends say (and whole points).
  bool consistent() const {
    if (ends.empty()) return xy.size() % 8 == 0;
    for (size_t k = 1; k < ends.size(); ++k)
      if (ends[k] < ends[k - 1]) return false;
    return xy.size() == 2 * static_cast<size_t>(ends.back());
  }
};

// A resource type that writes one detector family's targets; it owns the scratch buffers of its
// builds (they grow to the largest sample and are then reused). tensors() is const and safe from
// any thread; build() is not thread-safe: each worker thread owns a builder.
class TargetBuilder {
 public:
  virtual ~TargetBuilder() = default;

  // The tensors this builder writes for a square crop of side `crop_size` px, in the order build()
  // takes their views. At most kMaxTargetTensors.
  virtual std::vector<TargetTensor> tensors(int crop_size) const = 0;

  // Writes the targets of `words` (crop px; may leave the crop) with `labels` (one per word;
  // 0 = ignored, anything else = valid) for a crop of side `crop_size` into `out`: one view per
  // tensors(crop_size) entry, in that order, channels stacked in the view's height (channels 1,
  // height channels * side, width side; rows may be padded). Every pixel is written.
  // Errors: kInvalidArgument (views that do not match tensors(crop_size), labels.size() !=
  // words.size(), words this builder cannot use, e.g. a polygon that is not a quad for EAST);
  // kInternal (a library failed). After an error the views are unspecified.
  virtual Status build(std::span<const MutableImageView> out, const PolygonsView& words,
                       std::span<const unsigned char> labels, int crop_size) = 0;
};

// The builder of the family that trains options.profile, configured by `options` (each builder's
// header says which fields it reads).
std::unique_ptr<TargetBuilder> make_target_builder(const AugmentOptions& options);

}  // namespace textfeed::augment
