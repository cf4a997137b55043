// Decoder on every format it reads besides JPEG: the size comes from the header (so the pixel limit
// is checked before any decoder allocates), formats it cannot size first are refused by name,
// damaged headers are errors, and a JPEG whose header fails leaves the Decoder as good as new.
#include <gtest/gtest.h>

#include <cstring>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <random>
#include <string>
#include <vector>

#include "loader/decode/decode.h"
#include "tests/loader/test_images.h"

namespace textfeed::loader {
namespace {

using testing::encoded_image;

const char* const kFormats[] = {".png", ".bmp", ".tif", ".webp", ".ppm", ".pgm", ".pam"};

TEST(DecodeFormatsTest, EveryFormatHasItsSizeReadFromTheHeaderAndDecodesExactly) {
  Decoder d;
  for (const char* ext : kFormats) {
    const std::vector<uint8_t> bytes = encoded_image(ext, 53, 37);
    ASSERT_FALSE(bytes.empty()) << ext;
    auto info = d.read_info(bytes, std::string("a") + ext);
    ASSERT_TRUE(info.has_value()) << ext << ": " << info.error().to_string();
    EXPECT_EQ(info->width, 53) << ext;
    EXPECT_EQ(info->height, 37) << ext;
    Image im;
    ASSERT_TRUE(d.decode(bytes, ext, 1, im).ok()) << ext;
    EXPECT_EQ(im.width(), 53) << ext;
    EXPECT_EQ(im.height(), 37) << ext;
    ASSERT_TRUE(d.decode(bytes, ext, 2, im).ok()) << ext;
    EXPECT_EQ(im.width(), 27) << ext;
    EXPECT_EQ(im.height(), 19) << ext;
  }
}

TEST(DecodeFormatsTest, ImagesOverTheLimitAreRefusedFromTheHeaderForEveryFormat) {
  Decoder d({.max_pixels = 1000});
  for (const char* ext : kFormats) {
    const std::vector<uint8_t> bytes = encoded_image(ext, 40, 30);  // 1200 px
    Image im;
    const Status s = d.decode(bytes, std::string("big") + ext, 1, im);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << ext << ": " << s.to_string();
    EXPECT_NE(s.message().find("exceeds the limit"), std::string::npos) << s.message();
    EXPECT_EQ(im.capacity_bytes(), 0u) << ext;
    EXPECT_EQ(d.read_info(bytes, ext).error().code(), Code::kInvalidArgument) << ext;
  }
}

// Little-endian TIFF directory entry `tag` of `tiff` set to `value` (as LONG).
bool patch_tiff_tag(std::vector<uint8_t>& tiff, uint16_t tag, uint32_t value) {
  if (tiff.size() < 8 || tiff[0] != 'I') return false;
  const uint32_t ifd =
      tiff[4] | tiff[5] << 8 | tiff[6] << 16 | static_cast<uint32_t>(tiff[7]) << 24;
  const int n = tiff[ifd] | tiff[ifd + 1] << 8;
  for (int i = 0; i < n; ++i) {
    uint8_t* e = tiff.data() + ifd + 2 + 12 * i;
    if ((e[0] | e[1] << 8) != tag) continue;
    e[2] = 4, e[3] = 0;  // type LONG
    std::memcpy(e + 8, &value, 4);
    return true;
  }
  return false;
}

// A header claiming 16000 x 16000 over a few KB of data: 768 MB of pixels for OpenCV to allocate
// if the size were checked only after decoding. Refused from the header alone.
TEST(DecodeFormatsTest, AHugeSizeInAnyHeaderIsRefusedBeforeDecoding) {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> cases;
  std::vector<uint8_t> tiff = encoded_image(".tif", 40, 30);
  ASSERT_TRUE(patch_tiff_tag(tiff, 256, 16000) && patch_tiff_tag(tiff, 257, 16000));
  cases.emplace_back("huge.tif", tiff);
  std::vector<uint8_t> bmp = encoded_image(".bmp", 40, 30);
  const int32_t side = 16000;
  std::memcpy(bmp.data() + 18, &side, 4);
  std::memcpy(bmp.data() + 22, &side, 4);
  cases.emplace_back("huge.bmp", bmp);
  const std::string pgm = "P5\n16000 16000\n255\n" + std::string(1000, '\x7f');
  cases.emplace_back("huge.pgm", std::vector<uint8_t>(pgm.begin(), pgm.end()));
  std::vector<uint8_t> webp = encoded_image(".webp", 40, 30);
  ASSERT_EQ(std::string(webp.begin() + 12, webp.begin() + 16), "VP8L");
  const uint32_t bits = (16000 - 1) | (16000 - 1) << 14 | (webp[24] & 0xF0u) << 24;
  std::memcpy(webp.data() + 21, &bits, 4);
  cases.emplace_back("huge.webp", webp);
  Decoder d;
  for (const auto& [name, bytes] : cases) {
    Image im;
    const Status s = d.decode(bytes, name, 1, im);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << name << ": " << s.to_string();
    EXPECT_NE(s.message().find("16000x16000 exceeds the limit"), std::string::npos) << s.message();
  }
}

TEST(DecodeFormatsTest, FormatsWhoseSizeCannotBeReadFirstAreRefusedByName) {
  // Signatures written by hand: OpenCV's own JPEG 2000 and Sun raster codecs go through files in
  // its temporary directory, which a test must not leave behind.
  const std::pair<std::string, std::string> cases[] = {
      {"x.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 8 +X 8\n"},
      {"x.pfm", "PF\n8 8\n-1\n"},
      {"x.jp2", std::string("\0\0\0\x0cjP  \r\n\x87\n", 12) + std::string(64, '\0')},
      {"x.j2k", "\xff\x4f\xff\x51" + std::string(64, '\0')},
      {"x.exr", "\x76\x2f\x31\x01" + std::string(64, '\0')},
      {"x.gif", "GIF89a\x08\x00\x08\x00\x00\x00\x00;"},
      {"x.ras", "\x59\xa6\x6a\x95" + std::string("\0\0\0\x08\0\0\0\x08\0\0\0\x18", 12) +
                    std::string(16 + 192, '\0')},
  };
  const char* const what[] = {"Radiance HDR", "PFM", "JPEG 2000", "JPEG 2000",
                              "OpenEXR",      "GIF", "Sun raster"};
  Decoder d;
  for (size_t i = 0; i < std::size(cases); ++i) {
    const auto& [name, text] = cases[i];
    const std::vector<uint8_t> bytes(text.begin(), text.end());
    Image im;
    const Status s = d.decode(bytes, name, 1, im);
    EXPECT_EQ(s.code(), Code::kUnimplemented) << name << ": " << s.to_string();
    EXPECT_NE(s.message().find(what[i]), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("textfeed reads JPEG, PNG"), std::string::npos) << s.message();
    EXPECT_EQ(d.read_info(bytes, name).error().code(), Code::kUnimplemented) << name;
  }
}

// A side over 2^20 (OpenCV's own limit, where imdecode throws) is refused from the header, even
// when the pixel count is under the limit.
TEST(DecodeFormatsTest, ASideOverOpenCvsLimitIsRefusedFromTheHeader) {
  std::vector<uint8_t> png = encoded_image(".png", 40, 30);
  const uint8_t wide[4] = {0x00, 0x10, 0x00, 0x01};  // 1048577, big-endian
  std::memcpy(png.data() + 16, wide, 4);
  const uint8_t one[4] = {0, 0, 0, 1};
  std::memcpy(png.data() + 20, one, 4);
  Decoder d;
  Image im;
  const Status s = d.decode(png, "wide.png", 1, im);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("wide.png"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("1048577x1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("over 1048576"), std::string::npos) << s.message();
  EXPECT_EQ(im.capacity_bytes(), 0u);
}

// Every prefix and many random byte flips of each format's header: an error or a decode whose
// size is the header's, never a crash, a hang or a size from nowhere.
TEST(DecodeFormatsTest, DamagedHeadersAreErrorsNeverCrashes) {
  Decoder d;
  std::mt19937 rng(7);
  for (const char* ext : kFormats) {
    const std::vector<uint8_t> good = encoded_image(ext, 23, 17);
    for (size_t cut = 0; cut < std::min<size_t>(good.size(), 160); ++cut) {
      const std::vector<uint8_t> b(good.begin(), good.begin() + cut);
      Image im;
      const Status s = d.decode(b, ext, 1, im);
      if (s.ok()) {
        EXPECT_TRUE(im.width() == 23 && im.height() == 17) << ext << " cut at " << cut;
      }
    }
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<uint8_t> b = good;
      const size_t at = rng() % std::min<size_t>(b.size(), 64);
      b[at] = static_cast<uint8_t>(rng());
      Image im;
      auto info = d.read_info(b, ext);
      const Status s = d.decode(b, ext, 1, im);
      if (s.ok()) {
        ASSERT_TRUE(info.has_value());
        EXPECT_EQ(im.width(), info->width) << ext;
        EXPECT_EQ(im.height(), info->height) << ext;
      }
    }
  }
}

// libjpeg-turbo 2.1 leaves its decompressor mid-header after a header error; the next JPEG on
// that handle then fails ("two SOI markers"). The Decoder must start afresh after a failure.
TEST(DecodeFormatsTest, AJpegWhoseHeaderFailsDoesNotSpoilTheNextJpeg) {
  const std::vector<uint8_t> good = encoded_image(".jpg", 64, 48);
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> bad = {
      {"over 65500 px", testing::with_frame_size(good, 65535, 65535)},
      {"0x0 frame", testing::with_frame_size(good, 0, 0)},
      {"garbage frame", testing::with_garbage_frame(good)},
      {"truncated", std::vector<uint8_t>(good.begin(), good.begin() + 40)},
  };
  for (const auto& [what, bytes] : bad) {
    ASSERT_FALSE(bytes.empty()) << what;
    Decoder d;
    Image im;
    EXPECT_FALSE(d.decode(bytes, "bad.jpg", 1, im).ok()) << what;
    EXPECT_FALSE(d.read_info(bytes, "bad.jpg").has_value()) << what;
    for (int again = 0; again < 3; ++again) {
      auto info = d.read_info(good, "good.jpg");
      ASSERT_TRUE(info.has_value()) << "after " << what << ": " << info.error().to_string();
      const Status s = d.decode(good, "good.jpg", 1, im);
      ASSERT_TRUE(s.ok()) << "after " << what << ": " << s.to_string();
      EXPECT_EQ(im.width(), 64);
      Image window;
      auto w = d.decode_window(good, "good.jpg", 8, 16, 16, 40, 40, window);
      ASSERT_TRUE(w.has_value()) << "after " << what << ": " << w.error().to_string();
    }
  }
}

}  // namespace
}  // namespace textfeed::loader
