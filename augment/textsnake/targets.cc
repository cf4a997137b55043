// TextSnake's targets (targets.h). The fills are cv::fillPoly's, as in the reference (shift 0,
// 8-connected, boundary pixels included); each centre quad is its own fill, so later quads
// overwrite earlier ones.
#include "augment/textsnake/targets.h"

#include <algorithm>
#include <opencv2/imgproc.hpp>
#include <span>
#include <string>

namespace textfeed::augment {
namespace {

constexpr std::string_view kWho = "textsnake targets";
// What a centre quad's fill leaves in the centre mask until its maps are written: no final value
// (those are 0 and 1), so the quad's pixels are told from those of earlier quads.
constexpr uint8_t kQuadStamp = 2;

// cv::fillPoly reads int32 (x, y) pairs as cv::Point, which is laid out as two ints.
static_assert(sizeof(cv::Point) == 2 * sizeof(int32_t));

std::string word_name(size_t k) { return std::string(kWho) + ": polygon " + std::to_string(k); }

// cv2.fillPoly(plane, [poly], value) with one int32 polygon of `points` (x, y) pairs.
void fill_one(cv::Mat& plane, const int32_t* xy, int points, double value) {
  const auto* p = reinterpret_cast<const cv::Point*>(xy);
  cv::fillPoly(plane, &p, &points, 1, cv::Scalar(value));
}

// np.array(poly, dtype=np.int32): truncation toward zero (the coordinates are bounded).
void truncate(std::span<const float> xy, std::vector<int32_t>& out) {
  out.resize(xy.size());
  for (size_t i = 0; i < xy.size(); ++i) out[i] = static_cast<int32_t>(xy[i]);
}

void curve_points(std::span<const float> xy, std::vector<CurvePoint<float>>& out) {
  out.resize(xy.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = {xy[2 * i], xy[2 * i + 1]};
}

// The planes as cv::Mat headers over the caller's views.
struct Planes {
  cv::Mat text, mask, center, radius, sin, cos;
};

cv::Mat mat_of(const MutableImageView& v, int type) {
  return cv::Mat(v.height, v.width, type, v.data, static_cast<size_t>(v.stride_bytes));
}

Planes planes_of(const TextSnakePlanes& p) {
  return {mat_of(p.text_mask, CV_8U),          mat_of(p.mask, CV_8U),
          mat_of(p.center_region_mask, CV_8U), mat_of(p.radius_map, CV_32F),
          mat_of(p.sin_map, CV_32F),           mat_of(p.cos_map, CV_32F)};
}

// _draw_center_region_maps: each quad filled on its own into all four planes, later quads over
// earlier ones. The four fills of a quad cover the same pixels (the rasterisation does not depend
// on the plane), so the quad is rasterised once, into the centre mask as kQuadStamp, and its
// pixels then take their values in all four planes; none lies outside the quad's vertex box.
void draw_quads(Planes& p, const std::vector<CenterQuad>& quads) {
  for (const CenterQuad& q : quads) {
    fill_one(p.center, q.xy.data(), 4, kQuadStamp);
    const auto [x0, x1] = std::minmax({q.xy[0], q.xy[2], q.xy[4], q.xy[6]});
    const auto [y0, y1] = std::minmax({q.xy[1], q.xy[3], q.xy[5], q.xy[7]});
    const int xb = std::max(x0, 0), xe = std::min(x1, p.center.cols - 1);
    const int yb = std::max(y0, 0), ye = std::min(y1, p.center.rows - 1);
    for (int y = yb; y <= ye; ++y) {
      uint8_t* center = p.center.ptr<uint8_t>(y);
      float* radius = p.radius.ptr<float>(y);
      float* sin = p.sin.ptr<float>(y);
      float* cos = p.cos.ptr<float>(y);
      for (int x = xb; x <= xe; ++x) {
        if (center[x] != kQuadStamp) continue;
        center[x] = 1, radius[x] = q.radius, sin[x] = q.sin, cos[x] = q.cos;
      }
    }
  }
}

Status check_plane(const MutableImageView& v, DType dtype, const TextKernelWords& words,
                   const char* what) {
  if (v.data == nullptr || v.dtype != dtype || v.channels != 1 || v.height != words.height ||
      v.width != words.width ||
      v.stride_bytes < static_cast<ptrdiff_t>(v.width * dtype_size(dtype)))
    return Status::invalid_argument(std::string(kWho) + ": the " + what + " plane is not a " +
                                    std::string(dtype_name(dtype)) + " plane of the " +
                                    std::to_string(words.height) + " x " +
                                    std::to_string(words.width) + " canvas");
  return Status();
}

Status check_planes(const TextKernelWords& words, const TextSnakePlanes& p) {
  TF_RETURN_IF_ERROR(check_plane(p.text_mask, DType::kU8, words, "text mask"));
  TF_RETURN_IF_ERROR(check_plane(p.mask, DType::kU8, words, "mask"));
  TF_RETURN_IF_ERROR(check_plane(p.center_region_mask, DType::kU8, words, "centre region"));
  TF_RETURN_IF_ERROR(check_plane(p.radius_map, DType::kF32, words, "radius"));
  TF_RETURN_IF_ERROR(check_plane(p.sin_map, DType::kF32, words, "sin"));
  return check_plane(p.cos_map, DType::kF32, words, "cos");
}

// Every plane's background, written once: the mask 1, the others 0 unless they hold it already.
void fill_backgrounds(Planes& p, bool zeroed) {
  p.mask.setTo(cv::Scalar(1));
  if (zeroed) return;
  for (cv::Mat* m : {&p.text, &p.center, &p.radius, &p.sin, &p.cos}) m->setTo(cv::Scalar(0));
}

}  // namespace

Status check_textsnake_words(const TextKernelWords& words) {
  return check_text_kernel_words(words, kWho);
}

Status draw_textsnake_targets(const TextKernelWords& words, const TextSnakePlanes& planes,
                              TextSnakeScratch& scratch) {
  TF_RETURN_IF_ERROR(check_text_kernel_words(words, kWho));
  TF_RETURN_IF_ERROR(check_planes(words, planes));
  Planes p = planes_of(planes);
  fill_backgrounds(p, planes.zeroed);
  // The planes are independent, so one pass over the words draws them all in the reference's
  // word order.
  size_t start = 0;
  for (size_t k = 0; k < words.npts.size(); ++k) {
    const std::span<const float> xy = words.xy.subspan(start, 2 * words.npts[k]);
    start += xy.size();
    truncate(xy, scratch.xy);
    if (words.ignored[k] != 0) {
      fill_one(p.mask, scratch.xy.data(), words.npts[k], 0);
      continue;
    }
    fill_one(p.text, scratch.xy.data(), words.npts[k], 1);
    curve_points(xy, scratch.points);
    Result<std::vector<CenterQuad>> quads =
        center_region_quads<float>(scratch.points, kTextSnakeCenterLine);
    if (!quads.ok()) return quads.status().with_context(word_name(k));
    draw_quads(p, *quads);
  }
  return Status();
}

Result<TextSnakeTargets> make_textsnake_targets(const TextKernelWords& words) {
  TF_RETURN_IF_ERROR(check_text_kernel_words(words, kWho));
  const int h = words.height, w = words.width;
  const size_t plane = static_cast<size_t>(h) * static_cast<size_t>(w);
  TextSnakeTargets out{h,
                       w,
                       std::vector<uint8_t>(plane, 0),
                       std::vector<uint8_t>(plane),
                       std::vector<uint8_t>(plane, 0),
                       std::vector<float>(plane, 0.0f),
                       std::vector<float>(plane, 0.0f),
                       std::vector<float>(plane, 0.0f)};
  const TextSnakePlanes planes{dense_plane(out.text_mask.data(), h, w),
                               dense_plane(out.mask.data(), h, w),
                               dense_plane(out.center_region_mask.data(), h, w),
                               dense_plane(out.radius_map.data(), h, w),
                               dense_plane(out.sin_map.data(), h, w),
                               dense_plane(out.cos_map.data(), h, w),
                               /*zeroed=*/true};
  TextSnakeScratch scratch;
  TF_RETURN_IF_ERROR(draw_textsnake_targets(words, planes, scratch));
  return out;
}

}  // namespace textfeed::augment
