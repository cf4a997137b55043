// The EAST profiles' evaluation preprocessing: the baseline's detect() and SakuraRiven's
// resize_img (augment/east/inference.h).
#include "augment/east/inference.h"

#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "augment/detail/cv_mat.h"

namespace textfeed::augment {
namespace {

using internal::mat_of;

// albumentations' LongestMaxSize: scale = canvas / longer side; each side round()ed (half to
// even, as Python 3 rounds) unless the scale is exactly 1.
InferenceSize detect_size(int src_width, int src_height, int canvas) {
  const double scale = canvas / static_cast<double>(std::max(src_width, src_height));
  InferenceSize s{.base_width = src_width, .base_height = src_height};
  s.width = scale == 1.0 ? src_width : static_cast<int>(std::nearbyint(src_width * scale));
  s.height = scale == 1.0 ? src_height : static_cast<int>(std::nearbyint(src_height * scale));
  return s;
}

void detect_canvas(const ImageView& src, const InferencePlan& plan, InferenceScratch& s) {
  cv::Mat resized = mat_of(s.resized);
  cv::Mat canvas = mat_of(s.canvas);
  if (plan.width == src.width && plan.height == src.height)
    mat_of(src).copyTo(resized);  // the reference skips the resize at scale 1
  else
    cv::resize(mat_of(src), resized, resized.size(), 0, 0, cv::INTER_LINEAR);
  cv::copyMakeBorder(resized, canvas, 0, plan.canvas - plan.height, 0, plan.canvas - plan.width,
                     cv::BORDER_REFLECT_101);
}

// SakuraRiven's resize_img: a side already a multiple of 32 stays, else int(side / 32) * 32.
int floor32(int side) { return side % 32 == 0 ? side : side / 32 * 32; }

InferenceSize sakura_size(int src_width, int src_height, int /*canvas: the size is kept*/) {
  return {floor32(src_width), floor32(src_height), src_width, src_height};
}

void sakura_canvas(const ImageView& src, const InferencePlan& plan, InferenceScratch& s) {
  mat_of(s.canvas).setTo(cv::Scalar::all(0));
  MutableImageView top_left = s.canvas.mutable_view();  // the resized image's part of the canvas
  top_left.width = plan.width;
  top_left.height = plan.height;
  pil_bilinear_resize(src, top_left, s);
}

constexpr InferenceStyle kBaselineDetect{
    .size = detect_size,
    .fill_canvas = detect_canvas,
    .mean = {kImageNetMean[0], kImageNetMean[1], kImageNetMean[2]},
    .std = {kImageNetStd[0], kImageNetStd[1], kImageNetStd[2]},
    .size_rule = "the resize of its longer side to the canvas",
};

constexpr InferenceStyle kSakura{
    .size = sakura_size,
    .fill_canvas = sakura_canvas,
    .keeps_size = true,
    .size_rule = "rounding to multiples of 32",
};

}  // namespace

const InferenceStyle& baseline_detect_inference() { return kBaselineDetect; }
const InferenceStyle& sakura_inference() { return kSakura; }

}  // namespace textfeed::augment
