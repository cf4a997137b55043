// The db profile's evaluation preprocessing: PaddleOCR's DetResizeForTest (augment/db/inference.h).
#include "augment/db/inference.h"

#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

#include "augment/detail/cv_mat.h"

namespace textfeed::augment {
namespace {

using internal::mat_of;

// DetResizeForTest pads an image whose sides add up to less than 64 with zeros at the bottom and
// right to at least 32 x 32 before it resizes (its image_padding).
bool paddle_pads(int width, int height) { return width + height < 64; }
int paddle_padded(int side, bool pads) { return pads ? std::max(side, 32) : side; }

// DetResizeForTest (limit_type 'max'): a side after int() truncation of side * ratio, rounded to
// the nearest multiple of 32 (Python's round, half to even), at least 32.
int paddle_side(int side, double ratio) {
  const int truncated = static_cast<int>(side * ratio);
  return std::max(static_cast<int>(std::nearbyint(truncated / 32.0)) * 32, 32);
}

// A small image padded first; the longer side limited to the canvas (never enlarged), then each
// side to a multiple of 32; the scales are of the padded size, whose top left the image is.
InferenceSize paddle_size(int src_width, int src_height, int canvas) {
  const bool pads = paddle_pads(src_width, src_height);
  InferenceSize s;
  s.base_width = paddle_padded(src_width, pads);
  s.base_height = paddle_padded(src_height, pads);
  const int longer = std::max(s.base_width, s.base_height);
  const double ratio = longer > canvas ? static_cast<double>(canvas) / longer : 1.0;
  s.width = paddle_side(s.base_width, ratio);
  s.height = paddle_side(s.base_height, ratio);
  return s;
}

// cv2.resize's default (bilinear), also at the same size, into the top left of a black canvas.
void paddle_canvas(const ImageView& src, const InferencePlan& plan, InferenceScratch& s) {
  cv::Mat canvas = mat_of(s.canvas);
  canvas.setTo(cv::Scalar::all(0));
  cv::Mat resized = mat_of(s.resized);
  cv::Mat from = mat_of(src);
  cv::Mat padded;
  if (const bool pads = paddle_pads(src.width, src.height); pads) {
    padded =
        cv::Mat::zeros(paddle_padded(src.height, pads), paddle_padded(src.width, pads), CV_8UC3);
    from.copyTo(padded(cv::Rect(0, 0, src.width, src.height)));
    from = padded;
  }
  cv::resize(from, resized, resized.size(), 0, 0, cv::INTER_LINEAR);
  resized.copyTo(canvas(cv::Rect(0, 0, plan.width, plan.height)));
}

// The rounding passes the canvas only when the canvas is off the multiples of 32.
std::string paddle_oversize_fix(int /*needed_side*/) { return "make image_size a multiple of 32"; }

constexpr InferenceStyle kPaddleDet{
    .size = paddle_size,
    .fill_canvas = paddle_canvas,
    .mean = {kImageNetMean[0], kImageNetMean[1], kImageNetMean[2]},
    .std = {kImageNetStd[0], kImageNetStd[1], kImageNetStd[2]},
    .planes = ChannelOrder::kBgr,  // PaddleOCR's planes follow OpenCV's BGR decode
    .size_rule = "rounding to multiples of 32",
    .oversize_fix = paddle_oversize_fix,
};

}  // namespace

const InferenceStyle& paddle_det_inference() { return kPaddleDet; }

}  // namespace textfeed::augment
