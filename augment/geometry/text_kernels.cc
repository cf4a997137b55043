// mmocr's text kernels and effective mask (text_kernels.h). The fills are cv::fillPoly's, as in
// the reference (8-connected, boundary pixels included, shift 0); the offsets and the shapely
// measures are offset.h's.
#include "augment/geometry/text_kernels.h"

#include <cmath>
#include <cstddef>
#include <opencv2/imgproc.hpp>
#include <string>

#include "augment/geometry/offset.h"

namespace textfeed::augment {
namespace {

constexpr int32_t kMinPolygonPoints = 3;

std::string word_name(std::string_view who, size_t k) {
  return std::string(who) + ": polygon " + std::to_string(k);
}

// Where each polygon starts in words.xy (in floats), and one past the last.
std::vector<size_t> polygon_starts(const TextKernelWords& words) {
  std::vector<size_t> starts(words.npts.size() + 1, 0);
  for (size_t k = 0; k < words.npts.size(); ++k)
    starts[k + 1] = starts[k] + 2 * static_cast<size_t>(words.npts[k]);
  return starts;
}

// poly.astype(np.int32): truncation toward zero (defined: the coordinates are bounded).
std::vector<int32_t> truncated(std::span<const float> xy) {
  std::vector<int32_t> out(xy.size());
  for (size_t i = 0; i < xy.size(); ++i) out[i] = static_cast<int32_t>(xy[i]);
  return out;
}

// cv2.fillPoly(plane, [xy], value) on one polygon.
void fill(cv::Mat& plane, std::span<const int32_t> xy, double value) {
  std::vector<cv::Point> pts;
  pts.reserve(xy.size() / 2);
  for (size_t i = 0; i + 1 < xy.size(); i += 2) pts.emplace_back(xy[i], xy[i + 1]);
  const cv::Point* p = pts.data();
  const int n = static_cast<int>(pts.size());
  cv::fillPoly(plane, &p, &n, 1, cv::Scalar(value));
}

cv::Mat plane_mat(const TextKernelWords& words, std::span<float> plane) {
  return cv::Mat(words.height, words.width, CV_32F, plane.data());
}

// A word as _generate_kernels sees it: int32 vertices and their shapely area and perimeter.
struct IntWord {
  std::vector<int32_t> xy;
  RingMeasure ring;
};

// The int32 words of `words` (those with skip[k] == 0; the others stay empty), measured once for
// every ratio.
Result<std::vector<IntWord>> int_words(const TextKernelWords& words, std::span<const uint8_t> skip,
                                       std::string_view who) {
  const std::vector<size_t> starts = polygon_starts(words);
  std::vector<IntWord> out(words.npts.size());
  for (size_t k = 0; k < out.size(); ++k) {
    if (skip[k] != 0) continue;
    out[k].xy = truncated(words.xy.subspan(starts[k], starts[k + 1] - starts[k]));
    const std::vector<double> xy(out[k].xy.begin(), out[k].xy.end());
    Result<RingMeasure> ring = shapely_ring_measure(xy);
    if (!ring.ok()) return ring.status().with_context(word_name(who, k));
    out[k].ring = *ring;
  }
  return out;
}

Status draw_int_words(const std::vector<IntWord>& int_xy, double ratio, int64_t max_px,
                      std::span<const uint8_t> skip, cv::Mat& plane, std::span<uint8_t> drawn,
                      std::string_view who) {
  for (size_t k = 0; k < int_xy.size(); ++k) {
    drawn[k] = 0;
    if (skip[k] != 0) continue;
    const int64_t distance = kernel_shrink_distance(int_xy[k].ring, ratio, max_px);
    Result<std::vector<int32_t>> piece =
        offset_polygon(int_xy[k].xy, -static_cast<double>(distance));
    if (!piece.ok()) return piece.status().with_context(word_name(who, k));
    if (piece->empty()) continue;
    fill(plane, *piece, static_cast<double>(k + 1));
    drawn[k] = 1;
  }
  return Status();
}

Status check_polygon(const TextKernelWords& words, size_t k, size_t start, std::string_view who) {
  const int32_t n = words.npts[k];
  if (n < kMinPolygonPoints || n > static_cast<int32_t>(kMaxTextKernelPolygonPoints))
    return Status::invalid_argument(word_name(who, k) + " has " + std::to_string(n) +
                                    " points (3.." + std::to_string(kMaxTextKernelPolygonPoints) +
                                    ")");
  for (size_t i = start; i < start + 2 * static_cast<size_t>(n); ++i)
    if (!(std::fabs(words.xy[i]) <= kMaxTextKernelCoordinate))
      return Status::invalid_argument(word_name(who, k) + ": coordinate " +
                                      std::to_string(words.xy[i]) +
                                      " is not finite or beyond +-1e6 px");
  return Status();
}

}  // namespace

Status check_text_kernel_words(const TextKernelWords& words, std::string_view who) {
  const std::string prefix(who);
  if (words.height < 1 || words.width < 1 || words.height > kMaxTextKernelCanvasSide ||
      words.width > kMaxTextKernelCanvasSide)
    return Status::invalid_argument(prefix + ": canvas " + std::to_string(words.height) + " x " +
                                    std::to_string(words.width) + " outside 1.." +
                                    std::to_string(kMaxTextKernelCanvasSide) + " px per side");
  if (words.ignored.size() != words.npts.size())
    return Status::invalid_argument(prefix + ": " + std::to_string(words.npts.size()) +
                                    " point counts but " + std::to_string(words.ignored.size()) +
                                    " ignored flags");
  size_t start = 0;
  for (size_t k = 0; k < words.npts.size(); ++k) {
    if (words.npts[k] < 0 || start + 2 * static_cast<size_t>(words.npts[k]) > words.xy.size())
      return Status::invalid_argument(word_name(who, k) + ": its " + std::to_string(words.npts[k]) +
                                      " points run past the end of the coordinates");
    TF_RETURN_IF_ERROR(check_polygon(words, k, start, who));
    start += 2 * static_cast<size_t>(words.npts[k]);
  }
  if (start != words.xy.size())
    return Status::invalid_argument(prefix + ": " + std::to_string(words.xy.size()) +
                                    " coordinates for " + std::to_string(start / 2) +
                                    " points (2 per point)");
  return Status();
}

Status draw_text_kernel(const TextKernelWords& words, double shrink_ratio,
                        int64_t max_shrink_dist_px, std::span<const uint8_t> skip,
                        std::span<float> plane, std::span<uint8_t> drawn) {
  constexpr std::string_view kWho = "text kernel";
  TF_ASSIGN_OR_RETURN(const std::vector<IntWord> int_xy, int_words(words, skip, kWho));
  cv::Mat m = plane_mat(words, plane);
  return draw_int_words(int_xy, shrink_ratio, max_shrink_dist_px, skip, m, drawn, kWho);
}

void fill_ignored_words(const TextKernelWords& words, std::span<const uint8_t> flags,
                        std::span<float> plane) {
  const std::vector<size_t> starts = polygon_starts(words);
  cv::Mat m = plane_mat(words, plane);
  for (size_t k = 0; k < words.npts.size(); ++k)
    if (flags[k] != 0)
      fill(m, truncated(words.xy.subspan(starts[k], starts[k + 1] - starts[k])), 0.0);
}

Result<TextKernels> make_text_kernels(const TextKernelWords& words,
                                      std::span<const double> shrink_ratios,
                                      int64_t max_shrink_dist_px) {
  constexpr std::string_view kWho = "text kernels";
  TF_RETURN_IF_ERROR(check_text_kernel_words(words, kWho));
  for (double r : shrink_ratios)
    if (!(r > 0 && r <= 1))
      return Status::invalid_argument("text kernels: shrink ratio " + std::to_string(r) +
                                      " outside (0, 1]");
  if (max_shrink_dist_px < 0)
    return Status::invalid_argument("text kernels: max_shrink_dist " +
                                    std::to_string(max_shrink_dist_px) + " px is negative");
  const size_t n = words.npts.size();
  const size_t plane = static_cast<size_t>(words.height) * static_cast<size_t>(words.width);
  const std::vector<uint8_t> none(n, 0);
  TF_ASSIGN_OR_RETURN(const std::vector<IntWord> int_xy, int_words(words, none, kWho));
  TextKernels out{static_cast<int>(shrink_ratios.size()), words.height, words.width,
                  std::vector<float>(shrink_ratios.size() * plane, 0.0f),
                  std::vector<float>(plane, 1.0f)};
  std::vector<uint8_t> drawn(n);
  for (size_t k = 0; k < shrink_ratios.size(); ++k) {
    cv::Mat m = plane_mat(words, std::span<float>(out.kernels).subspan(k * plane, plane));
    TF_RETURN_IF_ERROR(
        draw_int_words(int_xy, shrink_ratios[k], max_shrink_dist_px, none, m, drawn, kWho));
  }
  fill_ignored_words(words, words.ignored, out.mask);
  return out;
}

}  // namespace textfeed::augment
