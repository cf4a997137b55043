// What the four mmocr family folders (augment/psenet, panet, fcenet, textsnake) share: their
// recipe defaults (mmocr's configs), the words a target builder hands to mmocr's target functions,
// the planes of a batch view, the evaluation preprocessing of mmocr's test pipelines,
// and one Family implementation each folder instantiates with its own chain, builder and style.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "augment/family.h"
#include "augment/geometry/text_kernels.h"
#include "augment/inference.h"
#include "augment/mmocr/chains.h"
#include "augment/mmocr/profile_defaults.h"
#include "augment/target_builder.h"

namespace textfeed::augment::mmocr {

// The words of one sample as mmocr's target functions take them, from a builder's arguments:
// float32 vertices, int32 point counts and ignored flags (labels 0), on a side x side canvas.
// Buffers are reused from sample to sample; `words` borrows them until the next call.
class WordsScratch {
 public:
  const TextKernelWords& words(const PolygonsView& polygons, std::span<const unsigned char> labels,
                               int side);

 private:
  std::vector<float> xy_;
  std::vector<int32_t> npts_;
  std::vector<uint8_t> ignored_;
  TextKernelWords words_;
};

// Checks that `out` matches `tensors` one for one (dtype, channels * side rows, side columns).
// Errors: kInvalidArgument naming the tensor.
Status check_target_views(std::span<const MutableImageView> out,
                          const std::vector<TargetTensor>& tensors);

// Rows [first_row, first_row + rows) of `view` as a view of their own (one channel of a target
// tensor whose channels are stacked as rows); valid while `view` is.
MutableImageView view_rows(const MutableImageView& view, int first_row, int rows);

// mmocr's test pipelines: Resize(scale=(long, short), keep_ratio=True) (psenet 2240, fcenet 2260,
// textsnake 1333 x 736) or PANet's ShortScaleAspectJitter(736, ratio 1, divisor 1), cv2 bilinear,
// at the canvas's top left; the rest of the canvas holds the ImageNet mean (the data
// preprocessor pads its normalized batch with 0), RGB planes.
const InferenceStyle& resize_keep_ratio_inference(ChainKind kind);

// A family of one mmocr chain: `name`, the one profile it trains, its chain kind, its builder
// factory and its evaluation style.
class MmocrFamily final : public Family {
 public:
  using BuilderFactory = std::unique_ptr<TargetBuilder> (*)(const AugmentOptions&);
  MmocrFamily(std::string_view name, const Profile* profile, ChainKind kind, BuilderFactory builder)
      : name_(name), profile_(profile), kind_(kind), builder_(builder) {}

  std::string_view name() const override { return name_; }
  std::span<const Profile> profiles() const override { return {profile_, 1}; }
  std::unique_ptr<TargetBuilder> make_target_builder(const AugmentOptions& o) const override {
    return builder_(o);
  }
  std::unique_ptr<Chain> make_chain(const AugmentOptions& o) const override;
  const InferenceStyle& inference_style(Profile) const override {
    return resize_keep_ratio_inference(kind_);
  }

 private:
  std::string_view name_;
  const Profile* profile_;
  ChainKind kind_;
  BuilderFactory builder_;
};

}  // namespace textfeed::augment::mmocr
