// Cache file: round trip, corruption anywhere is detected, concurrent readers.
#include "cache/cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cache/crc32c.h"
#include "cache/format.h"

namespace textfeed::cache {
namespace {

namespace fs = std::filesystem;

struct TestSample {
  std::string name;
  int w, h;
  std::vector<uint8_t> pixels;
  std::vector<Quad> quads;
  std::vector<unsigned char> labels;
  std::vector<std::string> texts;
};

TestSample make_sample(int i) {
  TestSample s;
  s.name = "images/img_" + std::to_string(i) + ".jpg";
  s.w = 13 + i;  // odd sizes: pixels not a multiple of 8 bytes
  s.h = 7 + 2 * i;
  s.pixels.resize(static_cast<size_t>(s.w) * s.h * 3 + 8, 0);
  for (size_t k = 0; k + 8 < s.pixels.size(); ++k) s.pixels[k] = static_cast<uint8_t>(k * 31 + i);
  s.pixels.resize(static_cast<size_t>(s.w) * s.h * 3);  // capacity keeps the zeroed slack
  for (int q = 0; q < i % 4; ++q) {
    Quad quad;
    for (int k = 0; k < 8; ++k) quad.xy[k] = 0.5f * k + q + i;
    s.quads.push_back(quad);
    s.labels.push_back(q % 2 ? kLabelIgnored : kLabelValid);
    s.texts.push_back(q == 1 ? "###" : "word, " + std::to_string(q));
  }
  return s;
}

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("textfeed_cache_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "a.tfc").string();
    for (int i = 0; i < 6; ++i) samples_.push_back(make_sample(i));
  }
  void TearDown() override { fs::remove_all(dir_); }

  void build(const std::string& path) {
    auto w = CacheWriter::create(path, false);
    ASSERT_TRUE(w.has_value()) << w.error().to_string();
    for (const TestSample& s : samples_) {
      SampleData d{s.name, s.w * 2, s.h * 2, s.w, s.h, PixelCodec::kRaw, s.pixels, s.quads, s.labels, s.texts};
      ASSERT_TRUE((*w)->add(d).ok());
    }
    EXPECT_FALSE(fs::exists(path));  // nothing at the final path before finish()
    CacheMeta meta;
    meta.profile = "upstage";
    meta.image_size = 2048;
    meta.quarantine.push_back({"images/bad.jpg", "truncated JPEG"});
    Status st = (*w)->finish(meta);
    ASSERT_TRUE(st.ok()) << st.to_string();
  }

  std::vector<char> bytes() {
    std::ifstream in(path_, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  void rewrite(const std::vector<char>& b) { std::ofstream(path_, std::ios::binary).write(b.data(), b.size()); }

  // Opens and reads every sample; returns the first error.
  Status open_and_read_all() {
    auto r = CacheReader::open(path_);
    if (!r.has_value()) return r.error();
    for (size_t i = 0; i < (*r)->size(); ++i) {
      auto s = (*r)->sample(i);
      if (!s.has_value()) return s.error();
    }
    return Status();
  }

  fs::path dir_;
  std::string path_;
  std::vector<TestSample> samples_;
};

TEST_F(CacheTest, RoundTripReturnsWhatWasWritten) {
  build(path_);
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  ASSERT_EQ((*r)->size(), samples_.size());
  EXPECT_EQ((*r)->meta().profile, "upstage");
  EXPECT_EQ((*r)->meta().image_size, 2048);
  EXPECT_EQ((*r)->meta().num_words, 0u + 0 + 1 + 2 + 3 + 0 + 1);
  ASSERT_EQ((*r)->meta().quarantine.size(), 1u);
  EXPECT_EQ((*r)->meta().quarantine[0].reason, "truncated JPEG");
  for (size_t i = 0; i < samples_.size(); ++i) {
    auto v = (*r)->sample(i);
    ASSERT_TRUE(v.has_value()) << v.error().to_string();
    const TestSample& s = samples_[i];
    EXPECT_EQ(v->name, s.name);
    EXPECT_EQ(v->width, s.w);
    EXPECT_EQ(v->height, s.h);
    EXPECT_EQ(v->orig_width, 2 * s.w);
    ASSERT_EQ(v->pixels.size(), s.pixels.size());
    EXPECT_EQ(0, std::memcmp(v->pixels.data(), s.pixels.data(), s.pixels.size()));
    ASSERT_EQ(v->quads.size(), s.quads.size());
    for (size_t q = 0; q < s.quads.size(); ++q) EXPECT_EQ(v->quads[q].xy, s.quads[q].xy);
    EXPECT_EQ(std::vector<unsigned char>(v->labels.begin(), v->labels.end()), s.labels);
    auto texts = v->texts();
    ASSERT_EQ(texts.size(), s.texts.size());
    for (size_t q = 0; q < texts.size(); ++q) EXPECT_EQ(texts[q], s.texts[q]);
    // Zero copy: the pixels point into the mapping.
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v->pixels.data()) % 8, 0u);
  }
}

TEST_F(CacheTest, ExistingFileIsNotOverwrittenWithoutForce) {
  build(path_);
  auto w = CacheWriter::create(path_, false);
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().code(), Code::kInvalidArgument);
  auto w2 = CacheWriter::create(path_, true);
  ASSERT_TRUE(w2.has_value());
  ASSERT_TRUE((*w2)->finish({}).ok());
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)->size(), 0u);
}

TEST_F(CacheTest, AbandonedWriterLeavesNothing) {
  {
    auto w = CacheWriter::create(path_, false);
    ASSERT_TRUE(w.has_value());
    const TestSample& s = samples_[1];
    ASSERT_TRUE((*w)->add({s.name, s.w, s.h, s.w, s.h, PixelCodec::kRaw, s.pixels, s.quads, s.labels, s.texts}).ok());
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(CacheTest, TruncationAtAnyOffsetIsDetected) {
  build(path_);
  const std::vector<char> whole = bytes();
  for (size_t cut : {size_t{0}, size_t{10}, size_t{64}, size_t{100}, whole.size() / 2, whole.size() - 65,
                     whole.size() - 64, whole.size() - 1}) {
    rewrite(std::vector<char>(whole.begin(), whole.begin() + cut));
    auto r = CacheReader::open(path_);
    ASSERT_FALSE(r.has_value()) << "cut at " << cut;
    EXPECT_EQ(r.error().code(), Code::kCorrupt) << r.error().to_string();
  }
}

TEST_F(CacheTest, FlippedBytesAreDetectedWherever) {
  build(path_);
  const std::vector<char> whole = bytes();
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value());
  FileFooter f;
  std::memcpy(&f, whole.data() + whole.size() - sizeof(f), sizeof(f));
  const size_t record = sizeof(FileHeader) + 40;           // inside sample 0's record
  const size_t pixels = f.meta_offset - 20;                // inside the last record's pixels
  const size_t index = f.index_offset + 3;                 // an index entry
  const size_t meta = f.meta_offset + 17;                  // the meta record
  const size_t footer = whole.size() - 40;                 // the footer
  const size_t header = 20;
  for (size_t at : {record, pixels, index, meta, footer, header}) {
    std::vector<char> b = whole;
    b[at] ^= 0x10;
    rewrite(b);
    Status s = open_and_read_all();
    EXPECT_FALSE(s.ok()) << "flip at " << at;
    EXPECT_EQ(s.code(), Code::kCorrupt) << s.to_string();
  }
}

TEST_F(CacheTest, VerifyNamesTheBadSample) {
  build(path_);
  std::vector<char> b = bytes();
  auto r0 = CacheReader::open(path_);
  ASSERT_TRUE(r0.has_value());
  FileFooter f;
  std::memcpy(&f, b.data() + b.size() - sizeof(f), sizeof(f));
  IndexEntry e3;
  std::memcpy(&e3, b.data() + f.index_offset + 3 * sizeof(IndexEntry), sizeof(e3));
  b[e3.offset + e3.size - 9] ^= 0x01;  // a pixel byte of sample 3
  rewrite(b);
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value());  // lazily checked: open succeeds
  for (size_t i = 0; i < (*r)->size(); ++i) {
    Status s = (*r)->verify_sample(i);
    if (i == 3) {
      ASSERT_FALSE(s.ok());
      EXPECT_NE(s.message().find("sample 3"), std::string::npos) << s.message();
    } else {
      EXPECT_TRUE(s.ok()) << s.to_string();
    }
  }
  EXPECT_FALSE((*r)->sample(3).has_value());
}

TEST_F(CacheTest, WrongMagicAndFutureVersion) {
  build(path_);
  const std::vector<char> whole = bytes();
  std::vector<char> b = whole;
  b[0] = 'X';
  rewrite(b);
  auto r = CacheReader::open(path_);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("magic"), std::string::npos);

  b = whole;
  FileHeader h;
  std::memcpy(&h, b.data(), sizeof(h));
  h.format_version = kFormatVersion + 1;
  h.header_crc = crc32c(&h, offsetof(FileHeader, header_crc));  // as a newer writer would
  std::memcpy(b.data(), &h, sizeof(h));
  rewrite(b);
  auto r2 = CacheReader::open(path_);
  ASSERT_FALSE(r2.has_value());
  EXPECT_EQ(r2.error().code(), Code::kUnimplemented);
  EXPECT_NE(r2.error().message().find("newer"), std::string::npos);
}

TEST_F(CacheTest, ConcurrentReadersSeeTheSameData) {
  build(path_);
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value());
  std::shared_ptr<const CacheReader> reader = *r;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 50; ++rep)
        for (size_t i = 0; i < reader->size(); ++i) {
          auto v = reader->sample((i + t) % reader->size());
          const TestSample& s = samples_[(i + t) % reader->size()];
          if (!v.has_value() || v->pixels.size() != s.pixels.size() ||
              std::memcmp(v->pixels.data(), s.pixels.data(), s.pixels.size()) != 0)
            ++failures;
        }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace textfeed::cache

namespace textfeed::cache {
namespace {

TEST_F(CacheTest, CraftedSizesThatWrapAreRejected) {
  build(path_);
  const std::vector<char> whole = bytes();
  FileFooter f;
  std::memcpy(&f, whole.data() + whole.size() - sizeof(f), sizeof(f));
  const uint64_t footer_at = whole.size() - sizeof(FileFooter);
  auto with_footer = [&](FileFooter g) {
    g.footer_crc = crc32c(&g, offsetof(FileFooter, footer_crc));
    std::vector<char> b = whole;
    std::memcpy(b.data() + b.size() - sizeof(g), &g, sizeof(g));
    rewrite(b);
    return CacheReader::open(path_);
  };
  FileFooter g = f;  // index_offset + n * 24 wraps around to footer_at
  g.num_samples = 1;
  g.index_offset = footer_at - sizeof(IndexEntry) + (uint64_t{1} << 63) * 2;
  g.index_offset = footer_at - sizeof(IndexEntry) - 0;  // a valid-looking end...
  g.index_offset += 0x8000000000000000ULL;              // ...then pushed past the mapping
  EXPECT_EQ(with_footer(g).error().code(), Code::kCorrupt);
  g = f;  // meta_offset + meta_size wraps to index_offset
  g.meta_size = f.index_offset - f.meta_offset + (~uint64_t{0} - 7);
  EXPECT_EQ(with_footer(g).error().code(), Code::kCorrupt);
  g = f;
  g.reserved = 1;
  EXPECT_EQ(with_footer(g).error().code(), Code::kCorrupt);
}

}  // namespace
}  // namespace textfeed::cache
