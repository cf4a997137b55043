// mmocr's text kernels and effective mask (text_kernels.h). The fills are cv::fillPoly's, as in
// the reference (8-connected, boundary pixels included, shift 0); the offsets and the shapely
// measures are offset.h's.
#include "augment/geometry/text_kernels.h"

#include <cmath>
#include <cstddef>
#include <opencv2/imgproc.hpp>
#include <string>

namespace textfeed::augment {
namespace {

constexpr int32_t kMinPolygonPoints = 3;
// An unused TextKernelScratch::memo slot (shrink distances are >= 0).
constexpr int64_t kNoDistance = -1;

// cv::fillPoly reads int32 (x, y) pairs as cv::Point, which is laid out as two ints.
static_assert(sizeof(cv::Point) == 2 * sizeof(int32_t));

std::string word_name(std::string_view who, size_t k) {
  return std::string(who) + ": polygon " + std::to_string(k);
}

// cv2.fillPoly(plane, [xy], value) on one polygon of `values` int32 (2 per point).
void fill(cv::Mat& plane, const int32_t* xy, size_t values, double value) {
  const auto* p = reinterpret_cast<const cv::Point*>(xy);
  const int n = static_cast<int>(values / 2);
  cv::fillPoly(plane, &p, &n, 1, cv::Scalar(value));
}

cv::Mat float_mat(const MutableImageView& v) {
  return cv::Mat(v.height, v.width, CV_32F, v.data, static_cast<size_t>(v.stride_bytes));
}

// A plane of the caller's as a cv::Mat of its own element type (float32 or uint8).
cv::Mat plane_mat(const MutableImageView& v) {
  return cv::Mat(v.height, v.width, v.dtype == DType::kU8 ? CV_8U : CV_32F, v.data,
                 static_cast<size_t>(v.stride_bytes));
}

// poly.astype(np.int32) of every word (truncation toward zero, defined: the coordinates are
// bounded), and where each starts.
void truncate_words(const TextKernelWords& words, TextKernelScratch& s) {
  s.xy.resize(words.xy.size());
  for (size_t i = 0; i < words.xy.size(); ++i) s.xy[i] = static_cast<int32_t>(words.xy[i]);
  s.starts.assign(words.npts.size() + 1, 0);
  for (size_t k = 0; k < words.npts.size(); ++k)
    s.starts[k + 1] = s.starts[k] + 2 * static_cast<size_t>(words.npts[k]);
}

std::span<const int32_t> int_word(const TextKernelScratch& s, size_t k) {
  return std::span<const int32_t>(s.xy).subspan(s.starts[k], s.starts[k + 1] - s.starts[k]);
}

// The words as _generate_kernels sees them: int32 vertices and, for those with skip[k] == 0,
// their shapely area and perimeter, measured once for every ratio; no pieces yet.
Status prepare_words(const TextKernelWords& words, std::span<const uint8_t> skip, size_t ratios,
                     TextKernelScratch& s, std::string_view who) {
  truncate_words(words, s);
  const size_t n = words.npts.size();
  s.rings.assign(n, RingMeasure{});
  for (size_t k = 0; k < n; ++k) {
    if (skip[k] != 0) continue;
    const std::span<const int32_t> xy = int_word(s, k);
    s.ring_xy.assign(xy.begin(), xy.end());
    Result<RingMeasure> ring = shapely_ring_measure(s.ring_xy);
    if (!ring.ok()) return ring.status().with_context(word_name(who, k));
    s.rings[k] = *ring;
  }
  s.pieces.clear();
  s.memo.assign(n * ratios, KernelPiece{kNoDistance, 0, 0});
  return Status();
}

// Word k shrunk by `distance` px: the piece an earlier ratio made at that distance, else
// offset_polygon's, kept in s.pieces. `slots` is the number of ratios (memo slots per word).
Result<KernelPiece> shrunk_piece(TextKernelScratch& s, size_t k, size_t slots, int64_t distance,
                                 std::string_view who) {
  for (size_t j = 0; j < slots; ++j) {
    KernelPiece& m = s.memo[k * slots + j];
    if (m.distance_px == distance) return m;
    if (m.distance_px != kNoDistance) continue;
    Result<std::vector<int32_t>> piece =
        offset_polygon(int_word(s, k), -static_cast<double>(distance));
    if (!piece.ok()) return piece.status().with_context(word_name(who, k));
    m = KernelPiece{distance, s.pieces.size(), piece->size()};
    s.pieces.insert(s.pieces.end(), piece->begin(), piece->end());
    return m;
  }
  return Status::internal(word_name(who, k) + ": more shrink distances than ratios");
}

// One _generate_kernels call drawn into `plane`: the words in order, later over earlier.
// `binary`: every word fills 1 (a uint8 plane) instead of 1 + its index.
Status draw_ratio(const TextKernelWords& words, TextKernelScratch& s, double ratio, int64_t max_px,
                  std::span<const uint8_t> skip, size_t slots, cv::Mat& plane,
                  std::span<uint8_t> drawn, std::string_view who, bool binary = false) {
  for (size_t k = 0; k < words.npts.size(); ++k) {
    drawn[k] = 0;
    if (skip[k] != 0) continue;
    const int64_t distance = kernel_shrink_distance(s.rings[k], ratio, max_px);
    TF_ASSIGN_OR_RETURN(const KernelPiece piece, shrunk_piece(s, k, slots, distance, who));
    if (piece.size == 0) continue;
    fill(plane, s.pieces.data() + piece.begin, piece.size,
         binary ? 1.0 : static_cast<double>(k + 1));
    drawn[k] = 1;
  }
  return Status();
}

// 0 inside each word with flags[k] != 0 (its int32 vertices in s).
void fill_flagged(const TextKernelScratch& s, std::span<const uint8_t> flags, cv::Mat& plane) {
  for (size_t k = 0; k < flags.size(); ++k)
    if (flags[k] != 0) fill(plane, s.xy.data() + s.starts[k], s.starts[k + 1] - s.starts[k], 0.0);
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

constexpr std::string_view kKernelsWho = "text kernels";

Status check_plane(const MutableImageView& v, const TextKernelWords& words, DType dtype,
                   const char* what) {
  const ptrdiff_t row = static_cast<ptrdiff_t>(v.width) * (dtype == DType::kU8 ? 1 : 4);
  if (v.data == nullptr || v.dtype != dtype || v.channels != 1 || v.height != words.height ||
      v.width != words.width || v.stride_bytes < row)
    return Status::invalid_argument(std::string("text kernels: the ") + what + " plane is not a " +
                                    (dtype == DType::kU8 ? "uint8" : "float32") + " plane of the " +
                                    std::to_string(words.height) + " x " +
                                    std::to_string(words.width) + " canvas");
  return Status();
}

// The kernel planes share one dtype (the first's: float32 or uint8); the mask has its own.
Status check_planes(const TextKernelWords& words, size_t ratios, const TextKernelPlanes& planes) {
  if (planes.kernels.size() != ratios)
    return Status::invalid_argument("text kernels: " + std::to_string(planes.kernels.size()) +
                                    " kernel planes for " + std::to_string(ratios) + " ratios");
  auto kind = [](const MutableImageView& v) {
    return v.dtype == DType::kU8 ? DType::kU8 : DType::kF32;
  };
  for (const MutableImageView& v : planes.kernels)
    TF_RETURN_IF_ERROR(check_plane(v, words, kind(planes.kernels.front()), "kernel"));
  return check_plane(planes.mask, words, kind(planes.mask), "mask");
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

Status check_text_kernel_args(const TextKernelWords& words, std::span<const double> shrink_ratios,
                              int64_t max_shrink_dist_px) {
  TF_RETURN_IF_ERROR(check_text_kernel_words(words, kKernelsWho));
  for (double r : shrink_ratios)
    if (!(r > 0 && r <= 1))
      return Status::invalid_argument("text kernels: shrink ratio " + std::to_string(r) +
                                      " outside (0, 1]");
  if (max_shrink_dist_px < 0)
    return Status::invalid_argument("text kernels: max_shrink_dist " +
                                    std::to_string(max_shrink_dist_px) + " px is negative");
  return Status();
}

Status draw_text_kernel(const TextKernelWords& words, double shrink_ratio,
                        int64_t max_shrink_dist_px, std::span<const uint8_t> skip,
                        std::span<float> plane, std::span<uint8_t> drawn) {
  constexpr std::string_view kWho = "text kernel";
  TextKernelScratch s;
  TF_RETURN_IF_ERROR(prepare_words(words, skip, 1, s, kWho));
  cv::Mat m = float_mat(dense_plane(plane.data(), words.height, words.width));
  return draw_ratio(words, s, shrink_ratio, max_shrink_dist_px, skip, 1, m, drawn, kWho);
}

void fill_ignored_words(const TextKernelWords& words, std::span<const uint8_t> flags,
                        std::span<float> plane) {
  TextKernelScratch s;
  truncate_words(words, s);
  cv::Mat m = float_mat(dense_plane(plane.data(), words.height, words.width));
  fill_flagged(s, flags.first(words.npts.size()), m);
}

Status draw_text_kernels(const TextKernelWords& words, std::span<const double> shrink_ratios,
                         int64_t max_shrink_dist_px, const TextKernelPlanes& planes,
                         TextKernelScratch& scratch) {
  TF_RETURN_IF_ERROR(check_text_kernel_args(words, shrink_ratios, max_shrink_dist_px));
  TF_RETURN_IF_ERROR(check_planes(words, shrink_ratios.size(), planes));
  const size_t n = words.npts.size(), slots = shrink_ratios.size();
  scratch.none.assign(n, 0);
  scratch.drawn.resize(n);
  TF_RETURN_IF_ERROR(prepare_words(words, scratch.none, slots, scratch, kKernelsWho));
  for (size_t k = 0; k < slots; ++k) {
    cv::Mat m = plane_mat(planes.kernels[k]);
    if (!planes.kernels_zeroed) m.setTo(cv::Scalar(0));
    TF_RETURN_IF_ERROR(draw_ratio(words, scratch, shrink_ratios[k], max_shrink_dist_px,
                                  scratch.none, slots, m, scratch.drawn, kKernelsWho,
                                  planes.kernels[k].dtype == DType::kU8));
  }
  cv::Mat mask = plane_mat(planes.mask);
  mask.setTo(cv::Scalar(1));
  fill_flagged(scratch, words.ignored, mask);
  return Status();
}

Result<TextKernels> make_text_kernels(const TextKernelWords& words,
                                      std::span<const double> shrink_ratios,
                                      int64_t max_shrink_dist_px) {
  TF_RETURN_IF_ERROR(check_text_kernel_args(words, shrink_ratios, max_shrink_dist_px));
  const size_t plane = static_cast<size_t>(words.height) * static_cast<size_t>(words.width);
  TextKernels out{static_cast<int>(shrink_ratios.size()), words.height, words.width,
                  std::vector<float>(shrink_ratios.size() * plane, 0.0f),
                  std::vector<float>(plane)};
  std::vector<MutableImageView> kernels(shrink_ratios.size());
  for (size_t k = 0; k < kernels.size(); ++k)
    kernels[k] = dense_plane(out.kernels.data() + k * plane, words.height, words.width);
  const TextKernelPlanes planes{kernels, dense_plane(out.mask.data(), words.height, words.width),
                                true};
  TextKernelScratch scratch;
  TF_RETURN_IF_ERROR(draw_text_kernels(words, shrink_ratios, max_shrink_dist_px, planes, scratch));
  return out;
}

}  // namespace textfeed::augment
