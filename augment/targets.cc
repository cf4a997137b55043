// EAST targets: one even-odd fill for the score, per-box geometry summed in float32 like numpy,
// computed only inside each box's bounds; ROI at full resolution then bilinear to the map.
#include "augment/targets.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <opencv2/imgproc.hpp>

#include "augment/shrink.h"

namespace textfeed::augment {
namespace {

using Poly = std::vector<cv::Point>;

// int32(round_half_even(scale * v)) per vertex.
Poly to_poly(const Quad8& v, double scale) {
  Poly p(4);
  for (int i = 0; i < 4; ++i)
    p[i] = cv::Point(static_cast<int>(std::nearbyint(scale * v[2 * i])), static_cast<int>(std::nearbyint(scale * v[2 * i + 1])));
  return p;
}

bool usable(const Quad8& v) {
  for (double c : v)
    if (!std::isfinite(c) || std::abs(c) > 1e6) return false;
  return true;
}

cv::Mat mat(const MutableImageView& v, int rows) { return cv::Mat(rows, v.width, CV_32F, v.data, static_cast<size_t>(v.stride_bytes)); }

Status check_view(const MutableImageView& v, int h, int w, const char* name) {
  if (v.data == nullptr || v.dtype != DType::kF32 || v.height != h || v.width != w || v.channels != 1 ||
      v.stride_bytes < static_cast<ptrdiff_t>(w * sizeof(float)))
    return Status::invalid_argument(std::string("targets: view '") + name + "' must be float32 " +
                                    std::to_string(h) + "x" + std::to_string(w));
  return Status();
}

}  // namespace

Status make_targets(const TargetViews& out, std::span<const double> vertices, std::span<const unsigned char> labels,
                    int crop_size, const AugmentOptions& o, TargetScratch& scratch) {
  const int m = static_cast<int>(crop_size * o.map_scale);
  TF_RETURN_IF_ERROR(check_view(out.score, m, m, "score"));
  TF_RETURN_IF_ERROR(check_view(out.geo, 5 * m, m, "geo"));
  TF_RETURN_IF_ERROR(check_view(out.mask, m, m, "mask"));
  if (vertices.size() != labels.size() * 8)
    return Status::invalid_argument("targets: " + std::to_string(vertices.size()) + " coordinates for " +
                                    std::to_string(labels.size()) + " labels");
  const double scale = o.map_scale;
  const int g = static_cast<int>(std::lround(1.0 / o.map_scale));  // int(1/scale)
  cv::Mat score = mat(out.score, m), mask = mat(out.mask, m);
  cv::Mat geo[5];
  for (int c = 0; c < 5; ++c) {
    geo[c] = cv::Mat(m, m, CV_32F, out.geo.data + static_cast<ptrdiff_t>(c) * m * out.geo.stride_bytes,
                     static_cast<size_t>(out.geo.stride_bytes));
    geo[c].setTo(0);
  }
  score.setTo(0);
  const bool overlap_bookkeeping = o.overlap != Overlap::kSum;
  if (overlap_bookkeeping) {
    scratch.cover.assign(static_cast<size_t>(m) * m, 0);
    scratch.owner_area.assign(static_cast<size_t>(m) * m, std::numeric_limits<float>::infinity());
  }

  std::vector<Poly> score_polys, ignored_polys;
  const size_t n = labels.size();
  for (size_t b = 0; b < n; ++b) {
    Quad8 v;
    std::copy_n(vertices.begin() + 8 * b, 8, v.begin());
    if (!usable(v)) continue;
    if (o.fix_orientation) v = order_clockwise(v);
    const bool ignored = labels[b] == 0;
    if (ignored) ignored_polys.push_back(to_poly(v, o.mask == MaskKind::kRoi && o.roi_resize != RoiResize::kRasterizeAtMap ? 1.0 : scale));
    if (ignored && o.ignored_targets == IgnoredTargets::kNone) continue;

    const Poly poly = to_poly(shrink_quad(v), scale);
    score_polys.push_back(poly);
    // This box's own mask, rasterized inside its bounds only.
    const cv::Rect bounds = cv::boundingRect(poly) & cv::Rect(0, 0, m, m);
    if (bounds.empty()) continue;
    scratch.box_mask.assign(static_cast<size_t>(bounds.area()), 0);
    cv::Mat box(bounds.height, bounds.width, CV_8U, scratch.box_mask.data());
    const std::vector<Poly> one{poly};
    cv::fillPoly(box, one, cv::Scalar(1), cv::LINE_8, 0, -bounds.tl());

    const int k = min_rect_angle_deg(v, o.angle_error);
    const double theta = angle_rad(k);
    const float theta_f = static_cast<float>(theta);
    const double c = std::cos(theta), s = std::sin(theta);
    const Quad8 r = rotate_quad(v, theta);
    const double xmin = std::min({r[0], r[2], r[4], r[6]}), xmax = std::max({r[0], r[2], r[4], r[6]});
    const double ymin = std::min({r[1], r[3], r[5], r[7]}), ymax = std::max({r[1], r[3], r[5], r[7]});
    const double ax = v[0], ay = v[1];
    const float area = static_cast<float>((xmax - xmin) * (ymax - ymin));
    for (int i = bounds.y; i < bounds.br().y; ++i) {
      const unsigned char* mrow = box.ptr<unsigned char>(i - bounds.y) - bounds.x;
      float* g0 = geo[0].ptr<float>(i);
      float* g1 = geo[1].ptr<float>(i);
      float* g2 = geo[2].ptr<float>(i);
      float* g3 = geo[3].ptr<float>(i);
      float* g4 = geo[4].ptr<float>(i);
      const double dy = static_cast<double>(i * g) - ay;
      for (int j = bounds.x; j < bounds.br().x; ++j) {
        if (!mrow[j]) continue;
        const double dx = static_cast<double>(j * g) - ax;
        const double rx = (c * dx + (-s) * dy) + ax;
        const double ry = (s * dx + c * dy) + ay;
        const double d1 = std::max(0.0, ry - ymin), d2 = std::max(0.0, ymax - ry);
        const double d3 = std::max(0.0, rx - xmin), d4 = std::max(0.0, xmax - rx);
        if (!overlap_bookkeeping) {
          // numpy: float32 map += float64 value, cast back per addition; angle added in float32.
          g0[j] = static_cast<float>(static_cast<double>(g0[j]) + d1);
          g1[j] = static_cast<float>(static_cast<double>(g1[j]) + d2);
          g2[j] = static_cast<float>(static_cast<double>(g2[j]) + d3);
          g3[j] = static_cast<float>(static_cast<double>(g3[j]) + d4);
          g4[j] = g4[j] + theta_f;
          continue;
        }
        const size_t at = static_cast<size_t>(i) * m + j;
        ++scratch.cover[at];
        const bool take = o.overlap == Overlap::kLast || o.overlap == Overlap::kIgnore ||
                          (o.overlap == Overlap::kSmallest && area < scratch.owner_area[at]);
        if (take) {
          scratch.owner_area[at] = area;
          g0[j] = static_cast<float>(d1), g1[j] = static_cast<float>(d2), g2[j] = static_cast<float>(d3);
          g3[j] = static_cast<float>(d4), g4[j] = theta_f;
        }
      }
    }
  }

  if (o.fill_rule == FillRule::kEvenOdd) {
    if (!score_polys.empty()) cv::fillPoly(score, score_polys, cv::Scalar(1));
  } else {
    for (const Poly& p : score_polys) cv::fillPoly(score, std::vector<Poly>{p}, cv::Scalar(1));
  }

  // The mask.
  auto fill_ignored = [&](cv::Mat& target, double value) {
    if (ignored_polys.empty()) return;
    if (o.fill_rule == FillRule::kEvenOdd) {
      cv::fillPoly(target, ignored_polys, cv::Scalar(value));
    } else {
      for (const Poly& p : ignored_polys) cv::fillPoly(target, std::vector<Poly>{p}, cv::Scalar(value));
    }
  };
  if (o.mask == MaskKind::kIgnored) {
    mask.setTo(0);
    fill_ignored(mask, 1.0);
  } else if (ignored_polys.empty()) {
    mask.setTo(1);  // what the bilinear resize of an all-ones mask gives
  } else if (o.roi_resize == RoiResize::kRasterizeAtMap) {
    mask.setTo(1);
    fill_ignored(mask, 0.0);
  } else {
    scratch.roi_full.resize(static_cast<size_t>(crop_size) * crop_size);
    cv::Mat full(crop_size, crop_size, CV_32F, scratch.roi_full.data());
    full.setTo(1);
    fill_ignored(full, 0.0);
    cv::resize(full, mask, cv::Size(m, m), 0, 0,
               o.roi_resize == RoiResize::kNearest ? cv::INTER_NEAREST : cv::INTER_LINEAR);
  }

  if (o.overlap == Overlap::kIgnore) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j)
        if (scratch.cover[static_cast<size_t>(i) * m + j] > 1) {
          for (auto& gc : geo) gc.at<float>(i, j) = 0;
          score.at<float>(i, j) = 0;
          mask.at<float>(i, j) = o.mask == MaskKind::kIgnored ? 1.f : 0.f;
        }
  }
  if (o.clamp_geo > 0)
    for (int ch = 0; ch < 4; ++ch) cv::min(geo[ch], o.clamp_geo, geo[ch]);
  return Status();
}

}  // namespace textfeed::augment
