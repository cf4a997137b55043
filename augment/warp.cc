// warp_to_crop: compose the decode scale into the plan's matrix, pre-shrink by area where needed
// (only the region the crop reads), then one cv::warpAffine straight into the caller's crop.
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

double max_scale(const double m[6]) { return std::max(std::hypot(m[0], m[3]), std::hypot(m[1], m[4])); }

int preshrink_halvings(double scale) {
  int k = 0;
  while (scale * (1 << k) < 0.5 && k < 16) ++k;
  return k;
}

std::optional<SourceBounds> crop_source_bounds(const double m[6], int crop) { return crop_source_bounds(m, crop, crop); }

std::optional<SourceBounds> crop_source_bounds(const double m[6], int width, int height) {
  const double det = m[0] * m[4] - m[1] * m[3];
  if (!(std::abs(det) > 0) || !std::isfinite(det)) return std::nullopt;
  const double ia = m[4] / det, ib = -m[1] / det, ic = -m[3] / det, id = m[0] / det;
  SourceBounds b{1e300, 1e300, -1e300, -1e300};
  for (const double cx : {-0.5, width - 0.5})
    for (const double cy : {-0.5, height - 0.5}) {
      const double x = ia * (cx - m[2]) + ib * (cy - m[5]), y = ic * (cx - m[2]) + id * (cy - m[5]);
      b.x0 = std::min(b.x0, x), b.x1 = std::max(b.x1, x), b.y0 = std::min(b.y0, y), b.y1 = std::max(b.y1, y);
    }
  return b;
}

Status warp_to_crop(const MutableImageView& out, const ImageView& src, const double matrix[6], double src_scale,
                    WarpScratch& scratch) {
  if (src.empty() || src.channels != 3 || src.dtype != DType::kU8)
    return Status::invalid_argument("warp: source must be a non-empty RGB uint8 image");
  if (out.empty() || out.channels != 3 || out.dtype != DType::kU8)
    return Status::invalid_argument("warp: output must be an RGB uint8 view");
  if (!(src_scale > 0)) return Status::invalid_argument("warp: src_scale must be positive");
  double m[6];
  std::copy(matrix, matrix + 6, m);
  if (src_scale != 1.0) compose_scale(m, src_scale, src_scale);
  const double det = m[0] * m[4] - m[1] * m[3];
  if (!(std::abs(det) > 0) || !std::isfinite(det)) return Status::invalid_argument("warp: singular matrix");
  cv::Mat s(src.height, src.width, CV_8UC3, const_cast<uint8_t*>(src.data), static_cast<size_t>(src.stride_bytes));
  cv::Mat dst(out.height, out.width, CV_8UC3, out.data, static_cast<size_t>(out.stride_bytes));
  const double scale = max_scale(m);
  if (scale < 0.5) {
    // Pre-shrink by f = 2^k, the least power of two that leaves the warp a scale of at least 0.5,
    // and only the part of the source the crop reads: the inverse image of the crop's square plus
    // a margin for both filters, in whole f x f blocks aligned with the source grid. Each halving
    // is OpenCV's 2x2 area path (its fast case; other integer factors are many times slower).
    const int k = preshrink_halvings(scale);
    const int f = 1 << k;
    const SourceBounds b = *crop_source_bounds(m, out.width, out.height);  // det was checked above
    const double margin = 2.0 * f + 2;
    auto lo = [&](double v, int limit) {  // round down to a multiple of f, clamp to [0, limit]
      return static_cast<int>(std::clamp(std::floor((v - margin) / f) * f, 0.0, static_cast<double>(limit)));
    };
    auto hi = [&](double v, int limit) {
      return static_cast<int>(std::clamp(std::ceil((v + margin) / f) * f, 0.0, static_cast<double>(limit)));
    };
    const int x0 = lo(b.x0, src.width), x1 = hi(b.x1, src.width), y0 = lo(b.y0, src.height), y1 = hi(b.y1, src.height);
    // Sizes after each halving: OpenCV's round(side / 2); a partial last block (at the source's
    // right or bottom edge only) is averaged over the pixels it has.
    int sw = x1 - x0, sh = y1 - y0;
    for (int i = 0; i < k; ++i) sw = cv::saturate_cast<int>(sw * 0.5), sh = cv::saturate_cast<int>(sh * 0.5);
    if (x1 <= x0 || y1 <= y0 || sw < 1 || sh < 1) {  // the crop reads nothing of the source
      dst.setTo(cv::Scalar(0, 0, 0));
      return Status();
    }
    // Ping-pong between the two buffers so that the last halving lands in `shrunk`.
    cv::Mat level = s(cv::Rect(x0, y0, x1 - x0, y1 - y0));
    for (int i = 0; i < k; ++i) {
      std::vector<uint8_t>& buf = ((k - 1 - i) % 2 == 0) ? scratch.shrunk : scratch.halved;
      const int lw = cv::saturate_cast<int>(level.cols * 0.5), lh = cv::saturate_cast<int>(level.rows * 0.5);
      if (buf.size() < static_cast<size_t>(lw) * lh * 3) buf.resize(static_cast<size_t>(lw) * lh * 3);
      cv::Mat next(lh, lw, CV_8UC3, buf.data());
      cv::resize(level, next, cv::Size(), 0.5, 0.5, cv::INTER_AREA);
      level = next;
    }
    // Shrunk pixel (u, v) -> source pixel: x = x0 + (u + 0.5) f - 0.5 (pixel centres).
    const double bx = x0 + 0.5 * f - 0.5, by = y0 + 0.5 * f - 0.5;
    const double r[6] = {m[0] * f, m[1] * f, m[0] * bx + m[1] * by + m[2],
                         m[3] * f, m[4] * f, m[3] * bx + m[4] * by + m[5]};
    std::copy(r, r + 6, m);
    s = level;
  }
  const cv::Mat mm(2, 3, CV_64F, m);
  cv::warpAffine(s, dst, mm, dst.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
  return Status();
}

}  // namespace textfeed::augment
