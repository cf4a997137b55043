// MmocrChain: words -> mmocr's geometric transforms -> (pixels of the first resize or crop) ->
// the other pixel ops -> colour jitter and normalize -> the family's targets.
#include "augment/mmocr/family_chain.h"

#include <algorithm>
#include <string>
#include <utility>

#include "augment/colour/photometric.h"
#include "augment/geometry/warp.h"
#include "base/quad.h"

namespace textfeed::augment::mmocr {
namespace {

constexpr int kPseSide = 736;
constexpr int kFceSide = 800;

}  // namespace

int chain_output_side(ChainKind kind) {
  return kind == ChainKind::kPsenet || kind == ChainKind::kPanet ? kPseSide : kFceSide;
}

MmocrChain::MmocrChain(const AugmentOptions& options, ChainKind kind,
                       std::unique_ptr<TargetBuilder> targets)
    : options_(options), kind_(kind), targets_(std::move(targets)) {}

Status MmocrChain::run_once(const ChainInput& input, uint32_t seed) {
  auto state = load_chain_input(input);
  if (!state.ok()) return state.status();
  state_ = std::move(*state);
  state_.record_trace = false;
  ChainStreams streams(seed);
  return run_chain(kind_, state_, streams);
}

// The sample's polygons (every point the source kept, else its quads) and ignored flags.
void gather_words(const SampleWords& s, std::vector<float>& xy, std::vector<uint32_t>& points,
                  std::vector<unsigned char>& ignored) {
  xy.clear(), points.clear(), ignored.clear();
  if (!s.poly_points.empty()) {
    xy.assign(s.poly_xy.begin(), s.poly_xy.end());
    points.assign(s.poly_points.begin(), s.poly_points.end());
    for (unsigned char label : s.poly_labels) ignored.push_back(label == kLabelIgnored ? 1 : 0);
    return;
  }
  for (size_t k = 0; k < s.quads.size(); ++k) {
    xy.insert(xy.end(), s.quads[k].xy.begin(), s.quads[k].xy.end());
    points.push_back(4);
    ignored.push_back(s.labels[k] == kLabelIgnored ? 1 : 0);
  }
}

Status MmocrChain::plan(const SampleWords& sample, Rng& rng, uint64_t /*epoch*/,
                        PixelRequest& request) {
  name_.assign(sample.name);
  const int side = chain_output_side(kind_);
  if (options_.crop_size != side)
    return Status::invalid_argument(
        "profile " + std::string(chain_name(kind_)) + " ends with " + std::to_string(side) + "x" +
        std::to_string(side) + " images (mmocr's chain): crop_size must be " +
        std::to_string(side) + ", got " + std::to_string(options_.crop_size));
  if (sample.pre_resized)
    return Status::invalid_argument(
        name_ + ": its pixels were resized when the cache was built, but profile " +
        std::string(chain_name(kind_)) +
        " trains from the original pixels (mmocr's chain resizes them itself); build the cache "
        "with --image-size 0 (cache build's default for this profile)");
  gather_words(sample, xy_, points_, ignored_);
  const ChainInput input{sample.height, sample.width, xy_, points_, ignored_};
  for (int attempt = 0; attempt <= kMaxChainRedraws; ++attempt) {
    TF_RETURN_IF_ERROR(run_once(input, rng.next_u32()).with_context(name_));
    // No word at all (psenet's FixInvalidPolygon) drops the sample whatever the draws.
    if (state_.dropped.empty() || state_.dropped == "FixInvalidPolygon") break;
  }
  if (!state_.dropped.empty())
    return Status::invalid_argument(name_ + ": mmocr's " + std::string(chain_name(kind_)) +
                                    " chain drops this sample at " + state_.dropped + " (" +
                                    std::to_string(kMaxChainRedraws + 1) +
                                    " draws; it has no word the chain keeps)");
  // The ops one warp can do from the source are where the pixels are fetched from: the JPEG is
  // decoded at the DCT scale their matrix allows, and only the part they read.
  const FoldedOps folded = fold_warp_prefix(state_.ops, sample.width, sample.height);
  request = PixelRequest{};
  std::copy(folded.matrix, folded.matrix + 6, request.matrix);
  request.out_w = folded.out_w, request.out_h = folded.out_h;
  const AxisScales scales = axis_scales(folded.matrix);
  request.min_scale = std::min(scales.sx, scales.sy);
  request.max_scale = std::max(scales.sx, scales.sy);
  first_op_ = folded.count;
  start_h_ = request.out_h, start_w_ = request.out_w;
  return Status();
}

Status MmocrChain::render(const PixelGrant& pixels, Rng& rng, uint64_t /*epoch*/,
                          const ChainOutputs& out, StageTimes& times) {
  if (out.compact)
    return Status::invalid_argument("profile " + std::string(chain_name(kind_)) +
                                    " has no compact rows");
  auto t = StageClock::now();
  start_.reset(start_h_, start_w_, 3);
  TF_RETURN_IF_ERROR(warp_to_crop(start_.mutable_view(), pixels.pixels, pixels.matrix, pixels.scale,
                                  warp_scratch_, pixels.frame)
                         .with_context(name_));
  auto image = apply_pixel_ops(start_.view(),
                               std::span<const PixelOp>(state_.ops).subspan(first_op_), scratch_);
  if (!image.ok()) return image.status().with_context(name_);
  const int side = chain_output_side(kind_);
  if (image->height != side || image->width != side)
    return Status::internal(name_ + ": the chain ended with a " + std::to_string(image->width) +
                            "x" + std::to_string(image->height) + " image, not " +
                            std::to_string(side) + "x" + std::to_string(side));
  times.warp += seconds_since(t);

  t = StageClock::now();
  const ColorParams color = draw_color_params(options_, rng);
  TF_RETURN_IF_ERROR(apply_photometric(out.image, *image, color, options_).with_context(name_));
  times.photometric += seconds_since(t);

  t = StageClock::now();
  out_xy_.clear(), out_ends_.clear(), out_labels_.clear();
  for (size_t k = 0; k < state_.polygons.size(); ++k) {
    const auto& xy = state_.polygons[k].xy;
    out_xy_.insert(out_xy_.end(), xy.begin(), xy.end());
    out_ends_.push_back(static_cast<uint32_t>(out_xy_.size() / 2));
    out_labels_.push_back(state_.ignored[k] != 0 ? kLabelIgnored : kLabelValid);
  }
  TF_RETURN_IF_ERROR(
      targets_->build(out.targets, PolygonsView{out_xy_, out_ends_}, out_labels_, side)
          .with_context(name_));
  times.targets += seconds_since(t);
  return Status();
}

void MmocrChain::words_after(SampleMeta& meta) const {
  meta.height = meta.width = chain_output_side(kind_);
  meta.scale_x = meta.scale_y = 1;
  meta.xy.clear(), meta.points.clear(), meta.ignore.clear();
  for (size_t k = 0; k < state_.polygons.size(); ++k) {
    const auto& xy = state_.polygons[k].xy;
    for (double v : xy) meta.xy.push_back(static_cast<float>(v));
    meta.points.push_back(static_cast<uint32_t>(xy.size() / 2));
    meta.ignore.push_back(state_.ignored[k] != 0 ? 1 : 0);
  }
}

}  // namespace textfeed::augment::mmocr
