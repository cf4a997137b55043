// Image decode: JPEG through TurboJPEG (with DCT-domain downscaling), PNG, BMP, TIFF, WebP and
// PNM/PAM through OpenCV (each from memory: none through a temporary file). For every format the
// header is read and the pixel limit checked before anything is allocated; formats whose size
// cannot be read first are refused.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/image.h"
#include "base/status.h"
#include "loader/spec/spec.h"

namespace textfeed::loader {

enum class ImageCodec : unsigned char { kJpeg, kPng, kOther };

struct ImageInfo {
  int width = 0;
  int height = 0;
  int channels = 0;  // in the file (1 gray, 3 colour, 4 CMYK); decode always gives RGB
  ImageCodec codec = ImageCodec::kOther;
};

// Owns a TurboJPEG handle and scratch buffers. A resource type: move-only; not thread-safe, so
// each worker thread owns one.
class Decoder {
 public:
  explicit Decoder(const DecodeOptions& options = {});
  ~Decoder();
  Decoder(Decoder&&) noexcept;
  Decoder& operator=(Decoder&&) noexcept;
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;

  // Reads the size from the header only. `name` is used in messages (the file path).
  // Errors: kCorrupt (unknown format, or a damaged header or one giving a 0 size),
  // kUnimplemented (a format OpenCV knows but textfeed does not read: HDR, PFM, DICOM, JPEG 2000,
  // OpenEXR, GIF, BigTIFF, Sun raster), kInvalidArgument (over max_pixels). After a failure the
  // Decoder is as good as new (a damaged JPEG never spoils the next one).
  Result<ImageInfo> read_info(std::span<const uint8_t> bytes, std::string_view name);

  // Decodes to RGB uint8 at 1/scale_denom of full size (scale_denom in {1, 2, 4, 8}); JPEG uses
  // DCT scaling (size = ceil(full / denom)), other formats are decoded then area-resized to the
  // same size. `out` is reshaped, reusing its buffer. Errors: kCorrupt (truncated or damaged
  // data, naming `name`), kInvalidArgument (bad scale_denom, over max_pixels).
  Status decode(std::span<const uint8_t> bytes, std::string_view name, int scale_denom, Image& out);

  // Decodes at eighths/8 of full size, eighths in 1..8 (TurboJPEG scales JPEGs by any n/8 in the
  // DCT domain; size = ceil(full * eighths / 8)). Same errors as decode().
  Status decode_eighths(std::span<const uint8_t> bytes, std::string_view name, int eighths,
                        Image& out);

  // Decodes the window [x0, x1) x [y0, y1) (pixels of the image scaled by eighths/8) of a JPEG,
  // or, for other formats and CMYK JPEGs, the whole image (then the window is {0, 0}). Returns
  // where `out` starts in the scaled image (at or left of x0: the decoder's block alignment).
  // Pixels further than 8 px inside the window equal a whole decode's. Errors as decode().
  struct Window {
    int x0 = 0, y0 = 0;
  };
  Result<Window> decode_window(std::span<const uint8_t> bytes, std::string_view name, int eighths,
                               int x0, int y0, int x1, int y1, Image& out);

  const DecodeOptions& options() const;

  // Size a decode at eighths/8 produces.
  static void eighths_size(const ImageInfo& info, int eighths, int* width, int* height);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The DCT scale (in eighths) to decode at when the image will be shown at `scale` of its full
// size (the largest output step per source pixel): the smallest of the SIMD-accelerated scales
// 1/8, 2/8, 4/8, 8/8 (the others cost more than a full decode in libjpeg-turbo 2.1) after which
// the remaining enlargement is at most kMaxDctUpscale.
inline constexpr double kMaxDctUpscale = 1.05;
int fast_dct_eighths(double scale);
// The same for a warp whose two source axes have different scales (the column norms of its
// matrix): the smaller decides, as above, and the larger may be enlarged by up to kMaxDctStretch.
// The references resize first and stretch the height (by up to 1.2) after: the stretched axis
// never holds more detail than the resize kept, so decoding it at the resize's scale loses nothing
// they have, and it keeps a height stretch from doubling the decode.
inline constexpr double kMaxDctStretch = 1.3;
int fast_dct_eighths(double min_scale, double max_scale);

// The largest image file read_file takes: far above any image within DecodeOptions::max_pixels
// (1e8 pixels of uncompressed 16-bit RGB are 600 MB), far below what a worker should buffer.
inline constexpr uint64_t kMaxImageFileBytes = uint64_t{1} << 30;

// Reads a whole image file into `out` (resized, buffer reused). Only a regular file is an image:
// a folder, FIFO, socket or device is refused without blocking (base/file.h).
// Errors: kNotFound, kInvalidArgument (not a regular file, over max_bytes), kIo.
Status read_file(const std::string& path, std::vector<uint8_t>& out,
                 uint64_t max_bytes = kMaxImageFileBytes);

}  // namespace textfeed::loader
