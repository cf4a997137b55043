// Corruption of a cache file anywhere is detected, on open, on read or by verify, as a Status:
// every truncation, every single flipped byte, a wrong magic, a future version, and crafted
// files whose checksums were recomputed to pass.
#include <gtest/gtest.h>

#include <cstring>

#include "cache/cache.h"
#include "cache/crc32c.h"
#include "cache/format.h"
#include "tests/cache/cache_fixture.h"

namespace textfeed::cache {
namespace {

using testing::CacheFixture;

class CacheCorruptionTest : public CacheFixture {
 protected:
  FileFooter footer(const std::vector<char>& b) const {
    FileFooter f;
    std::memcpy(&f, b.data() + b.size() - sizeof(f), sizeof(f));
    return f;
  }
  IndexEntry entry(const std::vector<char>& b, size_t i) const {
    IndexEntry e;
    std::memcpy(&e, b.data() + footer(b).index_offset + i * sizeof(IndexEntry), sizeof(e));
    return e;
  }
  // Rewrites index entry i and re-seals index and footer checksums, as a crafted file would.
  void forge_entry(std::vector<char>& b, size_t i, const IndexEntry& e) const {
    FileFooter f = footer(b);
    std::memcpy(b.data() + f.index_offset + i * sizeof(IndexEntry), &e, sizeof(e));
    f.index_crc = crc32c(b.data() + f.index_offset, f.num_samples * sizeof(IndexEntry));
    forge_footer(b, f);
  }
  void forge_footer(std::vector<char>& b, FileFooter f) const {
    f.footer_crc = crc32c(&f, offsetof(FileFooter, footer_crc));
    std::memcpy(b.data() + b.size() - sizeof(f), &f, sizeof(f));
  }
};

TEST_F(CacheCorruptionTest, EveryTruncationFailsToOpen) {
  build();
  const std::vector<char> whole = bytes();
  for (size_t cut = 0; cut < whole.size(); ++cut) {
    rewrite(std::vector<char>(whole.begin(), whole.begin() + static_cast<ptrdiff_t>(cut)));
    auto r = CacheReader::open(path_);
    ASSERT_FALSE(r.has_value()) << "cut at " << cut;
    ASSERT_EQ(r.error().code(), Code::kCorrupt) << r.error().to_string();
  }
}

TEST_F(CacheCorruptionTest, EveryFlippedByteIsDetected) {
  build();
  const std::vector<char> whole = bytes();
  const FileFooter f = footer(whole);
  for (size_t at = 0; at < whole.size(); ++at) {
    std::vector<char> b = whole;
    b[at] ^= 0x04;
    rewrite(b);
    Status s = open_and_read_all();
    ASSERT_FALSE(s.ok()) << "flip at " << at << " went unnoticed";
    ASSERT_EQ(s.code(), Code::kCorrupt) << s.to_string();
    if (at >= sizeof(FileHeader) && at < f.meta_offset) {
      // Inside a record: open succeeds (checks are lazy), the read names the sample.
      ASSERT_NE(s.message().find("sample "), std::string::npos) << s.message();
    }
  }
}

TEST_F(CacheCorruptionTest, VerifyNamesTheBadSample) {
  build();
  std::vector<char> b = bytes();
  const IndexEntry e3 = entry(b, 3);
  b[e3.offset + e3.size - 9] ^= 0x01;  // a pixel byte of sample 3
  rewrite(b);
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value());  // lazily checked: open succeeds
  for (size_t i = 0; i < (*r)->size(); ++i) {
    Status s = (*r)->verify_sample(i);
    if (i == 3) {
      ASSERT_FALSE(s.ok());
      EXPECT_NE(s.message().find("sample 3"), std::string::npos) << s.message();
      EXPECT_NE(s.message().find("checksum"), std::string::npos) << s.message();
    } else {
      EXPECT_TRUE(s.ok()) << s.to_string();
    }
  }
  EXPECT_FALSE((*r)->sample(3).has_value());
  EXPECT_TRUE((*r)->sample(2).has_value());
}

TEST_F(CacheCorruptionTest, WrongMagicAndFutureVersion) {
  build();
  const std::vector<char> whole = bytes();
  std::vector<char> b = whole;
  b[0] = 'X';
  rewrite(b);
  auto r = CacheReader::open(path_);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kCorrupt);
  EXPECT_NE(r.error().message().find("magic"), std::string::npos);

  b = whole;
  FileHeader h;
  std::memcpy(&h, b.data(), sizeof(h));
  h.format_version = kFormatVersion + 1;
  h.header_crc = crc32c(&h, offsetof(FileHeader, header_crc));  // as a newer writer would
  std::memcpy(b.data(), &h, sizeof(h));
  FileFooter f = footer(b);
  f.format_version = kFormatVersion + 1;
  forge_footer(b, f);
  rewrite(b);
  auto r2 = CacheReader::open(path_);
  ASSERT_FALSE(r2.has_value());
  EXPECT_EQ(r2.error().code(), Code::kUnimplemented);
  EXPECT_NE(r2.error().message().find("newer"), std::string::npos);
}

TEST_F(CacheCorruptionTest, CraftedIndexCannotReachOutsideTheFile) {
  build();
  const std::vector<char> whole = bytes();
  const uint64_t kHuge = ~uint64_t{0} - 7;  // a multiple of 8 whose sums wrap around
  const IndexEntry e0 = entry(whole, 0), e1 = entry(whole, 1);
  std::vector<std::vector<IndexEntry>> forged = {
      {{e0.offset, kHuge, e0.crc, 0}, {e0.offset + kHuge, e1.size, e1.crc, 0}},  // wraps back
      {{e0.offset, e0.size + e1.size, e0.crc, 0}, {e1.offset + e1.size, 0, e1.crc, 0}},
      {{e0.offset + 8, e0.size, e0.crc, 0}, e1},
      {{e0.offset, e0.size + 4, e0.crc, 0}, e1},
  };
  for (const auto& entries : forged) {
    std::vector<char> b = whole;
    for (size_t i = 0; i < entries.size(); ++i) forge_entry(b, i, entries[i]);
    rewrite(b);
    Status s = open_and_read_all();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), Code::kCorrupt) << s.to_string();
  }
  // Meta bounds that wrap, a sample count beyond the file, a reserved field that is not zero.
  for (int variant = 0; variant < 4; ++variant) {
    std::vector<char> b = whole;
    FileFooter f = footer(b);
    if (variant == 0) f.meta_size = f.index_offset - f.meta_offset + (uint64_t{1} << 63) * 2 - 8;
    if (variant == 1) f.meta_offset = f.index_offset + 8, f.meta_size = ~uint64_t{0} - 7;
    if (variant == 2) f.num_samples = ~uint64_t{0} / sizeof(IndexEntry);
    if (variant == 3) f.reserved = 1;
    forge_footer(b, f);
    rewrite(b);
    Status s = open_and_read_all();
    ASSERT_FALSE(s.ok()) << "variant " << variant;
    EXPECT_EQ(s.code(), Code::kCorrupt) << s.to_string();
  }
}

TEST_F(CacheCorruptionTest, CraftedRecordIsRejectedNotTrusted) {
  // A record whose checksum matches but whose content is wrong for its slot (sample 1's record
  // copied over sample 0's index entry) is caught by the structural checks.
  build();
  std::vector<char> b = bytes();
  forge_entry(b, 0, entry(b, 1));
  rewrite(b);
  auto r = CacheReader::open(path_);
  ASSERT_FALSE(r.has_value());  // records must be contiguous
  EXPECT_EQ(r.error().code(), Code::kCorrupt);
}

}  // namespace
}  // namespace textfeed::cache
