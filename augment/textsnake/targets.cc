// TextSnake's targets (targets.h). The fills are cv::fillPoly's, as in the reference (shift 0,
// 8-connected, boundary pixels included); each centre quad is its own fill, so later quads
// overwrite earlier ones.
#include "augment/textsnake/targets.h"

#include <opencv2/imgproc.hpp>
#include <span>
#include <string>

#include "augment/geometry/sidelines.h"

namespace textfeed::augment {
namespace {

constexpr std::string_view kWho = "textsnake targets";

std::string word_name(size_t k) { return std::string(kWho) + ": polygon " + std::to_string(k); }

// cv2.fillPoly(plane, [poly], value) with one int32 polygon.
void fill_one(cv::Mat& plane, const std::vector<cv::Point>& poly, double value) {
  const cv::Point* p = poly.data();
  const int n = static_cast<int>(poly.size());
  cv::fillPoly(plane, &p, &n, 1, cv::Scalar(value));
}

// np.array(poly, dtype=np.int32): truncation toward zero (the coordinates are bounded).
std::vector<cv::Point> truncated(std::span<const float> xy) {
  std::vector<cv::Point> pts;
  pts.reserve(xy.size() / 2);
  for (size_t i = 0; i + 1 < xy.size(); i += 2)
    pts.emplace_back(static_cast<int32_t>(xy[i]), static_cast<int32_t>(xy[i + 1]));
  return pts;
}

std::vector<CurvePoint<float>> curve_points(std::span<const float> xy) {
  std::vector<CurvePoint<float>> pts(xy.size() / 2);
  for (size_t i = 0; i < pts.size(); ++i) pts[i] = {xy[2 * i], xy[2 * i + 1]};
  return pts;
}

// The planes of TextSnakeTargets as cv::Mat headers over its vectors.
struct Planes {
  cv::Mat text, mask, center, radius, sin, cos;
};

Planes planes_of(TextSnakeTargets& t) {
  const int h = t.height, w = t.width;
  return {
      cv::Mat(h, w, CV_8U, t.text_mask.data()),          cv::Mat(h, w, CV_8U, t.mask.data()),
      cv::Mat(h, w, CV_8U, t.center_region_mask.data()), cv::Mat(h, w, CV_32F, t.radius_map.data()),
      cv::Mat(h, w, CV_32F, t.sin_map.data()),           cv::Mat(h, w, CV_32F, t.cos_map.data())};
}

// _draw_center_region_maps: each quad filled on its own into all four planes.
void draw_quads(Planes& p, const std::vector<CenterQuad>& quads) {
  for (const CenterQuad& q : quads) {
    const std::vector<cv::Point> box = {
        {q.xy[0], q.xy[1]}, {q.xy[2], q.xy[3]}, {q.xy[4], q.xy[5]}, {q.xy[6], q.xy[7]}};
    fill_one(p.center, box, 1);
    fill_one(p.sin, box, q.sin);
    fill_one(p.cos, box, q.cos);
    fill_one(p.radius, box, q.radius);
  }
}

TextSnakeTargets blank_targets(int h, int w) {
  const size_t plane = static_cast<size_t>(h) * static_cast<size_t>(w);
  return {h,
          w,
          std::vector<uint8_t>(plane, 0),
          std::vector<uint8_t>(plane, 1),
          std::vector<uint8_t>(plane, 0),
          std::vector<float>(plane, 0.0f),
          std::vector<float>(plane, 0.0f),
          std::vector<float>(plane, 0.0f)};
}

}  // namespace

Result<TextSnakeTargets> make_textsnake_targets(const TextKernelWords& words) {
  TF_RETURN_IF_ERROR(check_text_kernel_words(words, kWho));
  TextSnakeTargets out = blank_targets(words.height, words.width);
  Planes p = planes_of(out);
  // The planes are independent, so one pass over the words draws them all in the reference's
  // word order.
  size_t start = 0;
  for (size_t k = 0; k < words.npts.size(); ++k) {
    const std::span<const float> xy = words.xy.subspan(start, 2 * words.npts[k]);
    start += xy.size();
    if (words.ignored[k] != 0) {
      fill_one(p.mask, truncated(xy), 0);
      continue;
    }
    fill_one(p.text, truncated(xy), 1);
    const std::vector<CurvePoint<float>> pts = curve_points(xy);
    Result<std::vector<CenterQuad>> quads = center_region_quads<float>(pts, kTextSnakeCenterLine);
    if (!quads.ok()) return quads.status().with_context(word_name(k));
    draw_quads(p, *quads);
  }
  return out;
}

}  // namespace textfeed::augment
