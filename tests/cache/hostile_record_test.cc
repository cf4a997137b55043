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
    const auto at = std::search(b.begin(), b.end(), static_cast<const char*>(what),
                                static_cast<const char*>(what) + n);
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
    EXPECT_NE(verify.message().find("sample " + std::to_string(i)), std::string::npos)
        << verify.message();
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
  ASSERT_EQ(samples_[3].labels,
            (std::vector<unsigned char>{kLabelValid, kLabelIgnored, kLabelValid}));
  samples_[3].quads[2].xy[0] = 1234.5f;  // found once in the file
  build();
  // The labels blob follows the quads blob (96 bytes, whole words): the 3 labels and 5 bytes of
  // padding come right after the last quad.
  std::vector<char> b = bytes();
  const char* q = reinterpret_cast<const char*>(&samples_[3].quads[2]);
  const auto at = std::search(b.begin(), b.end(), q, q + sizeof(Quad));
  ASSERT_NE(at, b.end());
  const std::vector<char> what(at + sizeof(Quad) - 8, at + sizeof(Quad) + 8);
  ASSERT_EQ(std::vector<char>(what.begin() + 8, what.end()),
            (std::vector<char>{1, 0, 1, 0, 0, 0, 0, 0}));
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

// A cache whose sample 0 is `record_bytes` of zeros (a hole: the file is sparse and costs no disk),
// with the real Meta after it and index, Meta and footer checksums that match.
void write_sparse_cache(const std::string& path, const std::vector<char>& real,
                        uint64_t record_bytes) {
  FileFooter f;
  std::memcpy(&f, real.data() + real.size() - sizeof(f), sizeof(f));
  const std::vector<char> meta(real.begin() + static_cast<ptrdiff_t>(f.meta_offset),
                               real.begin() + static_cast<ptrdiff_t>(f.meta_offset + f.meta_size));
  const IndexEntry entry{sizeof(FileHeader), record_bytes, 0, 0};
  f.num_samples = 1;
  f.meta_offset = sizeof(FileHeader) + record_bytes;
  f.index_offset = f.meta_offset + f.meta_size;
  f.index_crc = crc32c(&entry, sizeof(entry));
  f.footer_crc = crc32c(&f, offsetof(FileFooter, footer_crc));
  std::filesystem::remove(path);
  std::ofstream out(path, std::ios::binary);
  out.write(real.data(), sizeof(FileHeader));
  out.seekp(static_cast<std::streamoff>(f.meta_offset));
  out.write(meta.data(), static_cast<std::streamsize>(meta.size()));
  out.write(reinterpret_cast<const char*>(&entry), sizeof(entry));
  out.write(reinterpret_cast<const char*>(&f), sizeof(f));
  ASSERT_TRUE(out.good());
}

TEST_F(CacheHostileRecordTest, ASparseRecordIsRefusedWithoutHashingIt) {
  // A few KB on disk that once made the first read of sample 0 hash gigabytes of zeros (and fill
  // the page cache with them): refused by size at open, or by its segment table before hashing.
  build();
  const std::vector<char> real = bytes();
  write_sparse_cache(path_, real, uint64_t{3} << 30);
  auto big = CacheReader::open(path_);
  ASSERT_FALSE(big.has_value());
  EXPECT_EQ(big.error().code(), Code::kCorrupt);
  EXPECT_NE(big.error().message().find("index entry 0"), std::string::npos)
      << big.error().message();
  EXPECT_NE(big.error().message().find("over the record limit of 1073741824"), std::string::npos)
      << big.error().message();

  write_sparse_cache(path_, real, uint64_t{256} << 20);
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  const Status s = (*r)->verify_sample(0);
  EXPECT_EQ(s.code(), Code::kCorrupt);
  EXPECT_NE(s.message().find(
                "sample 0 record at byte 64 is 268435456 bytes but its segment table describes 8"),
            std::string::npos)
      << s.message();
  EXPECT_FALSE((*r)->sample(0).has_value());
}

TEST_F(CacheHostileRecordTest, AMetaRecordThatIsNotOneMessageOfItsSizeIsRefused) {
  // Zeros with a matching checksum once opened as a cache with an empty Meta.
  build();
  std::vector<char> b = bytes();
  FileFooter f;
  std::memcpy(&f, b.data() + b.size() - sizeof(f), sizeof(f));
  std::fill(b.begin() + static_cast<ptrdiff_t>(f.meta_offset),
            b.begin() + static_cast<ptrdiff_t>(f.meta_offset + f.meta_size), 0);
  f.meta_crc = crc32c(b.data() + f.meta_offset, f.meta_size);
  f.footer_crc = crc32c(&f, offsetof(FileFooter, footer_crc));
  std::memcpy(b.data() + b.size() - sizeof(f), &f, sizeof(f));
  rewrite(b);
  auto r = CacheReader::open(path_);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kCorrupt);
  EXPECT_NE(r.error().message().find("meta record of " + std::to_string(f.meta_size) +
                                     " bytes is not one message of that size"),
            std::string::npos)
      << r.error().message();
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
