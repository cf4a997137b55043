// Test samples and a fixture that builds a small cache in a scratch folder; shared by the cache
// test files.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cache/cache.h"

namespace textfeed::cache::testing {

// One sample with odd sizes (pixels are not a whole number of words) and 0-3 quads.
struct TestSample {
  std::string name;
  int w = 0, h = 0;
  PixelCodec codec = PixelCodec::kRaw;
  std::vector<uint8_t> pixels;
  std::vector<Quad> quads;
  std::vector<unsigned char> labels;
  std::vector<std::string> texts;

  SampleData data() const {
    return {name, w * 2, h * 2, w, h, codec, pixels, quads, labels, texts};
  }
};

inline TestSample make_sample(int i, PixelCodec codec = PixelCodec::kRaw) {
  TestSample s;
  s.name = "images/img_" + std::to_string(i) + ".jpg";
  s.w = 13 + i;
  s.h = 7 + 2 * i;
  s.codec = codec;
  // kJpeg: the cache reads only the frame header (for the size); the rest is opaque, and any odd
  // length will do.
  const size_t n = codec == PixelCodec::kRaw ? static_cast<size_t>(s.w) * s.h * 3 : 101 + 37 * i;
  s.pixels.resize(n);
  for (size_t k = 0; k < n; ++k) s.pixels[k] = static_cast<uint8_t>(k * 31 + i);
  if (codec == PixelCodec::kJpeg) {
    const uint8_t frame[] = {0xFF,
                             0xD8,
                             0xFF,
                             0xC0,
                             0,
                             17,
                             8,
                             static_cast<uint8_t>(s.h >> 8),
                             static_cast<uint8_t>(s.h),
                             static_cast<uint8_t>(s.w >> 8),
                             static_cast<uint8_t>(s.w),
                             3};
    std::copy(std::begin(frame), std::end(frame), s.pixels.begin());
  }
  for (int q = 0; q < i % 4; ++q) {
    Quad quad;
    for (int k = 0; k < 8; ++k) quad.xy[k] = 0.5f * k + q + i + 0.1f;
    s.quads.push_back(quad);
    s.labels.push_back(q % 2 ? kLabelIgnored : kLabelValid);
    s.texts.push_back(q == 1 ? "###" : "w\xc3\xb6rd, " + std::to_string(q));
  }
  return s;
}

class CacheFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("textfeed_cache_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "a.tfc").string();
    for (int i = 0; i < 6; ++i) samples_.push_back(make_sample(i));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static CacheMeta test_meta() {
    CacheMeta meta;
    meta.profile = "upstage";
    meta.image_size = 2048;
    meta.build_unix_seconds = 1700000000;
    meta.quarantine.push_back({"images/bad.jpg", "truncated JPEG"});
    return meta;
  }

  void build(const std::string& path) {
    auto w = CacheWriter::create(path, false);
    ASSERT_TRUE(w.has_value()) << w.error().to_string();
    for (const TestSample& s : samples_) {
      Status st = (*w)->add(s.data());
      ASSERT_TRUE(st.ok()) << st.to_string();
    }
    EXPECT_FALSE(std::filesystem::exists(path));  // nothing at the final path before finish()
    Status st = (*w)->finish(test_meta());
    ASSERT_TRUE(st.ok()) << st.to_string();
  }
  void build() { build(path_); }

  std::vector<char> bytes() const {
    std::ifstream in(path_, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  // Replaces the file with `b`. Unlinks first: truncating a file and writing it again makes ext4
  // flush it on close (auto_da_alloc), which costs milliseconds per rewrite.
  void rewrite(const std::vector<char>& b) const {
    std::filesystem::remove(path_);
    std::ofstream(path_, std::ios::binary).write(b.data(), static_cast<std::streamsize>(b.size()));
  }

  // Opens and reads every sample; returns the first error.
  Status open_and_read_all() const {
    auto r = CacheReader::open(path_);
    if (!r.has_value()) return r.error();
    for (size_t i = 0; i < (*r)->size(); ++i) {
      auto s = (*r)->sample(i);
      if (!s.has_value()) return s.error();
    }
    return Status();
  }

  // Whether view `v` holds exactly sample `s`.
  static bool same(const SampleView& v, const TestSample& s) {
    if (v.name != s.name || v.width != s.w || v.height != s.h || v.orig_width != 2 * s.w ||
        v.orig_height != 2 * s.h || v.codec != s.codec || v.pixels.size() != s.pixels.size() ||
        std::memcmp(v.pixels.data(), s.pixels.data(), s.pixels.size()) != 0 ||
        v.quads.size() != s.quads.size() ||
        !std::equal(v.labels.begin(), v.labels.end(), s.labels.begin(), s.labels.end()))
      return false;
    for (size_t q = 0; q < s.quads.size(); ++q)
      if (v.quads[q].xy != s.quads[q].xy) return false;
    const std::vector<std::string_view> texts = v.texts();
    return std::equal(texts.begin(), texts.end(), s.texts.begin(), s.texts.end());
  }

  std::filesystem::path dir_;
  std::string path_;
  std::vector<TestSample> samples_;
};

}  // namespace textfeed::cache::testing
