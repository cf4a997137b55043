// JpegSegmentWalker: the segments of real headers, the markers that stand alone, fill bytes, and
// every malformed segment refused with the file and byte offset; and the two walks that use it.
#include "loader/decode/detail/jpeg_segments.h"

#include <gtest/gtest.h>
#include <turbojpeg.h>

#include <cstring>
#include <string>
#include <vector>

#include "loader/decode/decode.h"
#include "loader/decode/detail/jpeg_restart.h"

namespace textfeed::loader {
namespace {

using internal::JpegSegment;
using internal::JpegSegmentWalker;

// A JPEG of w x h noise in `pixel_format` (TJPF_RGB or TJPF_CMYK; tjCompress2 writes the Adobe
// APP14 segment into a CMYK one). Empty on failure.
std::vector<uint8_t> encode(int w, int h, int pixel_format, int channels) {
  std::vector<uint8_t> pixels(static_cast<size_t>(w) * h * channels);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 37 + i / 11);
  tjhandle c = tjInitCompress();
  unsigned char* out = nullptr;
  unsigned long size = 0;
  std::vector<uint8_t> jpg;
  if (tjCompress2(c, pixels.data(), w, 0, h, pixel_format, &out, &size, TJSAMP_444, 90, 0) == 0)
    jpg.assign(out, out + size);
  tjFree(out);
  tjDestroy(c);
  return jpg;
}

// Every segment up to the walk's end, or the walk's error.
Result<std::vector<JpegSegment>> walk_all(const std::vector<uint8_t>& b) {
  JpegSegmentWalker walk(b, "x.jpg");
  std::vector<JpegSegment> all;
  for (;;) {
    TF_ASSIGN_OR_RETURN(JpegSegment seg, walk.next());
    all.push_back(seg);
    if (seg.marker == internal::kJpegSos || seg.marker == internal::kJpegEoi) return all;
  }
}

// The walk's error on `b`: its code and that its message names the file and `offset`.
void expect_refused_at(const std::vector<uint8_t>& b, size_t offset, const std::string& why) {
  const auto r = walk_all(b);
  ASSERT_FALSE(r.has_value()) << why;
  EXPECT_EQ(r.error().code(), Code::kCorrupt) << why;
  const std::string& m = r.error().message();
  EXPECT_EQ(m.rfind("x.jpg: ", 0), 0u) << m;
  EXPECT_NE(m.find("byte " + std::to_string(offset) + ":"), std::string::npos) << why << ": " << m;
  EXPECT_NE(m.find(why), std::string::npos) << m;
}

TEST(JpegSegmentsTest, WalksAnEncodedJpegUpToItsScan) {
  const std::vector<uint8_t> jpg = encode(40, 24, TJPF_RGB, 3);
  ASSERT_FALSE(jpg.empty());
  const auto r = walk_all(jpg);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  const std::vector<JpegSegment>& all = *r;
  ASSERT_GE(all.size(), 4u);  // at least DQT, SOF, DHT, SOS
  size_t at = 2;              // after SOI
  for (const JpegSegment& s : all) {
    EXPECT_EQ(s.offset, at);
    EXPECT_EQ(jpg[s.offset], 0xFF);
    EXPECT_EQ(jpg[s.offset + 1], s.marker);
    const size_t len = (size_t{jpg[s.offset + 2]} << 8) | jpg[s.offset + 3];
    EXPECT_EQ(s.payload.size(), len - 2);
    EXPECT_EQ(s.payload.data(), jpg.data() + s.offset + 4);
    EXPECT_EQ(s.end, s.offset + 2 + len);
    at = s.end;
  }
  EXPECT_EQ(all.back().marker, internal::kJpegSos);
  EXPECT_LT(all.back().end, jpg.size());  // the entropy-coded data follows
}

TEST(JpegSegmentsTest, MarkersWithoutALengthStandAlone) {
  // RST0, TEM, a second SOI, then a segment, then EOI: the first three and EOI have no length.
  const std::vector<uint8_t> b{0xFF, 0xD8, 0xFF, 0xD0, 0xFF, 0x01, 0xFF, 0xD8,
                               0xFF, 0xE0, 0x00, 0x04, 0xAA, 0xBB, 0xFF, 0xD9};
  JpegSegmentWalker walk(b, "x.jpg");
  const std::vector<std::pair<uint8_t, size_t>> expected = {
      {0xD0, 2}, {0x01, 4}, {0xD8, 6}, {0xE0, 8}, {0xD9, 14}};
  for (const auto& [marker, offset] : expected) {
    const Result<JpegSegment> s = walk.next();
    ASSERT_TRUE(s.has_value()) << s.error().to_string();
    EXPECT_EQ(s->marker, marker);
    EXPECT_EQ(s->offset, offset);
    EXPECT_EQ(s->payload.size(), marker == 0xE0 ? 2u : 0u);
    EXPECT_EQ(s->end, offset + (marker == 0xE0 ? 6 : 2));
  }
  // The walk ends at EOI.
  const Result<JpegSegment> after = walk.next();
  ASSERT_FALSE(after.has_value());
  EXPECT_EQ(after.error().code(), Code::kInvalidArgument);
  for (int m = 0; m < 256; ++m) {
    const bool alone = m == 0x01 || (m >= 0xD0 && m <= 0xD9);
    EXPECT_EQ(internal::jpeg_marker_has_length(static_cast<uint8_t>(m)), !alone) << m;
  }
}

TEST(JpegSegmentsTest, FillBytesBeforeAMarkerAreSkipped) {
  const std::vector<uint8_t> b{0xFF, 0xD8, 0xFF, 0xFF, 0xFF, 0xDB, 0x00, 0x03,
                               0x07, 0xFF, 0xFF, 0xDA, 0x00, 0x03, 0x01, 0x55};
  const auto r = walk_all(b);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].marker, 0xDB);
  EXPECT_EQ((*r)[0].offset, 4u);  // the last 0xFF before the marker code
  ASSERT_EQ((*r)[0].payload.size(), 1u);
  EXPECT_EQ((*r)[0].payload[0], 0x07);
  EXPECT_EQ((*r)[1].marker, internal::kJpegSos);
  EXPECT_EQ((*r)[1].offset, 10u);
  EXPECT_EQ((*r)[1].end, 15u);
}

TEST(JpegSegmentsTest, RefusesASegmentRunningPastTheEnd) {
  expect_refused_at({0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x10, 0x01, 0x02}, 2, "runs past the end");
  // One byte short of the whole file.
  expect_refused_at({0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x05, 0x01, 0x02}, 2, "runs past the end");
  // The largest length, from a real JPEG's last header segment.
  std::vector<uint8_t> jpg = encode(40, 24, TJPF_RGB, 3);
  const auto r = walk_all(jpg);
  ASSERT_TRUE(r.has_value());
  const size_t sos = r->back().offset;
  jpg[sos + 2] = 0xFF, jpg[sos + 3] = 0xFF;
  if (jpg.size() > sos + 2 + 0xFFFF) jpg.resize(sos + 2 + 0xFFFF - 1);
  expect_refused_at(jpg, sos, "runs past the end");
}

TEST(JpegSegmentsTest, RefusesALengthUnderTwo) {
  expect_refused_at({0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x00, 0xFF, 0xD9}, 2, "has the length 0");
  expect_refused_at({0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x01, 0xFF, 0xD9}, 2, "has the length 1");
  // After a good segment: the offset is the bad one's.
  expect_refused_at({0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0xFF, 0xDD, 0x00, 0x01}, 6,
                    "has the length 1");
}

TEST(JpegSegmentsTest, RefusesBytesThatAreNoMarker) {
  expect_refused_at({0x00, 0xD8, 0xFF, 0xD9}, 0, "no SOI");
  expect_refused_at({0xFF}, 0, "no SOI");
  expect_refused_at({0xFF, 0xD8}, 2, "ends before SOS or EOI");
  expect_refused_at({0xFF, 0xD8, 0x12, 0xFF, 0xD9}, 2, "found the byte 0x12");
  expect_refused_at({0xFF, 0xD8, 0xFF, 0x00, 0xFF, 0xD9}, 2, "stuffed data byte");
  expect_refused_at({0xFF, 0xD8, 0xFF, 0xFF, 0xFF}, 4, "ends inside a marker");
  expect_refused_at({0xFF, 0xD8, 0xFF, 0xC4, 0x00}, 2, "inside the length of 0xFFC4");
  // Between segments, where libjpeg would skip bytes with a warning.
  expect_refused_at({0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0x00, 0xFF, 0xD9}, 6, "found the byte");
}

TEST(JpegSegmentsTest, EveryCutOfRealHeadersIsRefusedOrWalked) {
  const std::vector<uint8_t> jpg = encode(40, 24, TJPF_RGB, 3);
  const auto whole = walk_all(jpg);
  ASSERT_TRUE(whole.has_value());
  const size_t scan = whole->back().end;
  for (size_t n = 0; n < scan; ++n) {
    const std::vector<uint8_t> cut(jpg.begin(), jpg.begin() + static_cast<ptrdiff_t>(n));
    const auto r = walk_all(cut);
    ASSERT_FALSE(r.has_value()) << n;
    EXPECT_EQ(r.error().code(), Code::kCorrupt) << n;
  }
  const std::vector<uint8_t> just(jpg.begin(), jpg.begin() + static_cast<ptrdiff_t>(scan));
  EXPECT_TRUE(walk_all(just).has_value());
}

TEST(JpegSegmentsTest, AdobeMarkerIsFoundPastMarkersWithoutALength) {
  // TEM, RST3 and fill bytes before the APP14 segment: libjpeg skips them, and the CMYK
  // convention that APP14 names still holds, so the pixels are those of the file without them.
  const std::vector<uint8_t> jpg = encode(32, 16, TJPF_CMYK, 4);
  ASSERT_FALSE(jpg.empty());
  std::vector<uint8_t> odd(jpg.begin(), jpg.begin() + 2);
  for (const uint8_t b : {0xFF, 0x01, 0xFF, 0xD3, 0xFF, 0xFF}) odd.push_back(b);
  odd.insert(odd.end(), jpg.begin() + 2, jpg.end());
  Decoder d;
  Image a, b;
  ASSERT_TRUE(d.decode(jpg, "cmyk.jpg", 1, a).ok());
  const Status s = d.decode(odd, "odd.jpg", 1, b);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(a.size_bytes(), b.size_bytes());
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size_bytes()));
}

TEST(JpegSegmentsTest, RestartCutRefusesHeadersTheWalkRefuses) {
  Image rgb(64, 2048, 3);
  for (size_t i = 0; i < rgb.size_bytes(); ++i) rgb.data()[i] = static_cast<uint8_t>(i * 7);
  std::vector<uint8_t> rst;
  ASSERT_TRUE(internal::encode_jpeg_restart_rows(rgb, 90, rst).ok());
  internal::RestartWindow part;
  ASSERT_TRUE(internal::cut_restart_window(rst, 900, 16, 1100, 40, part));
  // Its first segment's length under 2, then past the end: no part.
  for (const uint16_t len : {uint16_t{1}, uint16_t{0xFFFF}}) {
    std::vector<uint8_t> bad = rst;
    bad[4] = static_cast<uint8_t>(len >> 8), bad[5] = static_cast<uint8_t>(len & 0xFF);
    if (len == 0xFFFF) bad.resize(0xFFFF);
    internal::RestartWindow none;
    EXPECT_FALSE(internal::cut_restart_window(bad, 900, 16, 1100, 40, none)) << len;
    EXPECT_TRUE(none.jpeg.empty());
  }
  // Fill bytes before a segment change nothing of the part but where its headers end.
  std::vector<uint8_t> filled(rst.begin(), rst.begin() + 2);
  filled.insert(filled.end(), {0xFF, 0xFF});
  filled.insert(filled.end(), rst.begin() + 2, rst.end());
  internal::RestartWindow other;
  ASSERT_TRUE(internal::cut_restart_window(filled, 900, 16, 1100, 40, other));
  EXPECT_EQ(other.x_cut, part.x_cut);
  EXPECT_EQ(other.width, part.width);
  EXPECT_EQ(other.jpeg.size(), part.jpeg.size() + 2);
}

}  // namespace
}  // namespace textfeed::loader
