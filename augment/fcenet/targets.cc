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
void resample_outline(std::span<const Pt> poly, FceScratch& s) {
  const size_t n = poly.size();
  s.edge_len.resize(n);
  double total = 0;
  for (size_t i = 0; i < n; ++i) {
    const Pt a = poly[i], b = poly[(i + 1) % n];
    s.edge_len[i] = std::pow(std::pow(a.x - b.x, 2.0) + std::pow(a.y - b.y, 2.0), 0.5);
    total += s.edge_len[i];
  }
  s.resampled.clear();
  for (size_t i = 0; i < n; ++i) {
    const auto num =
        static_cast<int32_t>(s.edge_len[i] / (total + kResampleEps) * kFceOutlineSamples);
    if (num == 0) continue;
    const Pt a = poly[i], b = poly[(i + 1) % n];
    const Pt step{(b.x - a.x) / num, (b.y - a.y) / num};
    for (int32_t j = 0; j < num; ++j) s.resampled.push_back({a.x + step.x * j, a.y + step.y * j});
  }
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
StartPoint start_point(std::span<const Pt> p, FceScratch& s) {
  Pt mean;
  for (const Pt& q : p) mean.x += q.x, mean.y += q.y;
  mean = {mean.x / static_cast<double>(p.size()), mean.y / static_cast<double>(p.size())};
  s.key.resize(p.size()), s.dy.resize(p.size());
  for (size_t i = 0; i < p.size(); ++i)
    s.key[i] = std::fabs(p[i].x - mean.x), s.dy[i] = p[i].y - mean.y;
  const std::span<const double> key(s.key), y(s.dy);
  const std::vector<int64_t> order = numpy_argsort(key);
  const size_t take = std::min(p.size(), static_cast<size_t>(kFceStartCandidates));
  size_t best = 0;
  for (size_t j = 1; j < take; ++j)
    if (y[order[j]] < y[order[best]]) best = j;
  return {static_cast<size_t>(order[best]), start_depends_on_tie_order(key, y, order, take)};
}

// cos and sin of 2 pi t / n for t < n, made once per point count n and kept in the scratch.
void twiddles(size_t n, FceScratch& s) {
  if (s.cos_by_n.size() <= n) s.cos_by_n.resize(n + 1), s.sin_by_n.resize(n + 1);
  std::vector<double>& cos_t = s.cos_by_n[n];
  std::vector<double>& sin_t = s.sin_by_n[n];
  if (cos_t.size() == n) return;
  cos_t.resize(n), sin_t.resize(n);
  for (size_t t = 0; t < n; ++t) {
    const double angle = 2 * std::numbers::pi * static_cast<double>(t) / static_cast<double>(n);
    cos_t[t] = std::cos(angle), sin_t[t] = std::sin(angle);
  }
}

// c_k = sum_j z_j exp(-2 pi i k j / n) / n for k = -5..5, z_j = x_j + i y_j of the outline
// started at `start`. numpy divides the complex FFT by n as x * (1 / n). The twiddle index k j
// mod n advances by k mod n per term and the point index wraps at n.
std::array<std::complex<double>, kFceCoefficients> fourier(std::span<const Pt> p, size_t start,
                                                           FceScratch& s) {
  const size_t n = p.size();
  twiddles(n, s);
  const double* cos_t = s.cos_by_n[n].data();
  const double* sin_t = s.sin_by_n[n].data();
  const double inv_n = 1.0 / static_cast<double>(n);
  const auto nn = static_cast<int64_t>(n);
  std::array<std::complex<double>, kFceCoefficients> c;
  for (int j = 0; j < kFceCoefficients; ++j) {
    const int64_t k = j - kFceFourierDegree;
    const auto step = static_cast<size_t>((k % nn + nn) % nn);
    double re = 0, im = 0;
    for (size_t i = 0, at = start, t = 0; i < n; ++i) {
      const Pt z = p[at];
      // z * exp(-i angle) = (x + i y)(cos - i sin)
      re += z.x * cos_t[t] + z.y * sin_t[t];
      im += z.y * cos_t[t] - z.x * sin_t[t];
      if (++at == n) at = 0;
      t += step;
      if (t >= n) t -= n;
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

// fce_fourier_fit with the scratch's buffers.
Result<FceFourierFit> fit_outline(std::span<const Pt> outline, FceScratch& s) {
  resample_outline(outline, s);
  const std::span<const Pt> p(s.resampled);
  if (p.size() < kMinResampledPoints)
    return Status::invalid_argument("its outline resamples to " + std::to_string(p.size()) +
                                    " points, fewer than " + std::to_string(kMinResampledPoints) +
                                    " (mmocr fails with IndexError)");
  FceFourierFit fit;
  fit.resampled_n = static_cast<int32_t>(p.size());
  const StartPoint start = start_point(p, s);
  fit.start_index = static_cast<int32_t>(start.index);
  fit.start_tie = start.tie;
  fit.coeff = fourier(p, start.index, s);
  fix_orientation(fit);
  return fit;
}

// Marks the pixels of the word being drawn in the text region channel until its Fourier values
// are written (final values there are 0 and 1).
constexpr float kWordStamp = 2.0f;

// cv::fillPoly reads int32 (x, y) pairs as cv::Point, which is laid out as two ints.
static_assert(sizeof(cv::Point) == 2 * sizeof(int32_t));

void fill_one(cv::Mat& plane, std::span<const int32_t> xy, double value) {
  const auto* p = reinterpret_cast<const cv::Point*>(xy.data());
  const int n = static_cast<int>(xy.size() / 2);
  cv::fillPoly(plane, &p, &n, 1, cv::Scalar(value));
}

std::span<const int32_t> int_word(const FceScratch& s, size_t k) {
  return std::span<const int32_t>(s.ints).subspan(s.starts[k], s.starts[k + 1] - s.starts[k]);
}

// Every word's vertices truncated to integers (np.int_ of the float32 input).
void int_words(const TextKernelWords& words, FceScratch& s) {
  s.ints.resize(words.xy.size());
  for (size_t i = 0; i < words.xy.size(); ++i) s.ints[i] = static_cast<int32_t>(words.xy[i]);
  s.starts.assign(words.npts.size() + 1, 0);
  for (size_t k = 0; k < words.npts.size(); ++k)
    s.starts[k + 1] = s.starts[k] + 2 * static_cast<size_t>(words.npts[k]);
}

// Which levels each word goes to: p = max(box w, box h) / (H + eps), box = cv2.boundingRect of
// the integer vertices (pixel counts: max - min + 1), p in each level's open range.
void assign_levels(const TextKernelWords& words, const FceScratch& s,
                   std::array<FceLevelInfo, kFceLevels>& levels) {
  for (FceLevelInfo& l : levels) l.text_index.clear(), l.ignore_index.clear(), l.fits.clear();
  for (size_t k = 0; k < words.npts.size(); ++k) {
    const std::span<const int32_t> xy = int_word(s, k);
    int32_t x0 = xy[0], x1 = xy[0], y0 = xy[1], y1 = xy[1];
    for (size_t i = 2; i + 1 < xy.size(); i += 2) {
      x0 = std::min(x0, xy[i]), x1 = std::max(x1, xy[i]);
      y0 = std::min(y0, xy[i + 1]), y1 = std::max(y1, xy[i + 1]);
    }
    const double p = std::max(x1 - x0 + 1, y1 - y0 + 1) / (words.height + kProportionEps);
    for (size_t l = 0; l < levels.size(); ++l) {
      const auto [lo, hi] = kFceLevelProportionRanges[l];
      if (!(lo < p && p < hi)) continue;
      std::vector<int32_t>& list =
          words.ignored[k] != 0 ? levels[l].ignore_index : levels[l].text_index;
      list.push_back(static_cast<int32_t>(k));
    }
  }
}

// poly / stride in float64, and its int32 truncation (what the fills see).
void level_points(std::span<const int32_t> word, int stride, std::vector<Pt>& out) {
  out.resize(word.size() / 2);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = {static_cast<double>(word[2 * i]) / stride,
              static_cast<double>(word[2 * i + 1]) / stride};
}
void truncate(std::span<const Pt> pts, std::vector<int32_t>& out) {
  out.resize(2 * pts.size());
  for (size_t i = 0; i < pts.size(); ++i)
    out[2 * i] = static_cast<int32_t>(pts[i].x), out[2 * i + 1] = static_cast<int32_t>(pts[i].y);
}

// One level's planes: its channels stacked as rows of one float32 view.
struct LevelMaps {
  MutableImageView view;
  int height = 0;

  float* row(int channel, int y) const {
    return reinterpret_cast<float*>(view.row(channel * height + y));
  }
  cv::Mat channels(int first, int count) const {
    return cv::Mat(count * height, view.width, CV_32F, view.row(first * height),
                   static_cast<size_t>(view.stride_bytes));
  }
};

// Each channel's background, written once: the effective mask 1, the others 0 unless zeroed.
void fill_backgrounds(const LevelMaps& m, bool zeroed) {
  m.channels(kEffectiveMaskChannel, 1).setTo(cv::Scalar(1));
  if (zeroed) return;
  m.channels(0, kEffectiveMaskChannel).setTo(cv::Scalar(0));
  m.channels(kRealChannel0, kFceLevelChannels - kRealChannel0).setTo(cv::Scalar(0));
}

// _generate_center_region_mask: every quad of every word in ONE fillPoly call, whose even-odd
// rule cancels where quads overlap an even number of times.
Status draw_center_region(const FceLevelInfo& t, const LevelMaps& m, FceScratch& s) {
  s.boxes.clear();
  for (size_t w = 0; w < t.text_index.size(); ++w) {
    Result<std::vector<CenterQuad>> quads =
        center_region_quads<double>(s.outlines[w], kFceCenterLine);
    if (!quads.ok())
      return quads.status().with_context(word_name(static_cast<size_t>(t.text_index[w])));
    for (const CenterQuad& q : *quads) s.boxes.insert(s.boxes.end(), q.xy.begin(), q.xy.end());
  }
  if (s.boxes.empty()) return Status();
  const size_t count = s.boxes.size() / 8;
  std::vector<const cv::Point*> ptrs(count);
  for (size_t b = 0; b < count; ++b) ptrs[b] = reinterpret_cast<const cv::Point*>(&s.boxes[8 * b]);
  const std::vector<int> counts(count, 4);
  cv::Mat plane = m.channels(kCenterRegionChannel, 1);
  cv::fillPoly(plane, ptrs.data(), counts.data(), static_cast<int>(count), cv::Scalar(1));
  return Status();
}

// One word's text region and _generate_fourier_maps: its fill, stamped into the text region
// channel, takes 1 there and its coefficients (float32) in the 22 others, the k = 0 pair relative
// to the pixel: Re(c_0) - x, Im(c_0) - y. Every pixel of a fill lies in its vertices' box.
void draw_word(const LevelMaps& m, std::span<const int32_t> fill, const FceFourierFit& fit) {
  cv::Mat text = m.channels(kTextRegionChannel, 1);
  fill_one(text, fill, kWordStamp);
  int32_t x0 = fill[0], x1 = fill[0], y0 = fill[1], y1 = fill[1];
  for (size_t i = 2; i + 1 < fill.size(); i += 2) {
    x0 = std::min(x0, fill[i]), x1 = std::max(x1, fill[i]);
    y0 = std::min(y0, fill[i + 1]), y1 = std::max(y1, fill[i + 1]);
  }
  std::array<float, kFceCoefficients> re, im;
  for (size_t j = 0; j < re.size(); ++j)
    re[j] = static_cast<float>(fit.coeff[j].real()),
    im[j] = static_cast<float>(fit.coeff[j].imag());
  const double re0 = fit.coeff[kFceFourierDegree].real(), im0 = fit.coeff[kFceFourierDegree].imag();
  const int xe = std::min(x1, m.view.width - 1), ye = std::min(y1, m.height - 1);
  for (int y = std::max(y0, 0); y <= ye; ++y) {
    float* inside = m.row(kTextRegionChannel, y);
    for (int x = std::max(x0, 0); x <= xe; ++x) {
      if (inside[x] != kWordStamp) continue;
      inside[x] = 1.0f;
      re[kFceFourierDegree] = static_cast<float>(re0 - x);
      im[kFceFourierDegree] = static_cast<float>(im0 - y);
      for (int j = 0; j < kFceCoefficients; ++j) {
        m.row(kRealChannel0 + j, y)[x] = re[static_cast<size_t>(j)];
        m.row(kImagChannel0 + j, y)[x] = im[static_cast<size_t>(j)];
      }
    }
  }
}

// One level's maps and fits from its words (t's indices into the scratch's int words). The
// centre regions come first, so a word refused there is named before any refused by its fit.
Status draw_level(FceLevelInfo& t, const LevelMaps& m, bool zeroed, FceScratch& s) {
  fill_backgrounds(m, zeroed);
  if (s.outlines.size() < t.text_index.size()) s.outlines.resize(t.text_index.size());
  for (size_t w = 0; w < t.text_index.size(); ++w)
    level_points(int_word(s, static_cast<size_t>(t.text_index[w])), t.stride, s.outlines[w]);
  TF_RETURN_IF_ERROR(draw_center_region(t, m, s));
  cv::Mat mask = m.channels(kEffectiveMaskChannel, 1);
  for (int32_t k : t.ignore_index) {
    level_points(int_word(s, static_cast<size_t>(k)), t.stride, s.resampled);
    truncate(s.resampled, s.fill);
    fill_one(mask, s.fill, 0);
  }
  for (size_t w = 0; w < t.text_index.size(); ++w) {
    Result<FceFourierFit> fit = fit_outline(s.outlines[w], s);
    if (!fit.ok())
      return fit.status().with_context(word_name(static_cast<size_t>(t.text_index[w])));
    truncate(s.outlines[w], s.fill);
    draw_word(m, s.fill, *fit);
    t.fits.push_back(*fit);
  }
  return Status();
}

Status check_maps(const TextKernelWords& words, const FcePlanes& planes) {
  for (size_t l = 0; l < planes.maps.size(); ++l) {
    const MutableImageView& v = planes.maps[l];
    const int stride = kFceLevelStrides[l];
    if (v.data == nullptr || v.dtype != DType::kF32 || v.channels != 1 ||
        v.height != kFceLevelChannels * (words.height / stride) ||
        v.width != words.width / stride ||
        v.stride_bytes < static_cast<ptrdiff_t>(v.width) * static_cast<ptrdiff_t>(sizeof(float)))
      return Status::invalid_argument(std::string(kWho) + ": the maps of level " +
                                      std::to_string(l) + " are not a float32 view of " +
                                      std::to_string(kFceLevelChannels) + " x " +
                                      std::to_string(words.height / stride) + " rows of " +
                                      std::to_string(words.width / stride) + " values");
  }
  return Status();
}

}  // namespace

Result<FceFourierFit> fce_fourier_fit(std::span<const CurvePoint<double>> outline) {
  FceScratch scratch;
  return fit_outline(outline, scratch);
}

Status check_fce_words(const TextKernelWords& words) {
  TF_RETURN_IF_ERROR(check_text_kernel_words(words, kWho));
  const int coarsest = kFceLevelStrides.back();
  if (words.height < coarsest || words.width < coarsest)
    return Status::invalid_argument(std::string(kWho) + ": canvas " + std::to_string(words.height) +
                                    " x " + std::to_string(words.width) + " has a side under " +
                                    std::to_string(coarsest) + " px (an empty level)");
  return Status();
}

Status draw_fce_targets(const TextKernelWords& words, const FcePlanes& planes,
                        std::array<FceLevelInfo, kFceLevels>& levels, FceScratch& scratch) {
  TF_RETURN_IF_ERROR(check_fce_words(words));
  TF_RETURN_IF_ERROR(check_maps(words, planes));
  int_words(words, scratch);
  assign_levels(words, scratch, levels);
  for (size_t l = 0; l < levels.size(); ++l) {
    FceLevelInfo& t = levels[l];
    t.stride = kFceLevelStrides[l];
    t.height = words.height / t.stride;
    t.width = words.width / t.stride;
    TF_RETURN_IF_ERROR(draw_level(t, LevelMaps{planes.maps[l], t.height}, planes.zeroed, scratch));
  }
  return Status();
}

Result<FceTargets> make_fce_targets(const TextKernelWords& words) {
  TF_RETURN_IF_ERROR(check_fce_words(words));
  FceTargets out;
  FcePlanes planes{.zeroed = true};
  for (size_t l = 0; l < out.levels.size(); ++l) {
    const int stride = kFceLevelStrides[l];
    const int h = words.height / stride, w = words.width / stride;
    std::vector<float>& maps = out.levels[l].maps;
    maps.assign(static_cast<size_t>(kFceLevelChannels) * h * w, 0.0f);
    planes.maps[l] = dense_plane(maps.data(), kFceLevelChannels * h, w);
  }
  std::array<FceLevelInfo, kFceLevels> levels;
  FceScratch scratch;
  TF_RETURN_IF_ERROR(draw_fce_targets(words, planes, levels, scratch));
  for (size_t l = 0; l < out.levels.size(); ++l)
    static_cast<FceLevelInfo&>(out.levels[l]) = std::move(levels[l]);
  return out;
}

}  // namespace textfeed::augment
