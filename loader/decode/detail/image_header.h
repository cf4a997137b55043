// Image sizes from the header alone, for every format the Decoder hands to OpenCV, so the pixel
// limit is checked before a decoder allocates anything (OpenCV has no public header-only reader).
// Each signature here is the one OpenCV 4's imdecode selects its decoder by, and each size is read
// as that decoder reads it; the Decoder still compares the decoded size with the header's.
// Formats OpenCV may decode but whose size this cannot read first (Radiance HDR, PFM, DICOM,
// JPEG 2000, OpenEXR, GIF, ...) are refused: a decoder is never run on a size unchecked. So is Sun
// raster, which OpenCV decodes only through a temporary file.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/status.h"

namespace textfeed::loader::internal {

enum class HeaderFormat : unsigned char { kPng, kBmp, kTiff, kWebp, kPnm, kPam };

struct ImageHeader {
  HeaderFormat format = HeaderFormat::kPng;
  int width = 0;
  int height = 0;
  int channels = 3;  // in the file, where the header says (1: grey); decode always gives RGB
};

// "PNG", "BMP", ...
std::string_view header_format_name(HeaderFormat format);

// The format and size of a non-JPEG image. Pure function, thread-safe.
// Errors (naming `name`): kCorrupt (a known signature with a damaged or truncated header, or a
// size of 0 or past 2^31 - 1), kUnimplemented (a format textfeed does not read, named where
// recognized: "a Radiance HDR image; textfeed reads JPEG, PNG, ...").
Result<ImageHeader> read_image_header(std::span<const uint8_t> bytes, std::string_view name);

}  // namespace textfeed::loader::internal
