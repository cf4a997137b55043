// Cache file: what is written comes back (zero copy, raw and JPEG records), an existing file is
// kept without --force, an abandoned writer leaves nothing, concurrent readers agree. Corruption
// is corruption_test.cc's.
#include "cache/cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <thread>

#include "tests/cache/cache_fixture.h"

namespace textfeed::cache {
namespace {

using testing::CacheFixture;
using testing::TestSample;

class CacheTest : public CacheFixture {};

TEST_F(CacheTest, RoundTripReturnsWhatWasWritten) {
  samples_.push_back(testing::make_sample(6, PixelCodec::kJpeg));
  build();
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  ASSERT_EQ((*r)->size(), samples_.size());
  EXPECT_EQ((*r)->meta().profile, "upstage");
  EXPECT_EQ((*r)->meta().image_size, 2048);
  EXPECT_EQ((*r)->meta().num_words, 0u + 0 + 1 + 2 + 3 + 0 + 1 + 2);
  ASSERT_EQ((*r)->meta().quarantine.size(), 1u);
  EXPECT_EQ((*r)->meta().quarantine[0].reason, "truncated JPEG");
  for (size_t i = 0; i < samples_.size(); ++i) {
    auto v = (*r)->sample(i);
    ASSERT_TRUE(v.has_value()) << v.error().to_string();
    EXPECT_TRUE(same(*v, samples_[i])) << "sample " << i;
    // Zero copy: the pixels point into the mapping, word-aligned.
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v->pixels.data()) % 8, 0u);
  }
}

TEST_F(CacheTest, ExistingFileIsNotOverwrittenWithoutForce) {
  build();
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
    ASSERT_TRUE((*w)->add(samples_[1].data()).ok());
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(CacheTest, ConcurrentReadersSeeTheSameData) {
  build();
  auto r = CacheReader::open(path_);
  ASSERT_TRUE(r.has_value());
  std::shared_ptr<const CacheReader> reader = *r;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 50; ++rep)
        for (size_t i = 0; i < reader->size(); ++i) {
          const size_t k = (i + t) % reader->size();
          auto v = reader->sample(k);
          if (!v.has_value() || !same(*v, samples_[k])) ++failures;
        }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace textfeed::cache
