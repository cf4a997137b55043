// The marker segments of a JPEG's headers (ITU T.81 B.1.1), walked the way libjpeg's marker reader
// walks them. Every place that reads JPEG headers without libjpeg (the CMYK convention in
// decode.cc, the restart-window cut in jpeg_restart.cc) walks with this one reader, so they agree
// with each other and with the decoder on which bytes are a segment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"

namespace textfeed::loader::internal {

// Marker codes: the byte after 0xFF.
inline constexpr uint8_t kJpegTem = 0x01;    // arithmetic coding's temporary marker: no length
inline constexpr uint8_t kJpegSof0 = 0xC0;   // baseline frame
inline constexpr uint8_t kJpegSof1 = 0xC1;   // extended sequential frame, Huffman coded
inline constexpr uint8_t kJpegSof2 = 0xC2;   // progressive frame, Huffman coded
inline constexpr uint8_t kJpegDht = 0xC4;    // Huffman tables, inside the SOFn range
inline constexpr uint8_t kJpegJpg = 0xC8;    // reserved extension, inside the SOFn range
inline constexpr uint8_t kJpegDac = 0xCC;    // arithmetic conditioning, inside the SOFn range
inline constexpr uint8_t kJpegSof15 = 0xCF;  // the last frame marker
inline constexpr uint8_t kJpegRst0 = 0xD0;   // RST0..RST7: restart markers, no length
inline constexpr uint8_t kJpegRst7 = 0xD7;
inline constexpr uint8_t kJpegSoi = 0xD8;  // start of image: no length
inline constexpr uint8_t kJpegEoi = 0xD9;  // end of image: no length
inline constexpr uint8_t kJpegSos = 0xDA;  // start of scan: the entropy-coded data follows
inline constexpr uint8_t kJpegDri = 0xDD;  // restart interval
inline constexpr uint8_t kJpegApp14 = 0xEE;
// 0xFF before a marker code is a fill byte (B.1.1.2); 0xFF then 0x00 is a stuffed data byte.
inline constexpr uint8_t kJpegFill = 0xFF;
inline constexpr uint8_t kJpegStuffed = 0x00;

// Whether `marker` is followed by a 2-byte length field: every marker but SOI, EOI, RST0..RST7 and
// TEM, which stand alone (B.1.1.3).
constexpr bool jpeg_marker_has_length(uint8_t marker) {
  return marker != kJpegTem && (marker < kJpegRst0 || marker > kJpegEoi);
}

// One marker and its segment.
struct JpegSegment {
  uint8_t marker = 0;
  size_t offset = 0;                 // of the marker's 0xFF (after any fill bytes) in the file
  std::span<const uint8_t> payload;  // the bytes after the length field; empty without one
  size_t end = 0;                    // offset of the first byte after the segment
};

// Reads a JPEG's markers one at a time, from just after the SOI at offset 0 up to and including
// SOS (the entropy-coded data follows it, which is not made of segments) or EOI. Fill bytes before
// a marker are skipped, as libjpeg does. A marker without a length (a second SOI, RSTn, TEM, EOI)
// is returned as it is, with an empty payload: what it means in the headers is the caller's call.
// A value over borrowed bytes: `jpeg` and `name` must outlive the walker. Not thread-safe.
class JpegSegmentWalker {
 public:
  // `name` names the file in errors.
  JpegSegmentWalker(std::span<const uint8_t> jpeg, std::string_view name)
      : jpeg_(jpeg), name_(name) {}

  // The next marker and its segment. Errors, each naming the file and the byte offset: kCorrupt
  // for no SOI at offset 0, a byte other than 0xFF where a marker should start (0xFF 0x00
  // included), a marker or length field cut off by the end of the file, a length under 2 (it
  // counts its own two bytes), a segment running past the end of the file, and headers that end
  // without SOS or EOI; kInvalidArgument for a call after the walk returned SOS or EOI.
  Result<JpegSegment> next();

 private:
  Status error_at(size_t offset, const std::string& what) const;

  std::span<const uint8_t> jpeg_;
  std::string_view name_;
  size_t pos_ = 0;      // where the next marker starts; 0: SOI not read yet
  bool ended_ = false;  // SOS or EOI returned
};

}  // namespace textfeed::loader::internal
