// Decoder: full and DCT-scaled decode, every failure mode the issue names, format coverage.
#include "loader/decode/decode.h"

#include <gtest/gtest.h>
#include <jpeglib.h>
#include <turbojpeg.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <string>
#include <vector>

#include "loader/decode/detail/jpeg_region.h"
#include "loader/decode/detail/jpeg_restart.h"

namespace textfeed::loader {
namespace {

std::vector<uint8_t> sample_jpeg() {
  std::vector<uint8_t> b;
  EXPECT_TRUE(
      read_file(std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample/images/img_1.jpg", b).ok());
  return b;
}

// A CMYK JPEG (4:4:4, quality 95) of `cmyk` pixels; tjCompress2 writes the Adobe marker.
// Empty on failure.
std::vector<uint8_t> encode_cmyk_jpeg(const std::vector<uint8_t>& cmyk, int w, int h) {
  tjhandle c = tjInitCompress();
  unsigned char* out = nullptr;
  unsigned long size = 0;
  std::vector<uint8_t> jpg;
  if (tjCompress2(c, cmyk.data(), w, 0, h, TJPF_CMYK, &out, &size, TJSAMP_444, 95, 0) == 0)
    jpg.assign(out, out + size);
  tjFree(out);
  tjDestroy(c);
  return jpg;
}

cv::Mat as_mat(const Image& im) {
  return cv::Mat(im.height(), im.width(), CV_8UC3, const_cast<uint8_t*>(im.data()));
}

TEST(DecodeTest, RealJpegAtEveryScale) {
  const auto bytes = sample_jpeg();
  Decoder d;
  auto info = d.read_info(bytes, "img_1.jpg");
  ASSERT_TRUE(info.has_value()) << info.error().to_string();
  EXPECT_EQ(info->width, 1280);
  EXPECT_EQ(info->height, 720);
  EXPECT_EQ(info->codec, ImageCodec::kJpeg);
  Image full, half;
  ASSERT_TRUE(d.decode(bytes, "img_1.jpg", 1, full).ok());
  EXPECT_EQ(full.width(), 1280);
  for (int denom : {2, 4, 8}) {
    Image im;
    ASSERT_TRUE(d.decode(bytes, "img_1.jpg", denom, im).ok());
    EXPECT_EQ(im.width(), (1280 + denom - 1) / denom);
    EXPECT_EQ(im.height(), (720 + denom - 1) / denom);
  }
  ASSERT_TRUE(d.decode(bytes, "img_1.jpg", 2, half).ok());
  cv::Mat area;
  cv::resize(as_mat(full), area, cv::Size(640, 360), 0, 0, cv::INTER_AREA);
  cv::Mat diff;
  cv::absdiff(area, as_mat(half), diff);
  EXPECT_LT(cv::mean(diff)[0], 3.0);  // DCT scaling is an area-like filter
}

TEST(DecodeTest, TruncatedJpegIsCorruptAndNamed) {
  const auto bytes = sample_jpeg();
  Decoder d;
  Image im;
  for (size_t cut : {size_t{2}, size_t{100}, size_t{600}, bytes.size() / 3, bytes.size() - 100}) {
    std::vector<uint8_t> b(bytes.begin(), bytes.begin() + cut);
    Status s = d.decode(b, "cut.jpg", 1, im);
    ASSERT_FALSE(s.ok()) << "cut at " << cut;
    EXPECT_EQ(s.code(), Code::kCorrupt) << s.to_string();
    EXPECT_NE(s.message().find("cut.jpg"), std::string::npos);
  }
}

TEST(DecodeTest, RandomBytesAndEmptyInput) {
  std::mt19937 g(1);
  std::vector<uint8_t> junk(5000);
  for (auto& c : junk) c = static_cast<uint8_t>(g());
  Decoder d;
  Image im;
  Status s = d.decode(junk, "junk.bin", 1, im);
  EXPECT_EQ(s.code(), Code::kCorrupt);
  EXPECT_NE(s.message().find("junk.bin"), std::string::npos);
  junk[0] = 0xFF, junk[1] = 0xD8, junk[2] = 0xFF;  // a JPEG signature over garbage
  s = d.decode(junk, "junk.jpg", 1, im);
  EXPECT_EQ(s.code(), Code::kCorrupt);
  EXPECT_NE(s.message().find("junk.jpg"), std::string::npos);
  s = d.decode({}, "empty.jpg", 1, im);
  EXPECT_EQ(s.code(), Code::kCorrupt);
  EXPECT_NE(s.message().find("empty.jpg"), std::string::npos);
}

TEST(DecodeTest, HugeHeaderIsRefusedBeforeAllocating) {
  auto bytes = sample_jpeg();
  // Patch the SOF0/SOF2 frame header: FF C0|C2, len(2), precision(1), height(2), width(2).
  bool patched = false;
  for (size_t i = 2; i + 9 < bytes.size(); ++i)
    if (bytes[i] == 0xFF && (bytes[i + 1] == 0xC0 || bytes[i + 1] == 0xC2)) {
      bytes[i + 5] = 0x86, bytes[i + 6] = 0xA0;  // 100000 does not fit 16 bits: use 34464 x 34464
      bytes[i + 7] = 0x86, bytes[i + 8] = 0xA0;
      patched = true;
      break;
    }
  ASSERT_TRUE(patched);
  Decoder d({.max_pixels = 100'000'000});
  Image im;
  Status s = d.decode(bytes, "huge.jpg", 1, im);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("exceeds"), std::string::npos);
  EXPECT_EQ(im.capacity_bytes(), 0u);  // nothing was allocated
  // A PNG header claiming 100000 x 100000.
  cv::Mat small(4, 4, CV_8UC3, cv::Scalar(1, 2, 3));
  std::vector<uint8_t> png;
  cv::imencode(".png", small, png);
  png[16] = 0, png[17] = 0x01, png[18] = 0x86, png[19] = 0xA0;
  png[20] = 0, png[21] = 0x01, png[22] = 0x86, png[23] = 0xA0;
  EXPECT_EQ(d.decode(png, "huge.png", 1, im).code(), Code::kInvalidArgument);
}

TEST(DecodeTest, PngDecodesExactly) {
  cv::Mat bgr(37, 53, CV_8UC3);
  cv::randu(bgr, 0, 255);
  std::vector<uint8_t> png;
  ASSERT_TRUE(cv::imencode(".png", bgr, png));
  Decoder d;
  Image im;
  ASSERT_TRUE(d.decode(png, "a.png", 1, im).ok());
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  EXPECT_EQ(cv::norm(rgb, as_mat(im), cv::NORM_INF), 0.0);
  ASSERT_TRUE(d.decode(png, "a.png", 2, im).ok());
  EXPECT_EQ(im.width(), 27);
  EXPECT_EQ(im.height(), 19);
}

TEST(DecodeTest, DamagedPngAndOtherFormats) {
  cv::Mat bgr(40, 30, CV_8UC3);
  cv::randu(bgr, 0, 255);
  std::vector<uint8_t> png;
  ASSERT_TRUE(cv::imencode(".png", bgr, png));
  Decoder d;
  Image im;
  for (size_t cut : {size_t{20}, png.size() / 2, png.size() - 13}) {
    std::vector<uint8_t> b(png.begin(), png.begin() + cut);
    Status s = d.decode(b, "cut.png", 1, im);
    EXPECT_EQ(s.code(), Code::kCorrupt) << "cut at " << cut << ": " << s.to_string();
    EXPECT_NE(s.message().find("cut.png"), std::string::npos);
  }
  // A format without a header reader of ours (BMP) still decodes through OpenCV.
  std::vector<uint8_t> bmp;
  ASSERT_TRUE(cv::imencode(".bmp", bgr, bmp));
  auto info = d.read_info(bmp, "a.bmp");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->codec, ImageCodec::kOther);
  ASSERT_TRUE(d.decode(bmp, "a.bmp", 1, im).ok());
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  EXPECT_EQ(cv::norm(rgb, as_mat(im), cv::NORM_INF), 0.0);
  Decoder small({.max_pixels = 1000});
  Status s = small.decode(bmp, "a.bmp", 1, im);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("a.bmp"), std::string::npos);
}

TEST(DecodeTest, GrayscaleJpegBecomesRgb) {
  cv::Mat gray(40, 60, CV_8UC1, cv::Scalar(77));
  std::vector<uint8_t> jpg;
  ASSERT_TRUE(cv::imencode(".jpg", gray, jpg));
  Decoder d;
  auto info = d.read_info(jpg, "g.jpg");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->channels, 1);
  Image im;
  ASSERT_TRUE(d.decode(jpg, "g.jpg", 1, im).ok());
  ASSERT_EQ(im.channels(), 3);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(im.data()[c], 77, 1);
}

TEST(DecodeTest, CmykJpegConvertsToRgb) {
  // A flat CMYK image: Adobe-inverted samples C=255 (no cyan), M=0 (full magenta), Y=255, K=255.
  const int w = 32, h = 16;
  std::vector<uint8_t> cmyk(static_cast<size_t>(w) * h * 4);
  for (size_t i = 0; i < cmyk.size(); i += 4)
    cmyk[i] = 255, cmyk[i + 1] = 0, cmyk[i + 2] = 255, cmyk[i + 3] = 255;
  const std::vector<uint8_t> jpg = encode_cmyk_jpeg(cmyk, w, h);
  ASSERT_FALSE(jpg.empty());
  Decoder d;
  Image im;
  Status s = d.decode(jpg, "cmyk.jpg", 1, im);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EXPECT_NEAR(im.data()[0], 255, 3);  // magenta = red + blue
  EXPECT_NEAR(im.data()[1], 0, 3);
  EXPECT_NEAR(im.data()[2], 255, 3);
}

TEST(DecodeTest, CmykJpegAgreesWithOpenCv) {
  // A varied CMYK image (tjCompress2 writes the Adobe marker), checked against OpenCV's own
  // libjpeg path, which applies the same Adobe-inverted reading.
  const int w = 64, h = 48;
  std::vector<uint8_t> cmyk(static_cast<size_t>(w) * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &cmyk[(static_cast<size_t>(y) * w + x) * 4];
      p[0] = static_cast<uint8_t>(x * 4), p[1] = static_cast<uint8_t>(y * 5);
      p[2] = static_cast<uint8_t>(255 - x * 3), p[3] = static_cast<uint8_t>(128 + y);
    }
  const std::vector<uint8_t> jpg = encode_cmyk_jpeg(cmyk, w, h);
  ASSERT_FALSE(jpg.empty());
  Decoder d;
  auto info = d.read_info(jpg, "cmyk.jpg");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->channels, 4);
  Image im;
  ASSERT_TRUE(d.decode(jpg, "cmyk.jpg", 1, im).ok());
  cv::Mat bgr = cv::imdecode(jpg, cv::IMREAD_COLOR), rgb, diff;
  ASSERT_FALSE(bgr.empty());
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  cv::absdiff(rgb, as_mat(im), diff);
  EXPECT_LE(cv::norm(diff, cv::NORM_INF), 2.0);  // OpenCV rounds with >> 8 instead of / 255
  Image half;
  ASSERT_TRUE(d.decode(jpg, "cmyk.jpg", 2, half).ok());
  EXPECT_EQ(half.width(), 32);
  EXPECT_EQ(half.height(), 24);
}

// A minimal baseline JPEG, 16x8, four components at full resolution and one flat colour, written
// by hand so that the Adobe APP14 marker can be left out (tjCompress2 always writes it). Every
// quantizer is 1, so the DC coefficient 8 * (v - 128) decodes back to exactly v.
std::vector<uint8_t> flat_cmyk_jpeg(const std::array<uint8_t, 4>& samples, bool adobe) {
  std::vector<uint8_t> j = {0xFF, 0xD8};
  auto put = [&j](std::initializer_list<int> bytes) {
    for (int b : bytes) j.push_back(static_cast<uint8_t>(b));
  };
  if (adobe)
    put({0xFF, 0xEE, 0, 14, 'A', 'd', 'o', 'b', 'e', 0, 100, 0, 0, 0, 0, 0});  // transform 0
  put({0xFF, 0xDB, 0, 67, 0x00});  // DQT: table 0, all ones
  for (int i = 0; i < 64; ++i) put({1});
  put({0xFF, 0xC0, 0, 20, 8, 0, 8, 0, 16, 4});  // SOF0: 8 bits, 8 rows, 16 columns, 4 components
  for (int c = 1; c <= 4; ++c) put({c, 0x11, 0});
  // DHT: DC table 0 gives categories 0..11 four-bit codes 0000..1011; AC table 0 has only EOB = 0.
  put({0xFF, 0xC4, 0, 49, 0x00, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
  for (int s = 0; s < 12; ++s) put({s});
  put({0x10, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00});
  put({0xFF, 0xDA, 0, 14, 4, 1, 0x00, 2, 0x00, 3, 0x00, 4, 0x00, 0, 63, 0});  // SOS
  uint32_t acc = 0;
  int nbits = 0;
  auto bits = [&](uint32_t v, int n) {
    for (int i = n - 1; i >= 0; --i) {
      acc = (acc << 1) | ((v >> i) & 1);
      if (++nbits == 8) {
        j.push_back(static_cast<uint8_t>(acc));
        if (acc == 0xFF) j.push_back(0);  // byte stuffing
        acc = 0, nbits = 0;
      }
    }
  };
  for (int mcu = 0; mcu < 2; ++mcu)
    for (int c = 0; c < 4; ++c) {
      const int diff = mcu == 0 ? 8 * (samples[c] - 128) : 0;  // DC is predicted per component
      int cat = 0;
      while ((std::abs(diff) >> cat) != 0) ++cat;
      bits(static_cast<uint32_t>(cat), 4);
      if (cat) bits(static_cast<uint32_t>(diff >= 0 ? diff : diff + (1 << cat) - 1), cat);
      bits(0, 1);  // EOB
    }
  if (nbits) bits(0xFF, 8 - nbits);  // pad with ones
  put({0xFF, 0xD9});
  return j;
}

TEST(DecodeTest, CmykConventionFollowsTheAdobeMarker) {
  struct Case {
    std::array<uint8_t, 4> cmyk;  // ink amounts, 0 = none
    std::array<int, 3> rgb;
  };
  const Case cases[] = {{{0, 255, 0, 0}, {255, 0, 255}},
                        {{0, 0, 255, 102}, {153, 153, 0}},
                        {{255, 0, 0, 0}, {0, 255, 255}},
                        {{0, 0, 0, 255}, {0, 0, 0}},
                        {{0, 0, 0, 0}, {255, 255, 255}}};
  Decoder d;
  Image im;
  for (const Case& c : cases) {
    for (bool adobe : {false, true}) {
      std::array<uint8_t, 4> stored = c.cmyk;
      if (adobe)
        for (uint8_t& v : stored) v = static_cast<uint8_t>(255 - v);
      const auto jpg = flat_cmyk_jpeg(stored, adobe);
      auto info = d.read_info(jpg, "flat.jpg");
      ASSERT_TRUE(info.has_value()) << info.error().to_string();
      EXPECT_EQ(info->channels, 4);
      for (int denom : {1, 2}) {
        Status s = d.decode(jpg, "flat.jpg", denom, im);
        ASSERT_TRUE(s.ok()) << s.to_string();
        ASSERT_EQ(im.width(), 16 / denom);
        ASSERT_EQ(im.height(), 8 / denom);
        for (int y = 0; y < im.height(); ++y)
          for (int x = 0; x < im.width(); ++x)
            for (int k = 0; k < 3; ++k)
              ASSERT_NEAR(im.data()[(y * im.width() + x) * 3 + k], c.rgb[k], 1)
                  << "adobe " << adobe << " denom " << denom << " channel " << k;
      }
    }
  }
  // The hand-made file is a real JPEG: OpenCV reads the Adobe variant the same way.
  const auto jpg = flat_cmyk_jpeg({255, 0, 255, 255}, true);
  cv::Mat bgr = cv::imdecode(jpg, cv::IMREAD_COLOR);
  ASSERT_FALSE(bgr.empty());
  EXPECT_NEAR(bgr.at<cv::Vec3b>(0, 0)[2], 255, 2);
  EXPECT_NEAR(bgr.at<cv::Vec3b>(0, 0)[1], 0, 2);
}

TEST(DecodeTest, BadScaleAndReuseAcrossSizes) {
  const auto bytes = sample_jpeg();
  Decoder d;
  Image im;
  EXPECT_EQ(d.decode(bytes, "x.jpg", 3, im).code(), Code::kInvalidArgument);
  ASSERT_TRUE(d.decode(bytes, "x.jpg", 8, im).ok());
  const size_t small_cap = im.capacity_bytes();
  ASSERT_TRUE(d.decode(bytes, "x.jpg", 1, im).ok());
  EXPECT_GT(im.capacity_bytes(), small_cap);
  const size_t big_cap = im.capacity_bytes();
  ASSERT_TRUE(d.decode(bytes, "x.jpg", 2, im).ok());
  EXPECT_EQ(im.capacity_bytes(), big_cap);  // the buffer is reused, not reallocated
}

TEST(DecodeTest, ReadFileErrorsNameThePath) {
  std::vector<uint8_t> b;
  Status s = read_file("/nonexistent/x.jpg", b);
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find("/nonexistent/x.jpg"), std::string::npos);
}

}  // namespace
}  // namespace textfeed::loader

namespace textfeed::loader {
namespace {

TEST(DecodeEighthsTest, SizesAndFastScaleChoice) {
  const auto bytes = sample_jpeg();
  Decoder d;
  Image im;
  for (int e = 1; e <= 8; ++e) {
    ASSERT_TRUE(d.decode_eighths(bytes, "img_1.jpg", e, im).ok()) << e;
    EXPECT_EQ(im.width(), (1280 * e + 7) / 8);
    EXPECT_EQ(im.height(), (720 * e + 7) / 8);
  }
  EXPECT_EQ(d.decode_eighths(bytes, "img_1.jpg", 0, im).code(), Code::kInvalidArgument);
  EXPECT_EQ(d.decode_eighths(bytes, "img_1.jpg", 9, im).code(), Code::kInvalidArgument);
  EXPECT_EQ(fast_dct_eighths(1.0), 8);
  EXPECT_EQ(fast_dct_eighths(0.6), 8);   // 1/2 would need a 20% enlargement
  EXPECT_EQ(fast_dct_eighths(0.52), 4);  // 4% enlargement after 1/2 is allowed
  EXPECT_EQ(fast_dct_eighths(0.25), 2);
  EXPECT_EQ(fast_dct_eighths(0.05), 1);
  // Two axes: the smaller scale decides, the larger may be stretched by up to 1.3.
  EXPECT_EQ(fast_dct_eighths(0.52, 0.62), 4);  // upstage's resize with a 1.2 height stretch
  EXPECT_EQ(fast_dct_eighths(0.52, 0.66), 8);  // a 1.32 stretch after 1/2 would be too much
  EXPECT_EQ(fast_dct_eighths(0.45, 0.52), 4);  // a 0.87 height squeeze: 1/2 and shrink
  EXPECT_EQ(fast_dct_eighths(0.6, 0.6), fast_dct_eighths(0.6));
}

}  // namespace
}  // namespace textfeed::loader

namespace textfeed::loader {
namespace {

// A window decode equals the whole decode away from the window's edges, at every fast scale, on a
// real 4:2:0 photo; a window over the whole image is the whole decode; CMYK falls back to it.
TEST(DecodeWindowTest, InteriorEqualsTheWholeDecode) {
  const auto bytes = sample_jpeg();
  Decoder d;
  for (int e : {1, 2, 4, 8}) {
    Image whole, part;
    ASSERT_TRUE(d.decode_eighths(bytes, "img_1.jpg", e, whole).ok());
    const int x0 = 37 * e / 8 + 3, y0 = 211 * e / 8 + 1, x1 = 900 * e / 8, y1 = 640 * e / 8;
    auto w = d.decode_window(bytes, "img_1.jpg", e, x0, y0, x1, y1, part);
    ASSERT_TRUE(w.has_value()) << w.error().to_string();
    EXPECT_LE(w->x0, x0);
    EXPECT_EQ(w->y0, y0);
    EXPECT_EQ(part.height(), y1 - y0);
    EXPECT_GE(w->x0 + part.width(), x1);
    const int margin = 8;
    int differ = 0;
    for (int y = margin; y < part.height() - margin; ++y)
      differ +=
          std::memcmp(
              part.data() + (static_cast<size_t>(y) * part.width() + (x0 - w->x0 + margin)) * 3,
              whole.data() + (static_cast<size_t>(y + y0) * whole.width() + x0 + margin) * 3,
              static_cast<size_t>(x1 - x0 - 2 * margin) * 3) != 0;
    EXPECT_EQ(differ, 0) << "rows that differ from the whole decode at " << e << "/8";
  }
  Image all;
  auto w = d.decode_window(bytes, "img_1.jpg", 8, 0, 0, 1280, 720, all);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->x0, 0);
  EXPECT_EQ(all.width(), 1280);
}

TEST(DecodeWindowTest, DamageAndUnsupportedKinds) {
  auto bytes = sample_jpeg();
  Decoder d;
  Image out;
  bytes.resize(bytes.size() / 2);  // the window's rows lie in the lost half
  auto cut = d.decode_window(bytes, "half.jpg", 8, 0, 500, 100, 700, out);
  ASSERT_FALSE(cut.has_value());
  EXPECT_EQ(cut.error().code(), Code::kCorrupt);
  EXPECT_NE(cut.error().message().find("half.jpg"), std::string::npos);
  std::vector<uint8_t> cmyk(64 * 48 * 4, 0);
  for (size_t i = 0; i < cmyk.size(); ++i) cmyk[i] = static_cast<uint8_t>(i * 7);
  const auto jpg = encode_cmyk_jpeg(cmyk, 64, 48);
  ASSERT_FALSE(jpg.empty());
  auto whole = d.decode_window(jpg, "cmyk.jpg", 8, 10, 10, 20, 20, out);  // whole-image fallback
  ASSERT_TRUE(whole.has_value()) << whole.error().to_string();
  EXPECT_EQ(whole->x0, 0);
  EXPECT_EQ(out.width(), 64);
  EXPECT_EQ(out.height(), 48);
}

// The sample photo (1280x720: 80 MCUs a row) re-encoded with restart markers as `cache build
// --restart-rows` writes them (interval 0: every 8 MCUs here), or every `interval` MCUs.
std::vector<uint8_t> restart_jpeg(Image& rgb, int quality = 95, int interval = 0) {
  Decoder d;
  EXPECT_TRUE(d.decode_eighths(sample_jpeg(), "img_1.jpg", 8, rgb).ok());
  std::vector<uint8_t> out;
  EXPECT_TRUE(internal::encode_jpeg_restart_rows(rgb, quality, out, interval).ok());
  return out;
}

// The same JPEG from TurboJPEG's encoder, without markers.
std::vector<uint8_t> turbo_jpeg(const Image& rgb, int quality = 95) {
  tjhandle c = tjInitCompress();
  unsigned char* plain = nullptr;
  unsigned long plain_size = 0;
  EXPECT_EQ(tjCompress2(c, rgb.data(), rgb.width(), 0, rgb.height(), TJPF_RGB, &plain, &plain_size,
                        TJSAMP_420, quality, 0),
            0);
  tjDestroy(c);
  const std::vector<uint8_t> turbo(plain, plain + plain_size);
  tjFree(plain);
  return turbo;
}

// Windows of `rst` (a restart-marked JPEG) and of `turbo` (the same coefficients, no markers):
// the same origin, size and bytes, every row and column; returns how many were cut at markers.
int expect_same_windows(const std::vector<uint8_t>& rst, const std::vector<uint8_t>& turbo, int e,
                        const std::vector<std::array<int, 4>>& windows) {
  Decoder d;
  int cuts = 0;
  for (const auto& [x0, y0, x1, y1] : windows) {
    internal::RestartWindow part;
    const int fx0 = x0 * 8 / e, fy0 = y0 * 8 / e, fx1 = (x1 * 8 + e - 1) / e,
              fy1 = (y1 * 8 + e - 1) / e;
    cuts += internal::cut_restart_window(rst, fx0, fy0, fx1, fy1, part);
    EXPECT_FALSE(internal::cut_restart_window(turbo, fx0, fy0, fx1, fy1, part));
    Image wa, wb;
    auto ra = d.decode_window(rst, "rst.jpg", e, x0, y0, x1, y1, wa);
    auto rb = d.decode_window(turbo, "turbo.jpg", e, x0, y0, x1, y1, wb);
    EXPECT_TRUE(ra.has_value()) << ra.error().to_string();
    EXPECT_TRUE(rb.has_value());
    if (!ra.has_value() || !rb.has_value()) return cuts;
    const std::string at = "e " + std::to_string(e) + " window " + std::to_string(x0) + "," +
                           std::to_string(y0) + " .. " + std::to_string(x1) + "," +
                           std::to_string(y1);
    EXPECT_EQ(ra->x0, rb->x0) << at;
    EXPECT_EQ(ra->y0, rb->y0) << at;
    EXPECT_EQ(wa.width(), wb.width()) << at;
    EXPECT_EQ(wa.height(), wb.height()) << at;
    if (wa.width() != wb.width() || wa.height() != wb.height()) return cuts;
    for (int y = 0; y < wa.height(); ++y)
      if (std::memcmp(wa.data() + y * wa.stride_bytes(), wb.data() + y * wb.stride_bytes(),
                      static_cast<size_t>(wa.width()) * 3)) {
        ADD_FAILURE() << at << ": row " << y << " differs";
        break;
      }
  }
  return cuts;
}

TEST(RestartRowsTest, IntervalsDivideTheRowNearestToEightMcus) {
  EXPECT_EQ(internal::restart_interval_mcus(80), 8);
  EXPECT_EQ(internal::restart_interval_mcus(100), 10);  // 10 and 5 divide it: 10 is nearer
  EXPECT_EQ(internal::restart_interval_mcus(99), 9);
  EXPECT_EQ(internal::restart_interval_mcus(106), 2);  // 2 x 53
  EXPECT_EQ(internal::restart_interval_mcus(97), 97);  // prime: a whole row
  EXPECT_EQ(internal::restart_interval_mcus(8), 4);
  EXPECT_EQ(internal::restart_interval_mcus(2), 2);
  EXPECT_EQ(internal::restart_interval_mcus(1), 1);
  Image rgb;
  std::vector<uint8_t> out;
  ASSERT_TRUE(Decoder().decode_eighths(sample_jpeg(), "img_1.jpg", 8, rgb).ok());
  const Status s = internal::encode_jpeg_restart_rows(rgb, 90, out, 7);  // 7 does not divide 80
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("does not divide"), std::string::npos) << s.to_string();
}

TEST(RestartRowsTest, SamePixelsAsTurboJpegAndWindowsCutAtTheMarkers) {
  Image rgb;
  const auto rst = restart_jpeg(rgb);
  const auto turbo = turbo_jpeg(rgb);
  // Per interval of 8 MCUs (450 of them): the marker's two bytes, up to a byte of padding, and the
  // three DC values coded whole (their prediction starts again at zero).
  EXPECT_GT(rst.size(), turbo.size() + 2 * 450);
  EXPECT_LT(rst.size(), turbo.size() + 5 * 450);
  Decoder d;
  std::mt19937 rng(11);
  for (int e : {2, 4, 7, 8}) {
    // The same DCT coefficients as TurboJPEG's encoder at that quality: the same whole decode.
    Image a, b;
    ASSERT_TRUE(d.decode_eighths(rst, "rst.jpg", e, a).ok());
    ASSERT_TRUE(d.decode_eighths(turbo, "turbo.jpg", e, b).ok());
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size_bytes())) << e;
    // Windows anywhere, at edges, one pixel wide or tall, crossing interval and MCU boundaries:
    // the part decoded gives every byte that the plain JPEG's window decode gives.
    std::vector<std::array<int, 4>> windows{{0, 0, 1, 1},
                                            {a.width() - 1, a.height() - 1, a.width(), a.height()},
                                            {0, a.height() / 2, a.width(), a.height()},
                                            {a.width() / 2, 0, a.width(), a.height() / 3},
                                            {16 * e - 1, 16 * e + 1, 16 * e + 2, 32 * e},
                                            {128 * e / 8, 130 * e / 8, 129 * e / 8, a.height()}};
    for (int k = 0; k < 30; ++k) {
      const int x0 = static_cast<int>(rng() % static_cast<unsigned>(a.width() - 1));
      const int y0 = static_cast<int>(rng() % static_cast<unsigned>(a.height() - 1));
      windows.push_back(
          {x0, y0, x0 + 1 + static_cast<int>(rng() % static_cast<unsigned>(a.width() - x0 - 1)),
           y0 + 1 + static_cast<int>(rng() % static_cast<unsigned>(a.height() - y0 - 1))});
    }
    EXPECT_GE(expect_same_windows(rst, turbo, e, windows), 30) << e;
  }
}

TEST(RestartRowsTest, APartIsAJpegOfThatPlace) {
  Image rgb;
  const auto rst = restart_jpeg(rgb);
  Image whole;
  Decoder d;
  ASSERT_TRUE(d.decode_eighths(rst, "rst.jpg", 8, whole).ok());
  internal::RestartWindow part;
  ASSERT_TRUE(internal::cut_restart_window(rst, 300, 200, 700, 400, part));
  // The window's MCUs rounded out to intervals of 8 MCUs (128 pixels), and one MCU row more above
  // and below.
  EXPECT_EQ(part.x_cut, 256);
  EXPECT_EQ(part.y_cut, 176);
  Image p;
  ASSERT_TRUE(d.decode_eighths(part.jpeg, "part.jpg", 8, p).ok());
  EXPECT_EQ(p.width(), 768 - 256);
  EXPECT_EQ(p.height(), 416 - 176);
  EXPECT_LT(part.jpeg.size(), rst.size() / 3);
  // Away from its own edges (where the chroma upsampling sees the part's edge), the same pixels.
  for (int y = 2; y < p.height() - 2; ++y)
    ASSERT_EQ(0, std::memcmp(
                     p.data() + y * p.stride_bytes() + 2 * 3,
                     whole.data() + (y + part.y_cut) * whole.stride_bytes() + (part.x_cut + 2) * 3,
                     static_cast<size_t>(p.width() - 4) * 3))
        << y;
  // A window over the top rows and the whole width needs nothing cut: no part.
  EXPECT_FALSE(internal::cut_restart_window(rst, 0, 0, rgb.width(), 100, part));
  EXPECT_TRUE(part.jpeg.empty());
  // Bad windows make none.
  EXPECT_FALSE(internal::cut_restart_window(rst, 10, 10, 10, 20, part));
  EXPECT_FALSE(internal::cut_restart_window(rst, -1, 10, 10, 20, part));
  EXPECT_FALSE(internal::cut_restart_window(rst, 5000, 5000, 5010, 5020, part));
}

TEST(RestartRowsTest, CachesWithAMarkerPerRowAreCutToo) {
  // `cache build --restart-rows` once wrote one interval per MCU row: windows still start at the
  // MCU row above them, and give the same bytes.
  Image rgb;
  const auto rows = restart_jpeg(rgb, 90, 80);
  const auto turbo = turbo_jpeg(rgb, 90);
  internal::RestartWindow part;
  ASSERT_TRUE(internal::cut_restart_window(rows, 300, 200, 700, 400, part));
  EXPECT_EQ(part.x_cut, 0);
  EXPECT_EQ(part.y_cut, 176);
  // (The last window is the whole image, which no decode cuts.)
  EXPECT_EQ(3, expect_same_windows(
                   rows, turbo, 8,
                   {{300, 200, 700, 400}, {0, 33, 1280, 40}, {5, 700, 6, 720}, {0, 0, 1280, 720}}));
  EXPECT_EQ(2, expect_same_windows(rows, turbo, 4, {{150, 100, 350, 200}, {639, 17, 640, 18}}));
}

// `rgb` through libjpeg at quality 75 with luma sampling factors h x v (chroma 1 x 1), or as
// grayscale with those factors, and a restart marker every `interval` MCUs.
std::vector<uint8_t> libjpeg_encode(const Image& rgb, int h, int v, bool gray, int interval) {
  jpeg_compress_struct c;
  jpeg_error_mgr e;
  c.err = jpeg_std_error(&e);
  jpeg_create_compress(&c);
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&c, &buf, &size);
  c.image_width = static_cast<JDIMENSION>(rgb.width());
  c.image_height = static_cast<JDIMENSION>(rgb.height());
  c.input_components = 3;
  c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 75, TRUE);
  if (gray) jpeg_set_colorspace(&c, JCS_GRAYSCALE);
  c.comp_info[0].h_samp_factor = h;
  c.comp_info[0].v_samp_factor = v;
  c.restart_interval = static_cast<unsigned>(interval);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(rgb.data()) +
                   static_cast<size_t>(c.next_scanline) * rgb.stride_bytes();
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::vector<uint8_t> out(buf, buf + size);
  free(buf);
  return out;
}

TEST(RestartRowsTest, EverySamplingAndScaleGivesTheBytesOfTheUncutWindow) {
  Image photo;
  ASSERT_TRUE(Decoder().decode_eighths(sample_jpeg(), "img_1.jpg", 8, photo).ok());
  Image rgb;
  rgb.reset(200, 596,
            3);  // 74.5 blocks of 8 a row, 37.25 MCUs of 16 (the last 4 pixels), 18.6 of 32
  for (int y = 0; y < rgb.height(); ++y)
    std::memcpy(rgb.data() + y * rgb.stride_bytes(),
                photo.data() + (y + 300) * photo.stride_bytes() + 400 * 3, 596 * 3);
  struct Flavour {
    int h, v;
    bool gray;
    int interval;  // 0: restart_interval_mcus of the row
  };
  // 4:4:4, 4:2:2, 4:4:0, 4:2:0 (4:2:2 and 4:2:0 also with a marker after every MCU: parts widened
  // to 4 MCUs, as the last MCU holds 4 pixels), 4:1:1, grayscale with 1x1 and 2x2 factors (its MCUs
  // are 8x8 blocks either way).
  const Flavour flavours[] = {{1, 1, false, 0}, {2, 1, false, 0}, {2, 1, false, 1},
                              {1, 2, false, 0}, {2, 2, false, 0}, {2, 2, false, 1},
                              {4, 1, false, 0}, {1, 1, true, 0},  {2, 2, true, 0}};
  std::mt19937 rng(5);
  for (const Flavour& f : flavours) {
    const int mcu_w = f.gray ? 8 : 8 * f.h;
    const int row_mcus = (rgb.width() + mcu_w - 1) / mcu_w;
    const auto jpeg = libjpeg_encode(
        rgb, f.h, f.v, f.gray, f.interval ? f.interval : internal::restart_interval_mcus(row_mcus));
    const std::string flavour = std::to_string(f.h) + "x" + std::to_string(f.v) +
                                (f.gray ? " gray" : "") + " interval " + std::to_string(f.interval);
    int cuts = 0;
    for (int e = 1; e <= 8; ++e) {
      const int w = (rgb.width() * e + 7) / 8, h = (rgb.height() * e + 7) / 8;
      for (int k = 0; k < 10; ++k) {
        // Half of them narrow (1-3 pixels wide; the first at the right edge), the others anywhere.
        const int x0 = k == 1 ? w - 2 : static_cast<int>(rng() % static_cast<unsigned>(w - 1));
        const int y0 = static_cast<int>(rng() % static_cast<unsigned>(h - 1));
        const int x1 = k % 2 ? std::min(w, x0 + 1 + static_cast<int>(rng() % 3))
                             : x0 + 1 + static_cast<int>(rng() % static_cast<unsigned>(w - x0 - 1));
        const int y1 = y0 + 1 + static_cast<int>(rng() % static_cast<unsigned>(h - y0 - 1));
        internal::RestartWindow part;
        cuts += internal::cut_restart_window(jpeg, x0 * 8 / e, y0 * 8 / e, (x1 * 8 + e - 1) / e,
                                             (y1 * 8 + e - 1) / e, part);
        Image a, b;
        const auto ra = internal::decode_jpeg_window(jpeg, "cut.jpg", e, x0, y0, x1, y1, a);
        const auto rb = internal::decode_jpeg_window(jpeg, "plain.jpg", e, x0, y0, x1, y1, b,
                                                     /*allow_cut=*/false);
        const std::string at = flavour + ", e " + std::to_string(e) + ", window " +
                               std::to_string(x0) + "," + std::to_string(y0) + " .. " +
                               std::to_string(x1) + "," + std::to_string(y1);
        ASSERT_TRUE(ra.has_value()) << at << ": " << ra.error().to_string();
        ASSERT_TRUE(rb.has_value()) << at;
        ASSERT_EQ(ra->x0, rb->x0) << at;
        ASSERT_EQ(ra->y0, rb->y0) << at;
        ASSERT_EQ(a.width(), b.width()) << at;
        ASSERT_EQ(a.height(), b.height()) << at;
        ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size_bytes())) << at;
      }
    }
    EXPECT_GE(cuts, 60) << flavour;  // most of the 80 windows start below the first MCU rows
  }
}

TEST(RestartRowsTest, AHeaderWithMarkersLibjpegReadsWithoutALengthIsNotCut) {
  // libjpeg reads RSTn and TEM in the headers as markers without a length. A walk that read a
  // length there could see another restart interval than the decoder: here an RST0 whose "length"
  // (the next marker's FF E1) jumps to a DRI of 8 MCUs hidden in an APP1 that libjpeg skips, while
  // libjpeg keeps the real DRI of a whole row (80 MCUs). Cut at 8 MCUs, the window would be wrong.
  Image rgb;
  const auto rows = restart_jpeg(rgb, 90, 80);
  std::vector<uint8_t> rest(rows.begin() + 2, rows.end());  // after SOI, without its DRI
  for (size_t i = 0; i + 6 <= rest.size(); ++i)
    if (rest[i] == 0xFF && rest[i + 1] == 0xDD) {
      rest.erase(rest.begin() + static_cast<ptrdiff_t>(i),
                 rest.begin() + static_cast<ptrdiff_t>(i) + 6);
      break;
    }
  std::vector<uint8_t> odd{0xFF, 0xD8, 0xFF, 0xDD, 0x00, 0x04, 0x00, 80, 0xFF, 0xD0, 0xFF, 0xE1};
  // The walk: RST0 at 8, "length" 0xFFE1 -> next segment at 8 + 2 + 65505 = 65515. libjpeg: APP1 at
  // 10, its length 65509 -> next segment at 10 + 2 + 65509 = 65521.
  odd.push_back(65509 >> 8), odd.push_back(65509 & 0xFF);
  odd.resize(65515, 0);
  for (const uint8_t b : {0xFF, 0xDD, 0x00, 0x04, 0x00, 8}) odd.push_back(b);
  odd.insert(odd.end(), rest.begin(), rest.end());
  // A window in the top rows, where 8-MCU intervals would still find as many markers as they need.
  internal::RestartWindow part;
  EXPECT_FALSE(internal::cut_restart_window(odd, 300, 0, 700, 20, part));
  // libjpeg reads the file as it is, and the window is the right one.
  Image a, b;
  const auto ra = Decoder().decode_window(odd, "odd.jpg", 8, 300, 0, 700, 20, a);
  const auto rb = Decoder().decode_window(rows, "rows.jpg", 8, 300, 0, 700, 20, b);
  ASSERT_TRUE(ra.has_value()) << ra.error().to_string();
  ASSERT_TRUE(rb.has_value());
  EXPECT_EQ(ra->x0, rb->x0);
  ASSERT_EQ(a.size_bytes(), b.size_bytes());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size_bytes()));
}

TEST(RestartRowsTest, DamagedDataIsCorruptAndNamed) {
  Image rgb;
  auto rst = restart_jpeg(rgb);
  Decoder d;
  Image out;
  // Cut short: the window's intervals are not all there, and the decode says so.
  std::vector<uint8_t> half(rst.begin(), rst.begin() + static_cast<ptrdiff_t>(rst.size() * 3 / 4));
  internal::RestartWindow part;
  EXPECT_FALSE(internal::cut_restart_window(half, 0, 600, 200, 719, part));
  auto r = d.decode_window(half, "half.jpg", 8, 0, 600, 200, 719, out);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kCorrupt);
  EXPECT_NE(r.error().message().find("half.jpg"), std::string::npos);
  // A marker out of sequence before the window: no part, and the ordinary decode reports it.
  auto bad = rst;
  int rst_seen = 0;
  for (size_t i = 700; i + 1 < bad.size(); ++i)
    if (bad[i] == 0xFF && bad[i + 1] >= 0xD0 && bad[i + 1] <= 0xD7 && ++rst_seen == 3) {
      bad[i + 1] = bad[i + 1] == 0xD6 ? 0xD5 : 0xD6;
      break;
    }
  EXPECT_FALSE(internal::cut_restart_window(bad, 600, 600, 800, 700, part));
  r = d.decode_window(bad, "bad.jpg", 8, 600, 600, 800, 700, out);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kCorrupt);
  EXPECT_NE(r.error().message().find("bad.jpg"), std::string::npos);
  // Another marker (EOI) where a restart should be: no part.
  auto eoi = rst;
  rst_seen = 0;
  for (size_t i = 700; i + 1 < eoi.size(); ++i)
    if (eoi[i] == 0xFF && eoi[i + 1] >= 0xD0 && eoi[i + 1] <= 0xD7 && ++rst_seen == 5) {
      eoi[i + 1] = 0xD9;
      break;
    }
  EXPECT_FALSE(internal::cut_restart_window(eoi, 600, 600, 800, 700, part));
  EXPECT_FALSE(d.decode_window(eoi, "eoi.jpg", 8, 600, 600, 800, 700, out).has_value());
  // A frame whose restart interval does not divide its rows (here 3 of 80 MCUs): no part.
  auto odd = rst;
  for (size_t i = 2; i + 5 < odd.size(); ++i)
    if (odd[i] == 0xFF && odd[i + 1] == 0xDD) {
      odd[i + 5] = 3;
      break;
    }
  EXPECT_FALSE(internal::cut_restart_window(odd, 600, 600, 800, 700, part));
  // Arbitrary bytes never make a part.
  std::vector<uint8_t> junk(4096);
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<uint8_t>(i * 131 + 7);
  junk[0] = 0xFF, junk[1] = 0xD8;
  EXPECT_FALSE(internal::cut_restart_window(junk, 600, 600, 800, 700, part));
  EXPECT_FALSE(internal::cut_restart_window(std::span<const uint8_t>(rst.data(), 10), 600, 600, 800,
                                            700, part));
}

}  // namespace
}  // namespace textfeed::loader
