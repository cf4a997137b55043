// What the mmocr family folders share (family_support.h).
#include "augment/mmocr/family_support.h"

#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "augment/detail/cv_mat.h"
#include "augment/mmocr/family_chain.h"
#include "base/quad.h"

namespace textfeed::augment::mmocr {

const TextKernelWords& WordsScratch::words(const PolygonsView& polygons,
                                           std::span<const unsigned char> labels, int side) {
  xy_.clear(), npts_.clear(), ignored_.clear();
  for (size_t k = 0; k < polygons.size(); ++k) {
    for (double v : polygons.word(k)) xy_.push_back(static_cast<float>(v));
    npts_.push_back(static_cast<int32_t>(polygons.points(k)));
    ignored_.push_back(k < labels.size() && labels[k] == kLabelIgnored ? 1 : 0);
  }
  words_ = TextKernelWords{xy_, npts_, ignored_, side, side};
  return words_;
}

Status check_target_views(std::span<const MutableImageView> out,
                          const std::vector<TargetTensor>& tensors) {
  if (out.size() != tensors.size())
    return Status::invalid_argument("expected " + std::to_string(tensors.size()) +
                                    " target views, got " + std::to_string(out.size()));
  for (size_t k = 0; k < out.size(); ++k) {
    const TargetTensor& t = tensors[k];
    if (out[k].dtype != t.dtype || out[k].channels != 1 || out[k].width != t.side ||
        out[k].height != t.channels * t.side)
      return Status::invalid_argument("target view " + std::string(t.name) +
                                      " does not match its tensor");
  }
  return Status();
}

MutableImageView view_rows(const MutableImageView& view, int first_row, int rows) {
  MutableImageView out = view;
  out.data = view.row(first_row);
  out.height = rows;
  return out;
}

std::unique_ptr<Chain> MmocrFamily::make_chain(const AugmentOptions& o) const {
  return std::make_unique<MmocrChain>(o, kind_, builder_(o));
}

namespace {

using textfeed::augment::internal::mat_of;

// mmcv's rescale_size with its _scale_size rounding (int(x * f + 0.5)).
InferenceSize keep_ratio(int w, int h, double long_side, double short_side) {
  const double f = std::min(long_side / std::max(w, h), short_side / std::min(w, h));
  InferenceSize s;
  s.width = std::max(static_cast<int>(w * f + 0.5), 1);
  s.height = std::max(static_cast<int>(h * f + 0.5), 1);
  s.base_width = w, s.base_height = h;
  return s;
}

constexpr double kPseTest = 2240, kFceTest = 2260, kSnakeLong = 1333, kShort736 = 736;

InferenceSize pse_size(int w, int h, int) { return keep_ratio(w, h, kPseTest, kPseTest); }
InferenceSize fce_size(int w, int h, int) { return keep_ratio(w, h, kFceTest, kFceTest); }
InferenceSize snake_size(int w, int h, int) { return keep_ratio(w, h, kSnakeLong, kShort736); }

// ShortScaleAspectJitter(736, ratio 1, aspect 1, divisor 1): round(side * 736 / short side),
// Python's round (half to even).
InferenceSize pan_size(int w, int h, int) {
  const double scale = kShort736 / std::min(w, h);
  InferenceSize s;
  s.width = std::max(static_cast<int>(std::nearbyint(w * scale)), 1);
  s.height = std::max(static_cast<int>(std::nearbyint(h * scale)), 1);
  s.base_width = w, s.base_height = h;
  return s;
}

// The ImageNet mean as uint8 RGB: what normalizes to about 0, as mmocr's padding is.
constexpr unsigned char kMeanRgb[3] = {124, 116, 104};

void mmocr_canvas(const ImageView& src, const InferencePlan& plan, InferenceScratch& s) {
  cv::Mat canvas = mat_of(s.canvas);
  canvas.setTo(cv::Scalar(kMeanRgb[0], kMeanRgb[1], kMeanRgb[2]));
  cv::Mat resized = mat_of(s.resized);
  cv::resize(mat_of(src), resized, resized.size(), 0, 0, cv::INTER_LINEAR);
  resized.copyTo(canvas(cv::Rect(0, 0, plan.width, plan.height)));
}

constexpr InferenceStyle style(InferenceSize (*size)(int, int, int), std::string_view rule) {
  return InferenceStyle{
      .size = size,
      .fill_canvas = mmocr_canvas,
      .mean = {123.675f / 255, 116.28f / 255, 103.53f / 255},
      .std = {58.395f / 255, 57.12f / 255, 57.375f / 255},
      .planes = ChannelOrder::kRgb,
      .size_rule = rule,
  };
}

constexpr InferenceStyle kPse = style(pse_size, "mmocr's Resize(2240, keep_ratio)");
constexpr InferenceStyle kPan = style(pan_size, "mmocr's ShortScaleAspectJitter(736)");
constexpr InferenceStyle kFce = style(fce_size, "mmocr's Resize(2260, keep_ratio)");
constexpr InferenceStyle kSnake = style(snake_size, "mmocr's Resize((1333, 736), keep_ratio)");

}  // namespace

const InferenceStyle& resize_keep_ratio_inference(ChainKind kind) {
  switch (kind) {
    case ChainKind::kPsenet:
      return kPse;
    case ChainKind::kPanet:
      return kPan;
    case ChainKind::kFcenet:
      return kFce;
    case ChainKind::kTextsnake:
      return kSnake;
  }
  return kPse;
}

}  // namespace textfeed::augment::mmocr
