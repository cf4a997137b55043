// Decoder: TurboJPEG for JPEG (DCT scaling, CMYK conversion), OpenCV for the rest; sizes are read
// from the header (detail/image_header.h for the non-JPEG formats) and checked against max_pixels
// before anything is allocated.
#include "loader/decode/decode.h"

#include <turbojpeg.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

#include "base/file.h"
#include "loader/decode/detail/image_header.h"
#include "loader/decode/detail/jpeg_region.h"
#include "loader/decode/detail/jpeg_segments.h"

namespace textfeed::loader {

struct Decoder::Impl {
  DecodeOptions options;
  tjhandle tj = nullptr;
  std::vector<uint8_t> cmyk;  // CMYK samples before conversion, reused
  cv::Mat scratch;            // area-resized BGR before conversion, reused

  ~Impl() { drop_handle(); }
  void drop_handle() {
    if (tj) tjDestroy(tj);
    tj = nullptr;
  }
  Status ensure_handle(std::string_view name);
  Status jpeg_failure(std::string_view name, const char* stage);
  Result<ImageInfo> jpeg_info(std::span<const uint8_t> bytes, std::string_view name);
  Status decode_jpeg(std::span<const uint8_t> bytes, std::string_view name, const ImageInfo& info,
                     int eighths, Image& out);
  Status decode_other(std::span<const uint8_t> bytes, std::string_view name, const ImageInfo& info,
                      int eighths, Image& out);
};

namespace {

bool is_jpeg(std::span<const uint8_t> b) {
  return b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF;
}

std::string msg(std::string_view name, const std::string& what) {
  return std::string(name) + ": " + what;
}

// TurboJPEG's last error on `tj`, marked as a warning (with TJFLAG_STOPONWARNING: truncated or
// damaged entropy data) or a fatal error (a broken marker or header).
Status jpeg_error(tjhandle tj, std::string_view name, const char* stage) {
  const char* kind = tjGetErrorCode(tj) == TJERR_WARNING ? "warning" : "error";
  return Status::corrupt(msg(name, std::string(stage) + " (" + kind + "): " + tjGetErrorStr2(tj)));
}

// Whether libjpeg-turbo offers the DCT scale eighths/8 (2.1 offers every n/8, n in 1..16; older
// or differently built libraries may not). Asked once: the answer is a property of the library.
bool dct_scale_supported(int eighths) {
  static const std::array<bool, 9> supported = [] {
    std::array<bool, 9> s{};
    int n = 0;
    const tjscalingfactor* f = tjGetScalingFactors(&n);
    for (int i = 0; f && i < n; ++i)
      for (int e = 1; e <= 8; ++e)
        if (f[i].num * 8 == e * f[i].denom) s[e] = true;
    return s;
  }();
  return eighths >= 1 && eighths <= 8 && supported[eighths];
}

// Whether the JPEG has an APP14 "Adobe" segment before its first scan: that is what tells
// libjpeg, and us, that 4-channel samples are stored inverted (Adobe's convention). Called after
// a successful decode: libjpeg has read these headers already, and headers that the walk refuses
// (a segment cut short, bytes between segments) fail that decode, so a refusal is only a "no".
bool has_adobe_marker(std::span<const uint8_t> b, std::string_view name) {
  static constexpr std::string_view kAdobe = "Adobe";
  internal::JpegSegmentWalker walk(b, name);
  for (;;) {
    const Result<internal::JpegSegment> seg = walk.next();
    if (!seg.has_value() || seg->marker == internal::kJpegSos || seg->marker == internal::kJpegEoi)
      return false;
    if (seg->marker == internal::kJpegApp14 && seg->payload.size() >= kAdobe.size() &&
        std::memcmp(seg->payload.data(), kAdobe.data(), kAdobe.size()) == 0)
      return true;
  }
}

Status check_limits(const ImageInfo& info, std::string_view name, int64_t max_pixels) {
  if (info.width <= 0 || info.height <= 0)
    return Status::corrupt(msg(name, "image header gives an empty size"));
  const int64_t px = static_cast<int64_t>(info.width) * info.height;
  if (px > max_pixels)
    return Status::invalid_argument(
        msg(name, "image of " + std::to_string(info.width) + "x" + std::to_string(info.height) +
                      " exceeds the limit of " + std::to_string(max_pixels) + " pixels"));
  return Status();
}

}  // namespace

Decoder::Decoder(const DecodeOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
}
Decoder::~Decoder() = default;
Decoder::Decoder(Decoder&&) noexcept = default;
Decoder& Decoder::operator=(Decoder&&) noexcept = default;

const DecodeOptions& Decoder::options() const { return impl_->options; }

Status Decoder::Impl::ensure_handle(std::string_view name) {
  if (!tj) tj = tjInitDecompress();
  if (!tj)
    return Status::internal(
        msg(name, std::string("tjInitDecompress failed: ") + tjGetErrorStr2(nullptr)));
  return Status();
}

// A failed header read leaves TurboJPEG's decompressor mid-header (libjpeg-turbo 2.1 does not
// abort it), and the next image on the handle then fails with "two SOI markers": one bad file
// would poison every later JPEG of this thread. A fresh handle after every failure costs
// nothing on the good path.
Status Decoder::Impl::jpeg_failure(std::string_view name, const char* stage) {
  Status s = jpeg_error(tj, name, stage);
  drop_handle();
  return s;
}

Result<ImageInfo> Decoder::Impl::jpeg_info(std::span<const uint8_t> bytes, std::string_view name) {
  TF_RETURN_IF_ERROR(ensure_handle(name));
  int w = 0, h = 0, subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(tj, bytes.data(), bytes.size(), &w, &h, &subsamp, &colorspace) != 0)
    return jpeg_failure(name, "bad JPEG header");
  const int channels = colorspace == TJCS_GRAY                                ? 1
                       : (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK) ? 4
                                                                              : 3;
  return ImageInfo{w, h, channels, ImageCodec::kJpeg};
}

Result<ImageInfo> Decoder::read_info(std::span<const uint8_t> bytes, std::string_view name) {
  if (!impl_) return Status::internal(msg(name, "use of a moved-from Decoder"));
  if (bytes.empty()) return Status::corrupt(msg(name, "empty file"));
  ImageInfo info;
  if (is_jpeg(bytes)) {
    TF_ASSIGN_OR_RETURN(info, impl_->jpeg_info(bytes, name));
  } else {
    // Every other format OpenCV decodes for us: its size from the header too (or refused), so
    // max_pixels is checked before any decoder allocates.
    TF_ASSIGN_OR_RETURN(const internal::ImageHeader h, internal::read_image_header(bytes, name));
    info = {h.width, h.height, h.channels,
            h.format == internal::HeaderFormat::kPng ? ImageCodec::kPng : ImageCodec::kOther};
  }
  TF_RETURN_IF_ERROR(check_limits(info, name, impl_->options.max_pixels));
  return info;
}

void Decoder::eighths_size(const ImageInfo& info, int e, int* width, int* height) {
  *width = static_cast<int>((int64_t{info.width} * e + 7) / 8);
  *height = static_cast<int>((int64_t{info.height} * e + 7) / 8);
}

Status Decoder::decode(std::span<const uint8_t> bytes, std::string_view name, int d, Image& out) {
  if (d != 1 && d != 2 && d != 4 && d != 8)
    return Status::invalid_argument(
        msg(name, "scale_denom must be 1, 2, 4 or 8, got " + std::to_string(d)));
  return decode_eighths(bytes, name, 8 / d, out);
}

Status Decoder::decode_eighths(std::span<const uint8_t> bytes, std::string_view name, int e,
                               Image& out) {
  if (e < 1 || e > 8)
    return Status::invalid_argument(msg(name, "eighths must be in 1..8, got " + std::to_string(e)));
  TF_ASSIGN_OR_RETURN(ImageInfo info, read_info(bytes, name));
  if (info.codec == ImageCodec::kJpeg) return impl_->decode_jpeg(bytes, name, info, e, out);
  return impl_->decode_other(bytes, name, info, e, out);
}

Result<Decoder::Window> Decoder::decode_window(std::span<const uint8_t> bytes,
                                               std::string_view name, int e, int x0, int y0, int x1,
                                               int y1, Image& out) {
  if (e < 1 || e > 8)
    return Status::invalid_argument(msg(name, "eighths must be in 1..8, got " + std::to_string(e)));
  TF_ASSIGN_OR_RETURN(ImageInfo info, read_info(bytes, name));
  int w = 0, h = 0;
  eighths_size(info, e, &w, &h);
  if (info.codec != ImageCodec::kJpeg || info.channels == 4 ||
      (x0 <= 0 && y0 <= 0 && x1 >= w && y1 >= h)) {
    TF_RETURN_IF_ERROR(info.codec == ImageCodec::kJpeg
                           ? impl_->decode_jpeg(bytes, name, info, e, out)
                           : impl_->decode_other(bytes, name, info, e, out));
    return Window{};
  }
  x0 = std::clamp(x0, 0, w - 1), y0 = std::clamp(y0, 0, h - 1);
  x1 = std::clamp(x1, x0 + 1, w), y1 = std::clamp(y1, y0 + 1, h);
  TF_ASSIGN_OR_RETURN(internal::JpegWindow win,
                      internal::decode_jpeg_window(bytes, name, e, x0, y0, x1, y1, out,
                                                   impl_->options.restart_cuts));
  return Window{win.x0, win.y0};
}

Status Decoder::Impl::decode_jpeg(std::span<const uint8_t> bytes, std::string_view name,
                                  const ImageInfo& info, int e, Image& out) {
  if (!dct_scale_supported(e))
    return Status::unimplemented(
        msg(name, "this libjpeg-turbo cannot scale by " + std::to_string(e) + "/8"));
  int w, h;
  eighths_size(info, e, &w, &h);
  // STOPONWARNING: libjpeg treats truncated or damaged entropy data as a warning and pads the
  // image with grey; for training data that is a corrupt sample, not a picture.
  const int flags = TJFLAG_STOPONWARNING;
  TF_RETURN_IF_ERROR(ensure_handle(name));
  if (info.channels != 4) {
    out.reset(h, w, 3);
    if (tjDecompress2(tj, bytes.data(), bytes.size(), out.data(), w, 0, h, TJPF_RGB, flags) != 0)
      return jpeg_failure(name, "JPEG decode failed");
    return Status();
  }
  // TurboJPEG cannot convert CMYK or YCCK to RGB: take the CMYK samples and convert here.
  cmyk.resize(static_cast<size_t>(w) * h * 4);
  if (tjDecompress2(tj, bytes.data(), bytes.size(), cmyk.data(), w, 0, h, TJPF_CMYK, flags) != 0)
    return jpeg_failure(name, "JPEG decode failed");
  out.reset(h, w, 3);
  const uint8_t* s = cmyk.data();
  uint8_t* o = out.data();
  const size_t n = static_cast<size_t>(w) * h;
  if (has_adobe_marker(bytes, name)) {
    // Adobe (Photoshop and libjpeg's own writer) stores inverted CMYK, 0 = full ink, and libjpeg
    // hands the samples back as stored: R = C * K / 255.
    for (size_t i = 0; i < n; ++i, s += 4, o += 3) {
      o[0] = static_cast<uint8_t>((s[0] * s[3] + 127) / 255);
      o[1] = static_cast<uint8_t>((s[1] * s[3] + 127) / 255);
      o[2] = static_cast<uint8_t>((s[2] * s[3] + 127) / 255);
    }
  } else {
    // Without the Adobe marker the samples are plain ink amounts, 0 = no ink.
    for (size_t i = 0; i < n; ++i, s += 4, o += 3) {
      const int k = 255 - s[3];
      o[0] = static_cast<uint8_t>(((255 - s[0]) * k + 127) / 255);
      o[1] = static_cast<uint8_t>(((255 - s[1]) * k + 127) / 255);
      o[2] = static_cast<uint8_t>(((255 - s[2]) * k + 127) / 255);
    }
  }
  return Status();
}

Status Decoder::Impl::decode_other(std::span<const uint8_t> bytes, std::string_view name,
                                   const ImageInfo& info, int e, Image& out) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return Status::invalid_argument(msg(name, "file over 2 GiB"));
  // cv::imdecode reports most damage by returning an empty Mat, but some codecs throw. EXIF
  // orientation is ignored, as for JPEGs (TurboJPEG) and PIL in the reference: the annotations
  // are in the stored pixels' frame.
  cv::Mat bgr;
  try {
    bgr = cv::imdecode(
        cv::Mat(1, static_cast<int>(bytes.size()), CV_8UC1, const_cast<uint8_t*>(bytes.data())),
        cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
  } catch (const cv::Exception& ex) {
    return Status::corrupt(msg(name, std::string("decode failed: ") + ex.what()));
  }
  if (bgr.empty()) return Status::corrupt(msg(name, "not a decodable image (damaged data)"));
  if (bgr.cols != info.width || bgr.rows != info.height || bgr.type() != CV_8UC3)
    return Status::corrupt(msg(name, "decoded to " + std::to_string(bgr.cols) + "x" +
                                         std::to_string(bgr.rows) + " but its header says " +
                                         std::to_string(info.width) + "x" +
                                         std::to_string(info.height)));
  int w, h;
  eighths_size(info, e, &w, &h);
  out.reset(h, w, 3);
  cv::Mat dst(h, w, CV_8UC3, out.data());
  try {
    if (e == 8) {
      cv::cvtColor(bgr, dst, cv::COLOR_BGR2RGB);
    } else {
      cv::resize(bgr, scratch, dst.size(), 0, 0, cv::INTER_AREA);
      cv::cvtColor(scratch, dst, cv::COLOR_BGR2RGB);
    }
  } catch (const cv::Exception& ex) {
    return Status::internal(msg(name, std::string("colour conversion failed: ") + ex.what()));
  }
  return Status();
}

int fast_dct_eighths(double scale) { return fast_dct_eighths(scale, scale); }

int fast_dct_eighths(double min_scale, double max_scale) {
  for (int e : {1, 2, 4})
    if (min_scale * 8 / e <= kMaxDctUpscale && max_scale * 8 / e <= kMaxDctStretch) return e;
  return 8;
}

Status read_file(const std::string& path, std::vector<uint8_t>& out, uint64_t max_bytes) {
  return read_regular_file(path, out, max_bytes);
}

}  // namespace textfeed::loader
