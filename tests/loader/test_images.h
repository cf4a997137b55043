// Test inputs made in the test itself: encoded images of every format the Decoder reads, JPEGs
// with a damaged frame header, and small datasets (ICDAR-2015 folders, UFO json) on disk.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

namespace textfeed::loader::testing {

// A w x h BGR image of noise (seeded) encoded as `ext` (".jpg", ".png", ".bmp", ".tif", ".webp",
// ".ppm", ".pgm", ".pam"); empty when OpenCV cannot encode it.
inline std::vector<uint8_t> encoded_image(const std::string& ext, int w, int h, int seed = 1) {
  cv::Mat bgr(h, w, CV_8UC3);
  cv::theRNG().state = static_cast<uint64_t>(seed) + 1;
  cv::randu(bgr, 0, 255);
  if (ext == ".pgm") cv::cvtColor(bgr, bgr, cv::COLOR_BGR2GRAY);
  std::vector<uint8_t> out;
  std::vector<int> params;
  if (ext == ".webp") params = {cv::IMWRITE_WEBP_QUALITY, 101};  // lossless
  try {
    if (!cv::imencode(ext, bgr, out, params)) out.clear();
  } catch (const cv::Exception&) {
    out.clear();
  }
  return out;
}

// `jpeg` with its first SOFn frame header's height and width replaced (0 or > 65500 make the
// header unreadable for libjpeg); empty when it has no frame header.
inline std::vector<uint8_t> with_frame_size(std::vector<uint8_t> jpeg, int height, int width) {
  for (size_t i = 2; i + 9 < jpeg.size(); ++i)
    if (jpeg[i] == 0xFF && (jpeg[i + 1] == 0xC0 || jpeg[i + 1] == 0xC1 || jpeg[i + 1] == 0xC2)) {
      jpeg[i + 5] = static_cast<uint8_t>(height >> 8), jpeg[i + 6] = static_cast<uint8_t>(height);
      jpeg[i + 7] = static_cast<uint8_t>(width >> 8), jpeg[i + 8] = static_cast<uint8_t>(width);
      return jpeg;
    }
  return {};
}

// `jpeg` with garbage over its first SOFn segment's body.
inline std::vector<uint8_t> with_garbage_frame(std::vector<uint8_t> jpeg) {
  for (size_t i = 2; i + 12 < jpeg.size(); ++i)
    if (jpeg[i] == 0xFF && (jpeg[i + 1] == 0xC0 || jpeg[i + 1] == 0xC2)) {
      for (size_t k = i + 4; k < i + 12; ++k) jpeg[k] = static_cast<uint8_t>(0x5A ^ k);
      return jpeg;
    }
  return {};
}

inline void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A fresh folder under the temp dir named after the running test; removed by the destructor.
class ScratchDir {
 public:
  ScratchDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("textfeed_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// One word per image, in the ICDAR-2015 line format.
inline std::string icdar_line(int w, int h) {
  const int x1 = w / 4, y1 = h / 4, x2 = 3 * w / 4, y2 = 3 * h / 4;
  return std::to_string(x1) + "," + std::to_string(y1) + "," + std::to_string(x2) + "," +
         std::to_string(y1) + "," + std::to_string(x2) + "," + std::to_string(y2) + "," +
         std::to_string(x1) + "," + std::to_string(y2) + ",word\n";
}

// A UFO json naming `images` (relative to root/images), each with one word.
inline std::string ufo_json(const std::vector<std::string>& images) {
  std::string j = "{\"images\": {";
  for (size_t i = 0; i < images.size(); ++i) {
    if (i) j += ", ";
    j += "\"" + images[i] +
         "\": {\"img_w\": 64, \"img_h\": 48, \"words\": {\"1\": {\"points\": [[8, 8], [40, 8], "
         "[40, 30], [8, 30]], "
         "\"transcription\": \"w\", \"illegibility\": false}}}";
  }
  return j + "}}";
}

}  // namespace textfeed::loader::testing
