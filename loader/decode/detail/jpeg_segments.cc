// JpegSegmentWalker: B.1.1's marker syntax, checked against the file's size at every step.
#include "loader/decode/detail/jpeg_segments.h"

#include <cstdio>
#include <string>

namespace textfeed::loader::internal {
namespace {

// The bytes of a marker (0xFF and its code) and of a length field.
constexpr size_t kMarkerBytes = 2;
constexpr size_t kLengthBytes = 2;

std::string hex(uint8_t byte) {
  char s[8];
  std::snprintf(s, sizeof s, "0x%02X", byte);
  return s;
}

std::string hex_marker(uint8_t marker) { return "0xFF" + hex(marker).substr(2); }

}  // namespace

Status JpegSegmentWalker::error_at(size_t offset, const std::string& what) const {
  return Status::corrupt(std::string(name_) + ": JPEG headers, byte " + std::to_string(offset) +
                         ": " + what);
}

Result<JpegSegment> JpegSegmentWalker::next() {
  const std::span<const uint8_t> b = jpeg_;
  const size_t n = b.size();
  if (ended_)
    return Status::invalid_argument(std::string(name_) +
                                    ": JPEG segment walk read past its SOS or EOI");
  if (pos_ == 0) {
    if (n < kMarkerBytes || b[0] != kJpegFill || b[1] != kJpegSoi)
      return error_at(0, "no SOI marker (0xFFD8): not a JPEG");
    pos_ = kMarkerBytes;
  }
  size_t at = pos_;
  if (at >= n) return error_at(at, "the file ends before SOS or EOI");
  if (b[at] != kJpegFill)
    return error_at(at, "a marker should start here, found the byte " + hex(b[at]));
  while (at + 1 < n && b[at + 1] == kJpegFill) ++at;  // fill bytes
  if (at + 1 >= n) return error_at(at, "the file ends inside a marker");
  JpegSegment seg;
  seg.marker = b[at + 1];
  seg.offset = at;
  seg.end = at + kMarkerBytes;
  if (seg.marker == kJpegStuffed)
    return error_at(at, "0xFF00 (a stuffed data byte) where a marker should be");
  if (jpeg_marker_has_length(seg.marker)) {
    if (seg.end + kLengthBytes > n)
      return error_at(at, "the file ends inside the length of " + hex_marker(seg.marker));
    const size_t len = (size_t{b[seg.end]} << 8) | b[seg.end + 1];
    if (len < kLengthBytes)
      return error_at(at, hex_marker(seg.marker) + " has the length " + std::to_string(len) +
                              ", under the 2 bytes of the length itself");
    if (len > n - seg.end)
      return error_at(at, hex_marker(seg.marker) + " of " + std::to_string(len) +
                              " bytes runs past the end of the file (" + std::to_string(n) +
                              " bytes)");
    seg.payload = b.subspan(seg.end + kLengthBytes, len - kLengthBytes);
    seg.end += len;
  }
  pos_ = seg.end;
  ended_ = seg.marker == kJpegSos || seg.marker == kJpegEoi;
  return seg;
}

}  // namespace textfeed::loader::internal
