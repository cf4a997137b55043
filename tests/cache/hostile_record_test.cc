// Records that are whole and correctly checksummed but say something impossible: a crafted cache
// whose checksums were recomputed must not hand the pipeline words that are not finite numbers,
// labels other than valid or ignored, or JPEG pixels of another size than the record says. The
// first read of such a sample and `verify` refuse it, naming the sample and the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "cache/cache.h"
#include "cache/crc32c.h"
#include "cache/format.h"
#include "tests/cache/cache_fixture.h"

namespace textfeed::cache {
namespace {

using testing::CacheFixture;
using testing::TestSample;

class CacheHostileRecordTest : public CacheFixture {
 protected:
  // Finds `what` in the file (once), replaces it with `with` (same size) and recomputes every
  // checksum, as a crafted file would.
  void forge(const void* what, const void* with, size_t n) {
    std::vector<char> b = bytes();
    const auto at = std::search(b.begin(), b.end(), static_cast<const char*>(what), static_cast<const char*>(what) + n);
    ASSERT_NE(at, b.end());
    std::memcpy(&*at, with, n);
    FileFooter f;
    std::memcpy(&f, b.data() + b.size() - sizeof(f), sizeof(f));
    for (size_t i = 0; i < f.num_samples; ++i) {
      IndexEntry e;
      char* slot = b.data() + f.index_offset + i * sizeof(IndexEntry);
      std::memcpy(&e, slot, sizeof(e));
      e.crc = crc32c(b.data() + e.offset, e.size);
      std::memcpy(slot, &e, sizeof(e));
    }
    f.index_crc = crc32c(b.data() + f.index_offset, f.num_samples * sizeof(IndexEntry));
    f.footer_crc = crc32c(&f, offsetof(FileFooter, footer_crc));
    std::memcpy(b.data() + b.size() - sizeof(f), &f, sizeof(f));
    rewrite(b);
  }

  void build_again() {
    std::filesystem::remove(path_);
    build();
  }

  // Sample `i`'s first read and its verify both fail as kCorrupt with `why`; every other sample
  // still reads.
  void expect_refused(size_t i, const std::string& why) {
    auto r = CacheReader::open(path_);
    ASSERT_TRUE(r.has_value()) << r.error().to_string();
    const Status verify = (*r)->verify_sample(i);
    EXPECT_EQ(verify.code(), Code::kCorrupt) << verify.to_string();
    EXPECT_NE(verify.message().find("sample " + std::to_string(i)), std::string::npos) << verify.message();
    EXPECT_NE(verify.message().find(why), std::string::npos) << verify.message();
    auto s = (*r)->sample(i);
    ASSERT_FALSE(s.has_value());
    EXPECT_EQ(s.error().code(), Code::kCorrupt);
    EXPECT_NE(s.error().message().find(samples_[i].name), std::string::npos) << s.error().message();
    for (size_t k = 0; k < (*r)->size(); ++k) {
      if (k != i) {
        EXPECT_TRUE((*r)->sample(k).has_value()) << k;
      }
    }
  }
};

TEST_F(CacheHostileRecordTest, AWordThatIsNotFiniteIsRefusedOnFirstReadAndByVerify) {
  samples_[2].quads[1].xy[0] = 4321.5f;  // found once in the file
  build();
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    const Quad& q = samples_[2].quads[1];
    Quad forged = q;
    forged.xy[5] = bad;
    forge(q.xy.data(), forged.xy.data(), sizeof(q.xy));
    expect_refused(2, "word 2 has a coordinate that is not finite");
    build_again();
  }
}

TEST_F(CacheHostileRecordTest, ALabelOtherThanValidOrIgnoredIsRefused) {
  ASSERT_EQ(samples_[3].labels, (std::vector<unsigned char>{kLabelValid, kLabelIgnored, kLabelValid}));
  samples_[3].quads[2].xy[0] = 1234.5f;  // found once in the file
  build();
  // The labels blob follows the quads blob (96 bytes, whole words): the 3 labels and 5 bytes of
  // padding come right after the last quad.
  std::vector<char> b = bytes();
  const char* q = reinterpret_cast<const char*>(&samples_[3].quads[2]);
  const auto at = std::search(b.begin(), b.end(), q, q + sizeof(Quad));
  ASSERT_NE(at, b.end());
  const std::vector<char> what(at + sizeof(Quad) - 8, at + sizeof(Quad) + 8);
  ASSERT_EQ(std::vector<char>(what.begin() + 8, what.end()), (std::vector<char>{1, 0, 1, 0, 0, 0, 0, 0}));
  std::vector<char> with = what;
  with[8 + 1] = 7;
  forge(what.data(), with.data(), what.size());
  expect_refused(3, "word 2 has label 7");
}

TEST_F(CacheHostileRecordTest, JpegPixelsOfAnotherSizeThanTheRecordAreRefused) {
  samples_[4] = testing::make_sample(4, PixelCodec::kJpeg);
  build();
  const TestSample& s = samples_[4];
  // The frame header's height and width bytes (after FFD8 FFC0 0011 08).
  const std::vector<uint8_t> what(s.pixels.begin(), s.pixels.begin() + 24);
  std::vector<uint8_t> with = what;
  with[7] = 0x12;  // height 0x12xx: much taller than the record says
  forge(what.data(), with.data(), what.size());
  expect_refused(4, "JPEG pixels are " + std::to_string(s.w) + "x" + std::to_string(0x1200 | s.h) +
                        " but the record says " + std::to_string(s.w) + "x" + std::to_string(s.h));
  build_again();
  with = what;
  with[3] = 0xDA;  // the frame header becomes a scan: no size before the first scan
  forge(what.data(), with.data(), what.size());
  expect_refused(4, "JPEG pixels have no frame header");
}

TEST_F(CacheHostileRecordTest, TheWriterRefusesWhatTheReaderWouldRefuse) {
  auto w = CacheWriter::create(path_, false);
  ASSERT_TRUE(w.has_value()) << w.error().to_string();
  TestSample s = testing::make_sample(2);
  s.quads[0].xy[3] = std::numeric_limits<float>::quiet_NaN();
  Status st = (*w)->add(s.data());
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.to_string();
  EXPECT_NE(st.message().find("not finite"), std::string::npos) << st.message();
  s = testing::make_sample(2);
  s.labels[1] = 2;
  st = (*w)->add(s.data());
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st.to_string();
  EXPECT_NE(st.message().find("label 2"), std::string::npos) << st.message();
  EXPECT_EQ((*w)->num_samples(), 0u);
}

}  // namespace
}  // namespace textfeed::cache
