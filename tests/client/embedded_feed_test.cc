// EmbeddedFeed over the sample data: its layout is the pipeline's; batches come in order, each in
// a slot given back by release() or release_after(); seek() and cancel().
#include "client/embedded_feed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

namespace textfeed::client {
namespace {

using namespace std::chrono_literals;

const std::string kSample = std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample";

loader::PipelineSpec spec(int batch_size) {
  loader::PipelineSpec s = loader::default_spec(augment::Profile::kSakura, kSample);
  s.augment.crop_size = 128;
  s.sampler.seed = 7;
  s.sampler.batch_size = batch_size;
  return s;
}

std::unique_ptr<EmbeddedFeed> open_feed(uint32_t prefetch, uint64_t batch = 0, int batch_size = 2) {
  auto source = loader::SampleSource::open(kSample, {});
  EXPECT_TRUE(source.has_value()) << source.error().to_string();
  EmbeddedOptions o;
  o.pipeline = spec(batch_size);
  o.threads = 2;
  o.prefetch = prefetch;
  o.batch = batch;
  auto f = EmbeddedFeed::open(*source, o);
  EXPECT_TRUE(f.has_value()) << f.error().to_string();
  return f.has_value() ? std::move(*f) : nullptr;
}

// Waits (with a deadline, not a sleep) for the next batch.
FeedBatch take(Feed& f) {
  for (int i = 0; i < 600; ++i) {
    auto b = f.next(100ms);
    EXPECT_TRUE(b.has_value()) << b.error().to_string();
    if (!b.has_value()) return {};
    if (*b) return std::move(**b);
  }
  ADD_FAILURE() << "no batch within a minute";
  return {};
}

std::vector<uint8_t> bytes(const Feed& f, uint32_t slot) {
  const uint8_t* p = f.ring().slot(slot);
  return {p, p + f.layout().slot_bytes};
}

TEST(EmbeddedFeedTest, LayoutIsThePipelines) {
  auto f = open_feed(2);
  ASSERT_TRUE(f);
  auto source = loader::SampleSource::open(kSample, {});
  ASSERT_TRUE(source.has_value());
  auto p = loader::BatchPipeline::create(*source, spec(2));
  ASSERT_TRUE(p.has_value()) << p.error().to_string();
  const FeedLayout want = feed_layout(**p);
  EXPECT_EQ(f->layout().tensors, want.tensors);
  EXPECT_EQ(f->layout().slot_bytes, want.slot_bytes);
  EXPECT_EQ(f->layout().epochs.per_epoch, 5u);  // 10 images in batches of 2
  EXPECT_EQ(f->layout().dataset_size, 10u);
  EXPECT_EQ(f->layout().batch_size, 2);
  EXPECT_EQ(f->layout().dataset_fingerprint, want.dataset_fingerprint);
  EXPECT_GE(f->ring().stride(), want.slot_bytes);
  EXPECT_EQ(f->ring().count(), 2u);
  EXPECT_EQ(f->ring().memory_fd(), -1);  // in-process: anonymous memory
}

TEST(EmbeddedFeedTest, BatchesComeInOrderAndCoverTheEpoch) {
  auto f = open_feed(3);
  ASSERT_TRUE(f);
  std::vector<uint32_t> seen;
  for (uint64_t k = 0; k < 7; ++k) {
    const FeedBatch b = take(*f);
    EXPECT_EQ(b.epoch, k / 5);
    EXPECT_EQ(b.batch, k % 5);
    if (k < 5) seen.insert(seen.end(), b.indices.begin(), b.indices.end());
    f->release(b.slot);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(f->next_epoch(), 1u);
  EXPECT_EQ(f->next_batch(), 2u);
  const FeedStats s = f->stats();
  EXPECT_EQ(s.batches, 7u);
  EXPECT_EQ(s.samples, 14u);
  EXPECT_EQ(s.transport, FeedTransport::kEmbedded);
}

TEST(EmbeddedFeedTest, SeekGivesTheBatchesAStartThereGives) {
  auto a = open_feed(2);
  auto b = open_feed(2, /*batch=*/3);
  ASSERT_TRUE(a && b);
  const FeedBatch x = take(*b);
  ASSERT_TRUE(a->seek(0, 3).ok());
  const FeedBatch y = take(*a);
  EXPECT_EQ(y.batch, 3u);
  EXPECT_EQ(x.indices, y.indices);
  EXPECT_EQ(bytes(*a, y.slot), bytes(*b, x.slot));
  EXPECT_EQ(a->seek(0, 5).code(), Code::kInvalidArgument);  // past the epoch's 5 batches
}

TEST(EmbeddedFeedTest, AHeldSlotIsNotWrittenAndAFullRingIsOverloaded) {
  auto f = open_feed(2);
  ASSERT_TRUE(f);
  const FeedBatch first = take(*f);
  const std::vector<uint8_t> kept = bytes(*f, first.slot);
  const FeedBatch second = take(*f);
  EXPECT_NE(first.slot, second.slot);
  auto r = f->next(10ms);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kOverloaded);
  EXPECT_EQ(bytes(*f, first.slot), kept);
  f->release(second.slot);
  EXPECT_EQ(take(*f).batch, 2u);
}

struct Flag final : Fence {
  explicit Flag(std::shared_ptr<std::atomic<bool>> d) : is_done(std::move(d)) {}
  bool done() override { return *is_done; }
  void wait() override { *is_done = true; }
  std::shared_ptr<std::atomic<bool>> is_done;
};

TEST(EmbeddedFeedTest, AFencedSlotIsRefilledOnlyAfterItsFence) {
  auto f = open_feed(2);
  ASSERT_TRUE(f);
  const FeedBatch first = take(*f);
  const std::vector<uint8_t> kept = bytes(*f, first.slot);
  auto done = std::make_shared<std::atomic<bool>>(false);
  f->release_after(first.slot, std::make_unique<Flag>(done));
  const FeedBatch second = take(*f);  // the other slot
  EXPECT_NE(second.slot, first.slot);
  f->release(second.slot);
  EXPECT_EQ(f->fenced_slots(), 1u);
  EXPECT_EQ(bytes(*f, first.slot), kept);
  // Every slot is out (one held, one fenced) ... then the fence completes, and it is refilled.
  const FeedBatch third = take(*f);
  f->release_after(third.slot, std::make_unique<Flag>(std::make_shared<std::atomic<bool>>(false)));
  EXPECT_EQ(bytes(*f, first.slot), kept);
  // Both slots are fenced now: next() waits for the oldest fence (first's) and goes on.
  const FeedBatch fourth = take(*f);
  EXPECT_TRUE(*done);
  EXPECT_EQ(fourth.slot, first.slot);
  EXPECT_EQ(fourth.batch, 3u);
}

TEST(EmbeddedFeedTest, CancelEndsTheFeed) {
  auto f = open_feed(4, 0, 1);
  ASSERT_TRUE(f);
  (void)take(*f);
  f->cancel();
  auto r = f->next(10ms);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kCancelled);
}

TEST(EmbeddedFeedTest, RefusesABadPrefetchOrStart) {
  auto source = loader::SampleSource::open(kSample, {});
  ASSERT_TRUE(source.has_value());
  EmbeddedOptions o;
  o.pipeline = spec(2);
  o.prefetch = 0;
  EXPECT_EQ(EmbeddedFeed::open(*source, o).error().code(), Code::kInvalidArgument);
  o.prefetch = 65;
  EXPECT_EQ(EmbeddedFeed::open(*source, o).error().code(), Code::kInvalidArgument);
  o.prefetch = 2;
  o.batch = 5;
  EXPECT_EQ(EmbeddedFeed::open(*source, o).error().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::client
