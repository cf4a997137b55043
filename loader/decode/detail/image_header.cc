// Header-only size readers (see image_header.h). Every read is bounds-checked against the buffer:
// the bytes are hostile.
#include "loader/decode/detail/image_header.h"

#include <cstring>
#include <limits>
#include <string>

namespace textfeed::loader::internal {
namespace {

using Bytes = std::span<const uint8_t>;

constexpr std::string_view kSupported =
    "textfeed reads JPEG, PNG, BMP, TIFF, WebP and PNM/PAM images";

bool starts_with(Bytes b, size_t at, std::string_view sig) {
  return b.size() >= at + sig.size() && std::memcmp(b.data() + at, sig.data(), sig.size()) == 0;
}
uint32_t le16(Bytes b, size_t at) { return b[at] | (uint32_t{b[at + 1]} << 8); }
uint32_t le24(Bytes b, size_t at) { return le16(b, at) | (uint32_t{b[at + 2]} << 16); }
uint32_t le32(Bytes b, size_t at) { return le24(b, at) | (uint32_t{b[at + 3]} << 24); }
uint32_t be16(Bytes b, size_t at) { return (uint32_t{b[at]} << 8) | b[at + 1]; }
uint32_t be32(Bytes b, size_t at) { return (be16(b, at) << 16) | be16(b, at + 2); }

Status corrupt(std::string_view name, std::string_view format, const std::string& what) {
  return Status::corrupt(std::string(name) + ": " + std::string(format) + " " + what);
}

// A header's size as ints, refusing 0 and a side past 2^20, where OpenCV's imdecode throws (and
// some of its decoders would have written the bytes to a temporary file first).
Result<ImageHeader> sized(std::string_view name, HeaderFormat f, uint64_t w, uint64_t h,
                          int channels) {
  constexpr uint64_t kMax = uint64_t{1} << 20;
  const std::string size = std::to_string(w) + "x" + std::to_string(h);
  if (w == 0 || h == 0)
    return corrupt(name, header_format_name(f), "header gives an impossible size " + size);
  if (w > kMax || h > kMax)
    return Status::invalid_argument(std::string(name) + ": " + std::string(header_format_name(f)) +
                                    " of " + size +
                                    ": a side over 1048576 pixels, which OpenCV does not decode");
  return ImageHeader{f, static_cast<int>(w), static_cast<int>(h), channels};
}

Result<ImageHeader> png(Bytes b, std::string_view name) {
  // IHDR is the first chunk: length(4) "IHDR"(4) width(4) height(4) depth(1) colour type(1).
  if (b.size() < 33 || !starts_with(b, 12, "IHDR"))
    return corrupt(name, "PNG", "without an IHDR chunk");
  const uint8_t type = b[25];
  return sized(name, HeaderFormat::kPng, be32(b, 16), be32(b, 20), type == 0 || type == 4 ? 1 : 3);
}

Result<ImageHeader> bmp(Bytes b, std::string_view name) {
  // File header (14 bytes), then the DIB header, whose size says its kind: 12 = OS/2 core
  // (16-bit sizes), >= 36 = Windows (32-bit, a negative height is a top-down image).
  if (b.size() < 26) return corrupt(name, "BMP", "header is truncated");
  const uint32_t dib = le32(b, 14);
  if (dib == 12) return sized(name, HeaderFormat::kBmp, le16(b, 18), le16(b, 20), 3);
  if (dib < 36 || dib > 0x7fffffff)
    return corrupt(name, "BMP", "header of unknown kind (" + std::to_string(dib) + " bytes)");
  const auto w = static_cast<int32_t>(le32(b, 18)), h = static_cast<int32_t>(le32(b, 22));
  if (w <= 0 || h == 0 || h == std::numeric_limits<int32_t>::min())
    return corrupt(
        name, "BMP",
        "header gives an impossible size " + std::to_string(w) + "x" + std::to_string(h));
  return sized(name, HeaderFormat::kBmp, static_cast<uint64_t>(w),
               static_cast<uint64_t>(h < 0 ? -h : h), 3);
}

Result<ImageHeader> tiff(Bytes b, std::string_view name) {
  // Byte order, 42, offset of the first directory; a directory is a count and 12-byte entries
  // (tag, type, count, value-or-offset). OpenCV decodes the first directory's image.
  const bool le = b[0] == 'I';
  auto u16 = [&](size_t at) { return le ? le16(b, at) : be16(b, at); };
  auto u32 = [&](size_t at) { return le ? le32(b, at) : be32(b, at); };
  if (b.size() < 8) return corrupt(name, "TIFF", "header is truncated");
  const uint64_t ifd = u32(4);
  if (ifd < 8 || ifd + 2 > b.size())
    return corrupt(name, "TIFF", "directory offset is outside the file");
  const uint64_t entries = u16(ifd);
  if (ifd + 2 + entries * 12 > b.size()) return corrupt(name, "TIFF", "directory is truncated");
  uint64_t w = 0, h = 0;
  int channels = 3;
  for (uint64_t i = 0; i < entries; ++i) {
    const size_t e = static_cast<size_t>(ifd + 2 + i * 12);
    const uint32_t tag = u16(e), type = u16(e + 2);
    if (tag != 256 && tag != 257 && tag != 277) continue;
    if (type != 3 && type != 4)
      return corrupt(name, "TIFF",
                     "tag " + std::to_string(tag) + " has type " + std::to_string(type));
    const uint64_t v = type == 3 ? u16(e + 8) : u32(e + 8);
    uint64_t& field = tag == 256 ? w : h;  // the first of duplicate tags counts, as in libtiff
    if (tag == 277) {
      channels = v == 1 ? 1 : 3;
    } else if (field == 0) {
      field = v;
    }
  }
  if (w == 0 || h == 0) return corrupt(name, "TIFF", "directory has no image width or length");
  return sized(name, HeaderFormat::kTiff, w, h, channels);
}

Result<ImageHeader> webp(Bytes b, std::string_view name) {
  // RIFF(4) size(4) WEBP(4), then the first chunk: VP8 (lossy), VP8L (lossless) or VP8X
  // (extended, which gives the canvas size).
  if (b.size() < 30) return corrupt(name, "WebP", "header is truncated");
  if (starts_with(b, 12, "VP8 ")) {
    if (b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a)
      return corrupt(name, "WebP", "VP8 frame has no start code");
    return sized(name, HeaderFormat::kWebp, le16(b, 26) & 0x3fff, le16(b, 28) & 0x3fff, 3);
  }
  if (starts_with(b, 12, "VP8L")) {
    if (b[20] != 0x2f) return corrupt(name, "WebP", "VP8L stream has no signature");
    const uint32_t bits = le32(b, 21);
    return sized(name, HeaderFormat::kWebp, (bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1, 3);
  }
  if (starts_with(b, 12, "VP8X"))
    return sized(name, HeaderFormat::kWebp, le24(b, 24) + 1, le24(b, 27) + 1, 3);
  return corrupt(name, "WebP", "first chunk is not VP8, VP8L or VP8X");
}

bool is_space(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// A decimal number of a PNM header at *pos, after blanks and '#' comments; false when there is
// none or it has more than 10 digits.
bool pnm_number(Bytes b, size_t* pos, uint64_t* out) {
  size_t p = *pos;
  while (p < b.size() && (is_space(b[p]) || b[p] == '#')) {
    if (b[p] == '#')
      while (p < b.size() && b[p] != '\n' && b[p] != '\r') ++p;
    else
      ++p;
  }
  uint64_t v = 0;
  size_t digits = 0;
  for (; p < b.size() && b[p] >= '0' && b[p] <= '9'; ++p, ++digits) {
    if (digits == 10) return false;
    v = v * 10 + (b[p] - '0');
  }
  *pos = p;
  *out = v;
  return digits > 0;
}

Result<ImageHeader> pnm(Bytes b, std::string_view name) {
  size_t pos = 2;
  uint64_t w = 0, h = 0;
  if (!pnm_number(b, &pos, &w) || !pnm_number(b, &pos, &h))
    return corrupt(name, "PNM", "header has no width and height");
  const char kind = static_cast<char>(b[1]);
  return sized(name, HeaderFormat::kPnm, w, h,
               kind == '1' || kind == '2' || kind == '4' || kind == '5' ? 1 : 3);
}

Result<ImageHeader> pam(Bytes b, std::string_view name) {
  // "P7", then lines "TOKEN value" up to "ENDHDR"; only the first few KiB are searched.
  const std::string_view text(reinterpret_cast<const char*>(b.data()),
                              std::min<size_t>(b.size(), 4096));
  uint64_t w = 0, h = 0, depth = 3;
  size_t line = text.find('\n');
  while (line != std::string_view::npos) {
    const size_t start = line + 1, end = std::min(text.find('\n', start), text.size());
    const std::string_view l = text.substr(start, end - start);
    if (l.substr(0, 6) == "ENDHDR")
      return sized(name, HeaderFormat::kPam, w, h, depth == 1 || depth == 2 ? 1 : 3);
    for (auto [key, field] :
         {std::pair<std::string_view, uint64_t*>{"WIDTH", &w}, {"HEIGHT", &h}, {"DEPTH", &depth}}) {
      if (l.size() > key.size() && l.substr(0, key.size()) == key &&
          is_space(static_cast<uint8_t>(l[key.size()]))) {
        size_t p = 0;
        const Bytes value(b.data() + start + key.size(), l.size() - key.size());
        if (!pnm_number(value, &p, field))
          return corrupt(name, "PAM", std::string(key) + " is not a number");
      }
    }
    line = end < text.size() ? end : std::string_view::npos;
  }
  return corrupt(name, "PAM", "header has no ENDHDR line in its first 4 KiB");
}

// Formats OpenCV may decode that are refused here, by signature, for a message that names them.
std::string_view refused_format(Bytes b) {
  if (starts_with(b, 0, "#?RADIANCE") || starts_with(b, 0, "#?RGBE")) return "a Radiance HDR image";
  if (starts_with(b, 0, "PF") || starts_with(b, 0, "Pf")) return "a PFM image";
  if (starts_with(b, 128, "DICM")) return "a DICOM image";
  if (starts_with(b, 0, std::string_view("\0\0\0\x0cjP  ", 8)) ||
      starts_with(b, 0, "\xff\x4f\xff\x51"))
    return "a JPEG 2000 image";
  if (starts_with(b, 0, "\x76\x2f\x31\x01")) return "an OpenEXR image";
  if (starts_with(b, 0, "GIF8")) return "a GIF image";
  if (starts_with(b, 0, "II+") || starts_with(b, 0, std::string_view("MM\0+", 4)))
    return "a BigTIFF image";
  // OpenCV decodes Sun raster only from a file: it would write the bytes to its temp directory.
  if (starts_with(b, 0, "\x59\xa6\x6a\x95")) return "a Sun raster image";
  return {};
}

}  // namespace

std::string_view header_format_name(HeaderFormat f) {
  switch (f) {
    case HeaderFormat::kPng:
      return "PNG";
    case HeaderFormat::kBmp:
      return "BMP";
    case HeaderFormat::kTiff:
      return "TIFF";
    case HeaderFormat::kWebp:
      return "WebP";
    case HeaderFormat::kPnm:
      return "PNM";
    case HeaderFormat::kPam:
      return "PAM";
  }
  return "?";
}

Result<ImageHeader> read_image_header(Bytes b, std::string_view name) {
  if (starts_with(b, 0, "\x89PNG\r\n\x1a\n")) return png(b, name);
  if (starts_with(b, 0, "BM")) return bmp(b, name);
  if (starts_with(b, 0, std::string_view("II*\0", 4)) ||
      starts_with(b, 0, std::string_view("MM\0*", 4)))
    return tiff(b, name);
  if (starts_with(b, 0, "RIFF") && starts_with(b, 8, "WEBP")) return webp(b, name);
  if (b.size() >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '6' && is_space(b[2]))
    return pnm(b, name);
  if (b.size() >= 3 && b[0] == 'P' && b[1] == '7' && is_space(b[2])) return pam(b, name);
  if (const std::string_view what = refused_format(b); !what.empty())
    return Status::unimplemented(std::string(name) + ": " + std::string(what) + "; " +
                                 std::string(kSupported));
  return Status::corrupt(std::string(name) + ": not an image of a known format (" +
                         std::string(kSupported) + ")");
}

}  // namespace textfeed::loader::internal
