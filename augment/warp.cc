// warp_to_crop: compose the decode scale into the plan's matrix, pre-shrink by area where needed,
// then one cv::warpAffine straight into the caller's crop.
#include "augment/warp.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

namespace textfeed::augment {
namespace {

// m := m * S, where S maps pixel x of an image scaled by `s` (centre convention) to the unscaled
// image: x_full = (x + 0.5) / s - 0.5.
void compose_scale(double m[6], double sx, double sy) {
  const double ax = 1 / sx, bx = 0.5 / sx - 0.5, ay = 1 / sy, by = 0.5 / sy - 0.5;
  const double r[6] = {m[0] * ax, m[1] * ay, m[0] * bx + m[1] * by + m[2],
                       m[3] * ax, m[4] * ay, m[3] * bx + m[4] * by + m[5]};
  std::copy(r, r + 6, m);
}

}  // namespace

Status warp_to_crop(const MutableImageView& out, const ImageView& src, const double matrix[6], double src_scale,
                    WarpScratch& scratch) {
  if (src.empty() || src.channels != 3 || src.dtype != DType::kU8)
    return Status::invalid_argument("warp: source must be a non-empty RGB uint8 image");
  if (out.empty() || out.channels != 3 || out.dtype != DType::kU8 || out.width != out.height)
    return Status::invalid_argument("warp: output must be a square RGB uint8 view");
  double m[6];
  std::copy(matrix, matrix + 6, m);
  if (src_scale != 1.0) compose_scale(m, src_scale, src_scale);
  cv::Mat s(src.height, src.width, CV_8UC3, const_cast<uint8_t*>(src.data), static_cast<size_t>(src.stride_bytes));
  // Largest output step per source pixel along either axis.
  const double scale = std::max(std::hypot(m[0], m[3]), std::hypot(m[1], m[4]));
  if (scale < 0.5) {
    const int f = std::max(2, static_cast<int>(1.0 / scale));
    const int sw = std::max(1, (src.width + f - 1) / f), sh = std::max(1, (src.height + f - 1) / f);
    scratch.shrunk.resize(static_cast<size_t>(sw) * sh * 3);
    cv::Mat small(sh, sw, CV_8UC3, scratch.shrunk.data());
    cv::resize(s, small, small.size(), 0, 0, cv::INTER_AREA);
    compose_scale(m, static_cast<double>(sw) / src.width, static_cast<double>(sh) / src.height);
    s = small;
  }
  cv::Mat dst(out.height, out.width, CV_8UC3, out.data, static_cast<size_t>(out.stride_bytes));
  const cv::Mat mm(2, 3, CV_64F, m);
  cv::warpAffine(s, dst, mm, dst.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
  return Status();
}

}  // namespace textfeed::augment
