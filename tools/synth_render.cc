// Rendering for `textfeed synth`: a smooth photo-like background, words drawn with putText into an
// upright patch and warped into their quad, then camera blur and sensor noise over everything.
// Words never overlap and never leave the image, so every quad in the annotations is drawn.
#include "tools/synth_render.h"

#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/rng.h"

namespace textfeed::tools {
namespace {

using Quad = std::array<cv::Point2f, 4>;

struct Placed {
  Quad quad;
  std::string text;
  bool illegible = false;
};

std::string random_price(Rng& rng) {  // a comma in the text exercises the readers' comma rule
  // Built piece by piece (GCC 12 warns, -Wrestrict, on "$" + string); the cents are drawn first,
  // as the one-expression version compiled by GCC drew them, so a seed gives the same pages.
  const std::string cents = std::to_string(10 + rng.below(90));
  std::string price = "$";
  price += std::to_string(1 + rng.below(99));
  price += ',';
  price += cents;
  return price;
}

std::string random_text(Rng& rng) {
  static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  if (rng.uniform() < 0.1) return random_price(rng);
  std::string s(3 + rng.below(8), ' ');
  for (char& ch : s) ch = kChars[rng.below(sizeof(kChars) - 1)];
  return s;
}

// A word drawn upright as a coverage mask (255 = ink), `px` tall, padded by a stroke width.
// Illegible words are drawn too, then blurred past reading, as in the real data.
cv::Mat word_patch(const std::string& text, int font, float px, bool illegible) {
  const int thick = std::max(1, static_cast<int>(std::lround(px / 14)));
  const double scale = cv::getFontScaleFromHeight(font, static_cast<int>(px), thick);
  int base = 0;
  const cv::Size ts = cv::getTextSize(text, font, scale, thick, &base);
  const int pad = thick + 1;
  cv::Mat patch(ts.height + base + 2 * pad, ts.width + 2 * pad, CV_8U, cv::Scalar(0));
  cv::putText(patch, text, cv::Point(pad, pad + ts.height), font, scale, cv::Scalar(255), thick,
              cv::LINE_AA);
  if (illegible) cv::GaussianBlur(patch, patch, cv::Size(0, 0), 0.15 * px);
  return patch;
}

// The affine map that turns a patch of `size` by `deg` (clockwise on screen) about its centre
// and puts that centre at `at`.
cv::Matx23d place(cv::Size size, cv::Point2f at, double deg) {
  const cv::Point2f c(size.width / 2.f, size.height / 2.f);
  cv::Matx23d m = cv::getRotationMatrix2D(c, -deg, 1.0);  // OpenCV's positive is anticlockwise
  m(0, 2) += at.x - c.x;
  m(1, 2) += at.y - c.y;
  return m;
}

// The patch's corners under `m`: clockwise from the word's top-left.
Quad quad_of(const cv::Matx23d& m, cv::Size size) {
  const float w = static_cast<float>(size.width), h = static_cast<float>(size.height);
  const cv::Point2f corners[4] = {{0, 0}, {w, 0}, {w, h}, {0, h}};
  Quad q;
  for (int i = 0; i < 4; ++i)
    q[i] =
        cv::Point2f(static_cast<float>(m(0, 0) * corners[i].x + m(0, 1) * corners[i].y + m(0, 2)),
                    static_cast<float>(m(1, 0) * corners[i].x + m(1, 1) * corners[i].y + m(1, 2)));
  return q;
}

bool inside(const Quad& q, cv::Size img, float margin) {
  return std::all_of(q.begin(), q.end(), [&](const cv::Point2f& p) {
    return p.x >= margin && p.y >= margin && p.x <= img.width - 1 - margin &&
           p.y <= img.height - 1 - margin;
  });
}

cv::Rect2f bounds(const Quad& q) {
  float x0 = q[0].x, y0 = q[0].y, x1 = q[0].x, y1 = q[0].y;
  for (const cv::Point2f& p : q) {
    x0 = std::min(x0, p.x), y0 = std::min(y0, p.y);
    x1 = std::max(x1, p.x), y1 = std::max(y1, p.y);
  }
  return {x0, y0, x1 - x0, y1 - y0};
}

bool overlaps_any(const Quad& q, const std::vector<Placed>& placed, float gap) {
  cv::Rect2f r = bounds(q);
  r = cv::Rect2f(r.x - gap, r.y - gap, r.width + 2 * gap, r.height + 2 * gap);
  return std::any_of(placed.begin(), placed.end(),
                     [&](const Placed& p) { return (r & bounds(p.quad)).area() > 0; });
}

// Ink that stands out from the pixels around `at`: dark on light, light on dark.
cv::Vec3b contrasting_ink(const cv::Mat& img, cv::Point2f at, Rng& rng) {
  const cv::Rect around = cv::Rect(static_cast<int>(at.x) - 8, static_cast<int>(at.y) - 8, 17, 17) &
                          cv::Rect(0, 0, img.cols, img.rows);
  const cv::Scalar m = cv::mean(img(around));
  const bool dark = (m[0] + m[1] + m[2]) / 3 > 120;
  const int lo = dark ? 10 : 200;
  return cv::Vec3b(static_cast<uint8_t>(lo + rng.below(50)),
                   static_cast<uint8_t>(lo + rng.below(50)),
                   static_cast<uint8_t>(lo + rng.below(50)));
}

// Blends `ink` into `img` through the patch warped by `m` (patch to image pixels).
void stamp(cv::Mat& img, const cv::Mat& patch, cv::Matx23d m, const Quad& q, cv::Vec3b ink) {
  const cv::Rect box = cv::Rect(bounds(q)) & cv::Rect(0, 0, img.cols, img.rows);
  if (box.empty()) return;
  m(0, 2) -= box.x;
  m(1, 2) -= box.y;
  cv::Mat mask;
  cv::warpAffine(patch, mask, m, box.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT);
  for (int y = 0; y < box.height; ++y) {
    const uint8_t* a = mask.ptr<uint8_t>(y);
    cv::Vec3b* p = img.ptr<cv::Vec3b>(box.y + y) + box.x;
    for (int x = 0; x < box.width; ++x) {
      if (!a[x]) continue;
      for (int k = 0; k < 3; ++k)
        p[x][k] = static_cast<uint8_t>((p[x][k] * (255 - a[x]) + ink[k] * a[x] + 127) / 255);
    }
  }
}

// Smooth colour field: a gradient and a few soft blobs, drawn small and scaled up.
cv::Mat smooth_field(Rng& rng, int w, int h) {
  const int sw = std::max(8, w / 16), sh = std::max(8, h / 16);
  cv::Mat small(sh, sw, CV_8UC3);
  const cv::Vec3f c0(rng.uniform(60, 230), rng.uniform(60, 230), rng.uniform(60, 230));
  const cv::Vec3f c1(rng.uniform(60, 230), rng.uniform(60, 230), rng.uniform(60, 230));
  for (int y = 0; y < sh; ++y)
    for (int x = 0; x < sw; ++x) {
      const float t = (x + y) / float(sw + sh);
      const cv::Vec3f c = c0 * (1 - t) + c1 * t;
      small.at<cv::Vec3b>(y, x) =
          cv::Vec3b(cv::saturate_cast<uint8_t>(c[0]), cv::saturate_cast<uint8_t>(c[1]),
                    cv::saturate_cast<uint8_t>(c[2]));
    }
  for (int b = 0, n = 3 + static_cast<int>(rng.below(5)); b < n; ++b)
    cv::circle(small, cv::Point(rng.below(sw), rng.below(sh)), 2 + rng.below(std::max(3, sw / 4)),
               cv::Scalar(rng.below(256), rng.below(256), rng.below(256)), cv::FILLED, cv::LINE_AA);
  cv::GaussianBlur(small, small, cv::Size(0, 0), 2.0);
  cv::Mat img;
  cv::resize(small, img, cv::Size(w, h), 0, 0, cv::INTER_CUBIC);
  return img;
}

// What a camera adds: a little defocus, then sensor noise (zero-mean, signed) of a standard
// deviation in [lo, hi] grey levels.
void photo_finish(cv::Mat& img, Rng& rng, double lo = 2.5, double hi = 6.0) {
  cv::GaussianBlur(img, img, cv::Size(0, 0), rng.uniform(0.4, 0.9));
  cv::Mat noise(img.size(), CV_16SC3);
  cv::RNG cvrng(rng.next_u32() | (uint64_t{rng.next_u32()} << 32));
  cvrng.fill(noise, cv::RNG::NORMAL, cv::Scalar::all(0), cv::Scalar::all(rng.uniform(lo, hi)));
  cv::add(img, noise, img, cv::noArray(), CV_8U);
}

// Texture at every scale, as surfaces and paper have it: octaves of random values at a cell of
// 2^k px (k = 1..9), cubic-upsampled, amplitude falling with the cell (about a 1/f spectrum),
// added to `img` with `strength` grey levels at the coarsest octave: mostly brightness (the same
// value in the three channels) with a fifth of it as colour.
void add_texture(cv::Mat& img, Rng& rng, double strength) {
  cv::Mat sum = cv::Mat::zeros(img.size(), CV_16SC3);
  cv::RNG cvrng(rng.next_u32() | (uint64_t{rng.next_u32()} << 32));
  double amplitude = strength;
  for (int cell = 512; cell >= 2; cell /= 2, amplitude *= 0.62) {
    const cv::Size small(std::max(2, img.cols / cell + 2), std::max(2, img.rows / cell + 2));
    cv::Mat grey(small, CV_16SC1), colour(small, CV_16SC3), both, up;
    cvrng.fill(grey, cv::RNG::NORMAL, cv::Scalar::all(0), cv::Scalar::all(amplitude));
    cvrng.fill(colour, cv::RNG::NORMAL, cv::Scalar::all(0), cv::Scalar::all(0.2 * amplitude));
    cv::Mat planes[3] = {grey, grey, grey};
    cv::merge(planes, 3, both);
    cv::add(both, colour, both);
    cv::resize(both, up, cv::Size(small.width * cell, small.height * cell), 0, 0, cv::INTER_CUBIC);
    cv::add(sum, up(cv::Rect(0, 0, img.cols, img.rows)), sum);
  }
  cv::add(img, sum, img, cv::noArray(), CV_8U);
}

constexpr int kFonts[] = {cv::FONT_HERSHEY_SIMPLEX, cv::FONT_HERSHEY_DUPLEX,
                          cv::FONT_HERSHEY_COMPLEX, cv::FONT_HERSHEY_TRIPLEX};

// A street scene: 5-20 words anywhere, each turned within +-15 deg, ~15% illegible.
void draw_scene(cv::Mat& img, Rng& rng, std::vector<Placed>& words) {
  const int n = 5 + static_cast<int>(rng.below(16));
  for (int k = 0; k < n; ++k) {
    Placed w;
    w.illegible = rng.uniform() < 0.15;
    w.text = random_text(rng);
    const float px = static_cast<float>(w.illegible ? rng.uniform(10, 24) : rng.uniform(16, 56));
    const cv::Mat patch = word_patch(w.text, kFonts[rng.below(4)], px, w.illegible);
    const double deg = rng.uniform(-15, 15);
    for (int attempt = 0; attempt < 40; ++attempt) {  // a word that finds no free spot is dropped
      const cv::Point2f at(static_cast<float>(rng.uniform(0, img.cols)),
                           static_cast<float>(rng.uniform(0, img.rows)));
      const cv::Matx23d m = place(patch.size(), at, deg);
      w.quad = quad_of(m, patch.size());
      if (!inside(w.quad, img.size(), 2) || overlaps_any(w.quad, words, 4)) continue;
      stamp(img, patch, m, w.quad, contrasting_ink(img, at, rng));
      words.push_back(std::move(w));
      break;
    }
  }
}

// The pose of a hand-held photo of a page: turned within +-3 deg about the centre, then each
// corner moved by up to 2% of the side (slight perspective).
cv::Matx33d page_pose(Rng& rng, cv::Size size) {
  const cv::Point2f c(size.width / 2.f, size.height / 2.f);
  const cv::Matx23d r = cv::getRotationMatrix2D(c, rng.uniform(-3, 3), 1.0);
  const cv::Point2f src[4] = {{0, 0},
                              {float(size.width), 0},
                              {float(size.width), float(size.height)},
                              {0, float(size.height)}};
  cv::Point2f dst[4];
  for (int k = 0; k < 4; ++k) {
    const cv::Point2f p(static_cast<float>(r(0, 0) * src[k].x + r(0, 1) * src[k].y + r(0, 2)),
                        static_cast<float>(r(1, 0) * src[k].x + r(1, 1) * src[k].y + r(1, 2)));
    dst[k] = p + cv::Point2f(static_cast<float>(rng.uniform(-0.02, 0.02) * size.width),
                             static_cast<float>(rng.uniform(-0.02, 0.02) * size.height));
  }
  return cv::Matx33d(cv::getPerspectiveTransform(src, dst));
}

Quad transformed(const cv::Matx33d& h, const Quad& q) {
  Quad out;
  for (int i = 0; i < 4; ++i) {
    const cv::Vec3d v = h * cv::Vec3d(q[i].x, q[i].y, 1.0);
    out[i] = cv::Point2f(static_cast<float>(v[0] / v[2]), static_cast<float>(v[1] / v[2]));
  }
  return out;
}

// A light sheet with its own lighting gradient, covering most of the frame.
cv::Rect draw_paper(cv::Mat& img, Rng& rng) {
  const int mx = static_cast<int>(img.cols * rng.uniform(0.05, 0.1));
  const int my = static_cast<int>(img.rows * rng.uniform(0.02, 0.05));
  const cv::Rect paper(mx, my, img.cols - 2 * mx, img.rows - 2 * my);
  cv::Mat corners(2, 2, CV_8UC3);
  const double base = rng.uniform(215, 245);
  for (int i = 0; i < 4; ++i) {
    const double light = base + rng.uniform(-12, 10);
    corners.at<cv::Vec3b>(i / 2, i % 2) = cv::Vec3b(
        cv::saturate_cast<uint8_t>(light - rng.uniform(0, 12)), cv::saturate_cast<uint8_t>(light),
        cv::saturate_cast<uint8_t>(light + rng.uniform(0, 6)));
  }
  cv::resize(corners, img(paper), paper.size(), 0, 0, cv::INTER_LINEAR);
  return paper;
}

// A receipt page: 60-150 words in lines (prices right-aligned), drawn flat, then the whole photo
// is warped by the page pose so that text lines are slightly turned and in perspective.
void draw_receipt(cv::Mat& img, Rng& rng, std::vector<Placed>& words) {
  const cv::Rect paper = draw_paper(img, rng);
  const cv::Matx33d pose = page_pose(rng, img.size());
  const int target = 60 + static_cast<int>(rng.below(91));
  const int font = kFonts[rng.below(3)];
  const float left = paper.x + 0.06f * paper.width, right = paper.br().x - 0.06f * paper.width;
  const float top = paper.y + 0.03f * paper.height, bottom = paper.br().y - 0.03f * paper.height;
  const int lines = static_cast<int>(std::ceil(target / rng.uniform(2.2, 3.4)));
  const float pitch = (bottom - top) / lines;
  const float px = pitch * static_cast<float>(rng.uniform(0.38, 0.52));
  for (int line = 0; line < lines && static_cast<int>(words.size()) < target; ++line) {
    const int remaining = target - static_cast<int>(words.size());
    const int k = std::clamp(static_cast<int>(std::lround(double(remaining) / (lines - line))) +
                                 static_cast<int>(rng.below(3)) - 1,
                             1, std::min(7, remaining));
    const float y = top + (line + 0.5f) * pitch;
    const float line_px = line == 0 ? px * 1.3f : px;  // the shop's name
    const bool price_at_end = k >= 2 && rng.uniform() < 0.6;
    float x = left +
              (rng.uniform() < 0.2 ? static_cast<float>(rng.uniform(0, 0.15)) * (right - left) : 0);
    for (int j = 0; j < k; ++j) {
      const bool price = price_at_end && j == k - 1;
      Placed w;
      w.text = price ? random_price(rng) : random_text(rng);
      w.illegible = rng.uniform() < 0.05;
      const cv::Mat patch = word_patch(w.text, font, line_px, w.illegible);
      const float half = patch.cols / 2.f;
      const float cx = price ? right - half : x + half;
      if (cx - half < x || cx + half > right) break;  // the line is full
      x = cx + half + line_px * static_cast<float>(rng.uniform(0.5, 1.2));
      const cv::Matx23d m = place(patch.size(), {cx, y}, rng.uniform(-0.8, 0.8));
      w.quad = quad_of(m, patch.size());
      if (!inside(transformed(pose, w.quad), img.size(), 2)) continue;  // off the edge of the photo
      stamp(img, patch, m, w.quad,
            cv::Vec3b(static_cast<uint8_t>(20 + rng.below(50)),
                      static_cast<uint8_t>(20 + rng.below(50)),
                      static_cast<uint8_t>(20 + rng.below(50))));
      words.push_back(std::move(w));
    }
  }
  cv::Mat warped;
  cv::warpPerspective(img, warped, pose, img.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT);
  img = warped;
  for (Placed& w : words) w.quad = transformed(pose, w.quad);
}

}  // namespace

SynthImage render_synth_image(SynthProfile profile, uint64_t seed, uint64_t index,
                              int jpeg_quality) {
  Rng rng(seed, 0, index);
  SynthImage out;
  const bool photo = profile == SynthProfile::kPhoto;
  const bool receipt = profile == SynthProfile::kReceipt || photo;
  out.width = receipt ? 2900 + static_cast<int>(rng.below(201)) : 1280;
  out.height = receipt ? 3900 + static_cast<int>(rng.below(201)) : 720;
  cv::Mat img = smooth_field(rng, out.width, out.height);  // BGR throughout
  if (photo) add_texture(img, rng, 40);                    // the surface the page lies on
  std::vector<Placed> words;
  if (receipt) {
    draw_receipt(img, rng, words);
  } else {
    draw_scene(img, rng, words);
  }
  if (photo) {
    add_texture(img, rng, 6);  // paper grain and uneven light over everything
    photo_finish(img, rng, 2.5, 4.5);
  } else {
    photo_finish(img, rng);
  }
  cv::imencode(".jpg", img, out.jpeg, {cv::IMWRITE_JPEG_QUALITY, jpeg_quality});
  out.words.reserve(words.size());
  for (Placed& p : words) {
    SynthWord w;
    for (int i = 0; i < 4; ++i) w.quad[i] = {p.quad[i].x, p.quad[i].y};
    w.text = std::move(p.text);
    w.illegible = p.illegible;
    out.words.push_back(std::move(w));
  }
  return out;
}

}  // namespace textfeed::tools
