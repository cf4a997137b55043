// The training chain the profiles psenet, panet, fcenet and textsnake share (augment/family.h
// Chain): mmocr's geometric transforms on the words (augment/mmocr/chains.h, seeded per sample
// from the sample's Rng), the pixels of the first resize fetched at their scale and the other
// pixel ops applied in order (augment/mmocr/pixel_ops.h), the colour jitter and normalize, and
// the family's targets on the final polygons. No compact rows.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "augment/family.h"
#include "augment/geometry/warp.h"
#include "augment/mmocr/chains.h"
#include "augment/mmocr/pixel_ops.h"
#include "augment/target_builder.h"

namespace textfeed::augment::mmocr {

// How many times plan() redraws a sample the reference would drop (all words rotated out of the
// image) before it reports the sample: mmocr's dataset would draw another sample instead.
inline constexpr int kMaxChainRedraws = 8;

// The side of the square image `kind` ends with: 736 (psenet, panet), 800 (fcenet, textsnake).
int chain_output_side(ChainKind kind);

class MmocrChain final : public Chain {
 public:
  MmocrChain(const AugmentOptions& options, ChainKind kind, std::unique_ptr<TargetBuilder> targets);

  // Errors: kInvalidArgument (crop_size other than chain_output_side, a polygon the chain refuses,
  // a sample the chain dropped kMaxChainRedraws + 1 times), kInternal (GEOS failed).
  Status plan(const SampleWords& sample, Rng& rng, uint64_t epoch, PixelRequest& request) override;
  Status render(const PixelGrant& pixels, Rng& rng, uint64_t epoch, const ChainOutputs& out,
                StageTimes& times) override;
  void words_after(SampleMeta& meta) const override;

  // The last sample's state after the chain (for `textfeed show` and tests).
  const ChainState& last_state() const { return state_; }

 private:
  Status run_once(const ChainInput& input, uint32_t seed);

  AugmentOptions options_;
  ChainKind kind_;
  std::unique_ptr<TargetBuilder> targets_;
  std::string name_;
  std::vector<float> xy_;
  std::vector<uint32_t> points_;
  std::vector<unsigned char> ignored_;
  ChainState state_;
  size_t first_op_ = 0;  // ops_[0] is folded into the pixel request when it is a resize
  PixelScratch scratch_;
  WarpScratch warp_scratch_;
  Image start_;  // the pixels fetched: start_h_ x start_w_
  int start_h_ = 0, start_w_ = 0;
  std::vector<double> out_xy_;
  std::vector<uint32_t> out_ends_;
  std::vector<unsigned char> out_labels_;
};

}  // namespace textfeed::augment::mmocr
