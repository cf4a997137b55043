// Decoder: full and DCT-scaled decode, every failure mode the issue names, format coverage.
#include "loader/decode.h"
#include "loader/detail/jpeg_restart.h"

#include <gtest/gtest.h>
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

namespace textfeed::loader {
namespace {

std::vector<uint8_t> sample_jpeg() {
  std::vector<uint8_t> b;
  EXPECT_TRUE(
      read_file(std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample/images/img_1.jpg", b)
          .ok());
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
      differ += std::memcmp(part.data() + (static_cast<size_t>(y) * part.width() + (x0 - w->x0 + margin)) * 3,
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


// The sample photo re-encoded with a restart marker per MCU row (as `cache build --restart-rows`).
std::vector<uint8_t> restart_jpeg(Image& rgb, int quality = 95) {
  Decoder d;
  EXPECT_TRUE(d.decode_eighths(sample_jpeg(), "img_1.jpg", 8, rgb).ok());
  std::vector<uint8_t> out;
  EXPECT_TRUE(internal::encode_jpeg_restart_rows(rgb, quality, out).ok());
  return out;
}

TEST(RestartRowsTest, SamePixelsAsTurboJpegAndWindowsCutAtAMarker) {
  Image rgb;
  const auto rst = restart_jpeg(rgb);
  // The same DCT coefficients as TurboJPEG's encoder at that quality: the same whole decode.
  tjhandle c = tjInitCompress();
  unsigned char* plain = nullptr;
  unsigned long plain_size = 0;
  ASSERT_EQ(tjCompress2(c, rgb.data(), rgb.width(), 0, rgb.height(), TJPF_RGB, &plain, &plain_size, TJSAMP_420, 95, 0), 0);
  tjDestroy(c);
  const std::vector<uint8_t> turbo(plain, plain + plain_size);
  tjFree(plain);
  EXPECT_GT(rst.size(), turbo.size());  // the markers: 2 bytes per MCU row, and padding
  Decoder d;
  for (int e : {2, 4, 8}) {
    Image a, b;
    ASSERT_TRUE(d.decode_eighths(rst, "rst.jpg", e, a).ok());
    ASSERT_TRUE(d.decode_eighths(turbo, "turbo.jpg", e, b).ok());
    ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size_bytes())) << e;
    // Windows from far down the image start at the cut above them: the same rows as a window of
    // the plain JPEG, which entropy-decodes everything above.
    for (const int y0 : {130, 256, 300, 513, 700}) {
      const int sy0 = y0 * e / 8, sy1 = std::min(sy0 + 9 * e, a.height()), sx0 = 100 * e / 8, sx1 = 1000 * e / 8;
      internal::RestartCut cut;
      EXPECT_EQ(internal::find_restart_cut(rst, sy0 * 8 / e, cut), y0 >= 128) << y0;
      EXPECT_FALSE(internal::find_restart_cut(turbo, sy0 * 8 / e, cut));
      Image wa, wb;
      auto ra = d.decode_window(rst, "rst.jpg", e, sx0, sy0, sx1, sy1, wa);
      auto rb = d.decode_window(turbo, "turbo.jpg", e, sx0, sy0, sx1, sy1, wb);
      ASSERT_TRUE(ra.has_value()) << ra.error().to_string();
      ASSERT_TRUE(rb.has_value());
      EXPECT_EQ(ra->x0, rb->x0);
      EXPECT_EQ(ra->y0, sy0);
      ASSERT_EQ(wa.width(), wb.width());
      ASSERT_EQ(wa.height(), wb.height());
      // Away from the cut's own first rows (chroma upsampling sees the edge there), byte-equal.
      const int from = (y0 / 128 * 128) * e / 8 + 2 * e > sy0 ? (y0 / 128 * 128) * e / 8 + 2 * e - sy0 : 0;
      for (int y = from; y < wa.height(); ++y)
        ASSERT_EQ(0, std::memcmp(wa.data() + y * wa.stride_bytes(), wb.data() + y * wb.stride_bytes(), static_cast<size_t>(wa.width()) * 3)) << e << " " << y0 << " " << y;
    }
  }
}

TEST(RestartRowsTest, DamagedDataAfterTheCutIsCorruptAndNamed) {
  Image rgb;
  auto rst = restart_jpeg(rgb);
  Decoder d;
  Image out;
  std::vector<uint8_t> half(rst.begin(), rst.begin() + static_cast<ptrdiff_t>(rst.size() * 3 / 4));
  auto r = d.decode_window(half, "half.jpg", 8, 0, 600, 200, 719, out);  // past the data that is left
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kCorrupt);
  EXPECT_NE(r.error().message().find("half.jpg"), std::string::npos);
  // A marker out of sequence: the cut is refused and the ordinary path reports the damage.
  auto bad = rst;
  int rst_seen = 0;
  for (size_t i = 700; i + 1 < bad.size(); ++i)
    if (bad[i] == 0xFF && bad[i + 1] >= 0xD0 && bad[i + 1] <= 0xD7 && ++rst_seen == 3) {
      bad[i + 1] = 0xD6;
      break;
    }
  internal::RestartCut cut;
  EXPECT_FALSE(internal::find_restart_cut(bad, 600, cut));
  // Arbitrary bytes never make a cut.
  std::vector<uint8_t> junk(4096);
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<uint8_t>(i * 131 + 7);
  junk[0] = 0xFF, junk[1] = 0xD8;
  EXPECT_FALSE(internal::find_restart_cut(junk, 600, cut));
  EXPECT_FALSE(internal::find_restart_cut(std::span<const uint8_t>(rst.data(), 10), 600, cut));
}

}  // namespace
}  // namespace textfeed::loader
