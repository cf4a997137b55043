// OpenCV headers over our image views, for the .cc files of augment that call OpenCV (it links
// PRIVATE: no public header of augment names cv::Mat). The Mat shares the view's pixels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <opencv2/core.hpp>

#include "base/image.h"

namespace textfeed::augment::internal {

// A uint8 Mat over `v` (read only: OpenCV's header has no const flavour).
inline cv::Mat mat_of(const ImageView& v) {
  return cv::Mat(v.height, v.width, CV_8UC(v.channels),
                 const_cast<uint8_t*>(v.data),  // NOLINT: read only
                 static_cast<size_t>(v.stride_bytes));
}

inline cv::Mat mat_of(Image& image) {
  return cv::Mat(image.height(), image.width(), CV_8UC(image.channels()), image.data(),
                 static_cast<size_t>(image.stride_bytes()));
}

}  // namespace textfeed::augment::internal
