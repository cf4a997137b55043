// FCENet's targets (targets.h). The fills are cv::fillPoly's, as in the reference (shift 0,
// 8-connected, boundary pixels included). The Fourier coefficients are a direct DFT of the 11
// wanted frequencies instead of numpy's pocketfft: the values agree to about 1e-13 relative, far
// inside the goldens' tolerance; only an outline whose orientation rounding decides
// (|c_1| == |c_-1| up to an ulp) can come out reversed.
#include "augment/fcenet/targets.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <opencv2/imgproc.hpp>
#include <string>

#include "augment/fcenet/numpy_argsort.h"

namespace textfeed::augment {
namespace {

constexpr std::string_view kWho = "fce targets";
// mmocr divides the box size by (canvas height + this).
constexpr double kProportionEps = 1e-8;
// _resample_polygon divides each edge's length by (total + this).
constexpr double kResampleEps = 1e-8;
// Fewer resampled points than this and the reference's coefficient slicing fails (IndexError).
constexpr size_t kMinResampledPoints = kFceFourierDegree + 1;
// Map channels: text region, centre region, effective mask, then Re and Im of c_-5..c_5.
constexpr int kTextRegionChannel = 0;
constexpr int kCenterRegionChannel = 1;
constexpr int kEffectiveMaskChannel = 2;
constexpr int kRealChannel0 = 3;
constexpr int kImagChannel0 = kRealChannel0 + kFceCoefficients;

using Pt = CurvePoint<double>;

std::string word_name(size_t k) { return std::string(kWho) + ": polygon " + std::to_string(k); }

// _resample_polygon: each edge i (closing edge included) gets int(len_i / (total + eps) * 400)
// points p_i + (p_(i+1) - p_i) / num * j. The lengths are numpy float64 scalars raised with
// ** (glibc's pow), and Python's sum adds them left to right.
std::vector<Pt> resample_outline(std::span<const Pt> poly) {
  const size_t n = poly.size();
  std::vector<double> len(n);
  double total = 0;
  for (size_t i = 0; i < n; ++i) {
    const Pt a = poly[i], b = poly[(i + 1) % n];
    len[i] = std::pow(std::pow(a.x - b.x, 2.0) + std::pow(a.y - b.y, 2.0), 0.5);
    total += len[i];
  }
  std::vector<Pt> out;
  for (size_t i = 0; i < n; ++i) {
    const auto num = static_cast<int32_t>(len[i] / (total + kResampleEps) * kFceOutlineSamples);
    if (num == 0) continue;
    const Pt a = poly[i], b = poly[(i + 1) % n];
    const Pt step{(b.x - a.x) / num, (b.y - a.y) / num};
    for (int32_t j = 0; j < num; ++j) out.push_back({a.x + step.x * j, a.y + step.y * j});
  }
  return out;
}

struct StartPoint {
  size_t index = 0;
  bool tie = false;
};

// Whether another order of equal keys in np.argsort's result would move the start point. The
// first `take` places hold every point whose key is below the last one's, K; the points with
// key K may straddle the boundary, and then any of them could be in. Among the candidates, the
// first of those with the smallest y wins, so equal keys matter only where they share that y.
bool start_depends_on_tie_order(std::span<const double> key, std::span<const double> y,
                                std::span<const int64_t> order, size_t take) {
  const double last = key[order[take - 1]];
  const bool straddle = take < key.size() && key[order[take]] == last;
  double y_below = std::numeric_limits<double>::infinity();
  for (size_t j = 0; j < take; ++j)
    if (key[order[j]] < last) y_below = std::min(y_below, y[order[j]]);
  std::vector<int64_t> fixed;  // the candidates every order has
  if (straddle) {
    for (size_t i = 0; i < key.size(); ++i)
      if (key[i] == last && y[i] < y_below) return true;  // in or out by the order alone
    for (size_t j = 0; j < take; ++j)
      if (key[order[j]] < last) fixed.push_back(order[j]);
  } else {
    fixed.assign(order.begin(), order.begin() + static_cast<ptrdiff_t>(take));
  }
  double y_min = std::numeric_limits<double>::infinity(), key_min = y_min;
  for (int64_t i : fixed) y_min = std::min(y_min, y[i]);
  for (int64_t i : fixed)
    if (y[i] == y_min) key_min = std::min(key_min, key[i]);
  return std::count_if(fixed.begin(), fixed.end(),
                       [&](int64_t i) { return y[i] == y_min && key[i] == key_min; }) > 1;
}

// _normalize_polygon's start: of the 8 points with the smallest |x - mean x| in np.argsort's
// order, the first with the smallest y - mean y. The mean is np.mean(axis=0): a sum in order.
StartPoint start_point(std::span<const Pt> p) {
  Pt mean;
  for (const Pt& q : p) mean.x += q.x, mean.y += q.y;
  mean = {mean.x / static_cast<double>(p.size()), mean.y / static_cast<double>(p.size())};
  std::vector<double> key(p.size()), y(p.size());
  for (size_t i = 0; i < p.size(); ++i) key[i] = std::fabs(p[i].x - mean.x), y[i] = p[i].y - mean.y;
  const std::vector<int64_t> order = numpy_argsort(key);
  const size_t take = std::min(p.size(), static_cast<size_t>(kFceStartCandidates));
  size_t best = 0;
  for (size_t j = 1; j < take; ++j)
    if (y[order[j]] < y[order[best]]) best = j;
  return {static_cast<size_t>(order[best]), start_depends_on_tie_order(key, y, order, take)};
}

// c_k = sum_j z_j exp(-2 pi i k j / n) / n for k = -5..5, z_j = x_j + i y_j of the outline
// started at `start`. numpy divides the complex FFT by n as x * (1 / n).
std::array<std::complex<double>, kFceCoefficients> fourier(std::span<const Pt> p, size_t start) {
  const size_t n = p.size();
  std::vector<double> cos_t(n), sin_t(n);
  for (size_t t = 0; t < n; ++t) {
    const double angle = 2 * std::numbers::pi * static_cast<double>(t) / static_cast<double>(n);
    cos_t[t] = std::cos(angle), sin_t[t] = std::sin(angle);
  }
  const double inv_n = 1.0 / static_cast<double>(n);
  std::array<std::complex<double>, kFceCoefficients> c;
  for (int j = 0; j < kFceCoefficients; ++j) {
    const int64_t k = j - kFceFourierDegree;
    const int64_t nn = static_cast<int64_t>(n);
    double re = 0, im = 0;
    for (int64_t s = 0; s < nn; ++s) {
      const Pt z = p[(start + static_cast<size_t>(s)) % n];
      const size_t t = static_cast<size_t>(((k * s) % nn + nn) % nn);
      // z * exp(-i angle) = (x + i y)(cos - i sin)
      re += z.x * cos_t[t] + z.y * sin_t[t];
      im += z.y * cos_t[t] - z.x * sin_t[t];
    }
    c[static_cast<size_t>(j)] = {re * inv_n, im * inv_n};
  }
  return c;
}

// _clockwise: keep the order if |c_1| > |c_-1|, reverse it if smaller; on a tie compare |c_2|
// with |c_-2| and reverse unless greater. np.abs of a complex is hypot.
void fix_orientation(FceFourierFit& fit) {
  auto mag = [&fit](int k) {
    return std::abs(fit.coeff[static_cast<size_t>(kFceFourierDegree + k)]);
  };
  const double plus = mag(1), minus = mag(-1);
  const double big = std::max(plus, minus);
  fit.cw_margin = big > 0 ? (plus - minus) / big : 0.0;
  const bool keep = plus > minus || (!(plus < minus) && mag(2) > mag(-2));
  if (!keep) std::reverse(fit.coeff.begin(), fit.coeff.end());
}

}  // namespace

Result<FceFourierFit> fce_fourier_fit(std::span<const CurvePoint<double>> outline) {
  const std::vector<Pt> p = resample_outline(outline);
  if (p.size() < kMinResampledPoints)
    return Status::invalid_argument("its outline resamples to " + std::to_string(p.size()) +
                                    " points, fewer than " + std::to_string(kMinResampledPoints) +
                                    " (mmocr fails with IndexError)");
  FceFourierFit fit;
  fit.resampled_n = static_cast<int32_t>(p.size());
  const StartPoint start = start_point(p);
  fit.start_index = static_cast<int32_t>(start.index);
  fit.start_tie = start.tie;
  fit.coeff = fourier(p, start.index);
  fix_orientation(fit);
  return fit;
}

namespace {

// The words of one level, as the reference lists them.
struct LevelWords {
  std::vector<int32_t> text;
  std::vector<int32_t> ignored;
};

// A word's vertices truncated to integers (np.int_ of the float32 input).
std::vector<cv::Point> int_points(std::span<const float> xy) {
  std::vector<cv::Point> pts(xy.size() / 2);
  for (size_t i = 0; i < pts.size(); ++i)
    pts[i] = {static_cast<int32_t>(xy[2 * i]), static_cast<int32_t>(xy[2 * i + 1])};
  return pts;
}

// Which levels each word goes to: p = max(box w, box h) / (H + eps), box = cv2.boundingRect of
// the integer vertices (pixel counts), p in each level's open range.
std::array<LevelWords, kFceLevels> assign_levels(const std::vector<std::vector<cv::Point>>& words,
                                                 std::span<const uint8_t> ignored, int height) {
  std::array<LevelWords, kFceLevels> levels;
  for (size_t k = 0; k < words.size(); ++k) {
    const cv::Rect box = cv::boundingRect(words[k]);
    const double p = std::max(box.width, box.height) / (height + kProportionEps);
    for (size_t l = 0; l < levels.size(); ++l) {
      const auto [lo, hi] = kFceLevelProportionRanges[l];
      if (!(lo < p && p < hi)) continue;
      (ignored[k] != 0 ? levels[l].ignored : levels[l].text).push_back(static_cast<int32_t>(k));
    }
  }
  return levels;
}

// poly / stride in float64, and its int32 truncation (what the fills see).
std::vector<Pt> level_points(const std::vector<cv::Point>& word, int stride) {
  std::vector<Pt> out(word.size());
  for (size_t i = 0; i < word.size(); ++i)
    out[i] = {static_cast<double>(word[i].x) / stride, static_cast<double>(word[i].y) / stride};
  return out;
}
std::vector<cv::Point> truncated(const std::vector<Pt>& pts) {
  std::vector<cv::Point> out(pts.size());
  for (size_t i = 0; i < pts.size(); ++i)
    out[i] = {static_cast<int32_t>(pts[i].x), static_cast<int32_t>(pts[i].y)};
  return out;
}

void fill_one(cv::Mat& plane, const std::vector<cv::Point>& poly, double value) {
  const cv::Point* p = poly.data();
  const int n = static_cast<int>(poly.size());
  cv::fillPoly(plane, &p, &n, 1, cv::Scalar(value));
}

// The level's planes as cv::Mat headers over `maps`.
cv::Mat channel(FceLevelTargets& t, int c) {
  const size_t plane = static_cast<size_t>(t.height) * static_cast<size_t>(t.width);
  return cv::Mat(t.height, t.width, CV_32F, t.maps.data() + static_cast<size_t>(c) * plane);
}

// _generate_center_region_mask: every quad of every word in ONE fillPoly call, whose even-odd
// rule cancels where quads overlap an even number of times.
Status draw_center_region(FceLevelTargets& t, const std::vector<std::vector<Pt>>& words) {
  std::vector<std::vector<cv::Point>> boxes;
  for (size_t w = 0; w < words.size(); ++w) {
    Result<std::vector<CenterQuad>> quads = center_region_quads<double>(words[w], kFceCenterLine);
    if (!quads.ok())
      return quads.status().with_context(word_name(static_cast<size_t>(t.text_index[w])));
    for (const CenterQuad& q : *quads)
      boxes.push_back(
          {{q.xy[0], q.xy[1]}, {q.xy[2], q.xy[3]}, {q.xy[4], q.xy[5]}, {q.xy[6], q.xy[7]}});
  }
  if (boxes.empty()) return Status();
  std::vector<const cv::Point*> ptrs;
  std::vector<int> counts;
  for (const auto& b : boxes)
    ptrs.push_back(b.data()), counts.push_back(static_cast<int>(b.size()));
  cv::Mat plane = channel(t, kCenterRegionChannel);
  cv::fillPoly(plane, ptrs.data(), counts.data(), static_cast<int>(boxes.size()), cv::Scalar(1));
  return Status();
}

// _generate_fourier_maps for one word: over its fill, the 22 coefficient channels take its
// values (float32), the k = 0 pair relative to the pixel: Re(c_0) - x, Im(c_0) - y.
void draw_fourier(FceLevelTargets& t, cv::Mat& scratch, const std::vector<cv::Point>& fill,
                  const FceFourierFit& fit) {
  fill_one(scratch, fill, 1);
  const cv::Rect box = cv::boundingRect(fill) & cv::Rect(0, 0, t.width, t.height);
  const size_t plane = static_cast<size_t>(t.height) * static_cast<size_t>(t.width);
  for (int y = box.y; y < box.y + box.height; ++y)
    for (int x = box.x; x < box.x + box.width; ++x) {
      uint8_t& inside = scratch.at<uint8_t>(y, x);
      if (inside == 0) continue;
      inside = 0;
      const size_t at =
          static_cast<size_t>(y) * static_cast<size_t>(t.width) + static_cast<size_t>(x);
      for (int j = 0; j < kFceCoefficients; ++j) {
        double re = fit.coeff[static_cast<size_t>(j)].real();
        double im = fit.coeff[static_cast<size_t>(j)].imag();
        if (j == kFceFourierDegree) re -= x, im -= y;
        t.maps[static_cast<size_t>(kRealChannel0 + j) * plane + at] = static_cast<float>(re);
        t.maps[static_cast<size_t>(kImagChannel0 + j) * plane + at] = static_cast<float>(im);
      }
    }
}

// One level's maps and debug fields from its words (input indices into `words`).
Status draw_level(FceLevelTargets& t, const std::vector<std::vector<cv::Point>>& words) {
  std::vector<std::vector<Pt>> text(t.text_index.size());
  for (size_t w = 0; w < text.size(); ++w) {
    text[w] = level_points(words[static_cast<size_t>(t.text_index[w])], t.stride);
    cv::Mat c = channel(t, kTextRegionChannel);
    fill_one(c, truncated(text[w]), 1);
  }
  TF_RETURN_IF_ERROR(draw_center_region(t, text));
  cv::Mat mask = channel(t, kEffectiveMaskChannel);
  mask = 1.0f;
  for (int32_t k : t.ignore_index)
    fill_one(mask, truncated(level_points(words[static_cast<size_t>(k)], t.stride)), 0);
  cv::Mat scratch = cv::Mat::zeros(t.height, t.width, CV_8U);
  for (size_t w = 0; w < text.size(); ++w) {
    Result<FceFourierFit> fit = fce_fourier_fit(text[w]);
    if (!fit.ok())
      return fit.status().with_context(word_name(static_cast<size_t>(t.text_index[w])));
    draw_fourier(t, scratch, truncated(text[w]), *fit);
    t.fits.push_back(*fit);
  }
  return Status();
}

}  // namespace

Result<FceTargets> make_fce_targets(const TextKernelWords& words) {
  TF_RETURN_IF_ERROR(check_text_kernel_words(words, kWho));
  const int coarsest = kFceLevelStrides.back();
  if (words.height < coarsest || words.width < coarsest)
    return Status::invalid_argument(std::string(kWho) + ": canvas " + std::to_string(words.height) +
                                    " x " + std::to_string(words.width) + " has a side under " +
                                    std::to_string(coarsest) + " px (an empty level)");
  std::vector<std::vector<cv::Point>> ints;
  size_t start = 0;
  for (int32_t n : words.npts) {
    ints.push_back(int_points(words.xy.subspan(start, 2 * static_cast<size_t>(n))));
    start += 2 * static_cast<size_t>(n);
  }
  const std::array<LevelWords, kFceLevels> assigned =
      assign_levels(ints, words.ignored, words.height);
  FceTargets out;
  for (size_t l = 0; l < out.levels.size(); ++l) {
    FceLevelTargets& t = out.levels[l];
    t.stride = kFceLevelStrides[l];
    t.height = words.height / t.stride;
    t.width = words.width / t.stride;
    t.maps.assign(static_cast<size_t>(kFceLevelChannels) * t.height * t.width, 0.0f);
    t.text_index = assigned[l].text;
    t.ignore_index = assigned[l].ignored;
    TF_RETURN_IF_ERROR(draw_level(t, ints));
  }
  return out;
}

}  // namespace textfeed::augment
