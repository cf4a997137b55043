// Image views (non-owning) and Image (owning, reusable buffer). Pixels are interleaved (HWC)
// unless a view says otherwise; rows may be padded (stride_bytes >= width * channels * elem).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/tensor.h"

namespace textfeed {

// Read-only view of pixels owned elsewhere; valid while the owner lives. A value type.
struct ImageView {
  const uint8_t* data = nullptr;
  int height = 0;
  int width = 0;
  int channels = 0;
  ptrdiff_t stride_bytes = 0;  // bytes from one row to the next
  DType dtype = DType::kU8;

  bool empty() const { return data == nullptr || height == 0 || width == 0; }
  const uint8_t* row(int y) const { return data + y * stride_bytes; }
};

// Writable view of pixels owned elsewhere (a batch slot, a scratch buffer).
struct MutableImageView {
  uint8_t* data = nullptr;
  int height = 0;
  int width = 0;
  int channels = 0;
  ptrdiff_t stride_bytes = 0;
  DType dtype = DType::kU8;

  bool empty() const { return data == nullptr || height == 0 || width == 0; }
  uint8_t* row(int y) const { return data + y * stride_bytes; }
  operator ImageView() const {
    return {data, height, width, channels, stride_bytes, dtype};
  }  // NOLINT
};

// An owning, densely packed image whose buffer is kept across reset() calls, so a worker that
// reuses one Image allocates (and page-faults) only when an image is larger than any before.
// Not thread-safe; one owner.
class Image {
 public:
  Image() = default;
  Image(int height, int width, int channels, DType dtype = DType::kU8) {
    reset(height, width, channels, dtype);
  }

  // Reshapes; contents are unspecified afterwards. Grows the buffer only when needed.
  void reset(int height, int width, int channels, DType dtype = DType::kU8) {
    height_ = height;
    width_ = width;
    channels_ = channels;
    dtype_ = dtype;
    const size_t n = size_bytes();
    if (buf_.size() < n) buf_.resize(n);
  }

  int height() const { return height_; }
  int width() const { return width_; }
  int channels() const { return channels_; }
  DType dtype() const { return dtype_; }
  ptrdiff_t stride_bytes() const {
    return static_cast<ptrdiff_t>(width_) * channels_ * static_cast<ptrdiff_t>(dtype_size(dtype_));
  }
  size_t size_bytes() const { return static_cast<size_t>(height_) * stride_bytes(); }
  size_t capacity_bytes() const { return buf_.size(); }
  uint8_t* data() { return buf_.data(); }
  const uint8_t* data() const { return buf_.data(); }

  ImageView view() const {
    return {buf_.data(), height_, width_, channels_, stride_bytes(), dtype_};
  }
  MutableImageView mutable_view() {
    return {buf_.data(), height_, width_, channels_, stride_bytes(), dtype_};
  }

 private:
  std::vector<uint8_t> buf_;
  int height_ = 0;
  int width_ = 0;
  int channels_ = 0;
  DType dtype_ = DType::kU8;
};

}  // namespace textfeed
