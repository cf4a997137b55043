// Sampler: DistributedSampler semantics, determinism and exact coverage across ranks.
#include "loader/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace textfeed::loader {
namespace {

std::vector<uint32_t> all_batches(const Sampler& s, uint64_t epoch) {
  std::vector<uint32_t> seen, batch;
  const auto order = s.epoch_order(epoch);
  for (size_t b = 0; b < s.batches_per_epoch(); ++b) {
    EXPECT_TRUE(s.batch_indices(order, b, batch).ok());
    seen.insert(seen.end(), batch.begin(), batch.end());
  }
  return seen;
}

TEST(SamplerTest, TwoRanksCoverTheEpochOncePlusPadding) {
  const size_t n = 11;
  std::map<uint32_t, int> count;
  size_t batches[2];
  for (int rank = 0; rank < 2; ++rank) {
    auto s = Sampler::create(n, {.seed = 5, .batch_size = 4, .rank = rank, .world_size = 2});
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->samples_per_rank(), 6u);
    EXPECT_EQ(s->padded_samples(), 1u);
    batches[rank] = s->batches_per_epoch();
    for (uint32_t i : all_batches(*s, 3)) ++count[i];
  }
  EXPECT_EQ(batches[0], batches[1]);
  EXPECT_EQ(batches[0], 2u);  // 6 samples in batches of 4: 4 + 2
  ASSERT_EQ(count.size(), n);  // every sample at least once
  int twice = 0;
  for (auto& [idx, c] : count) {
    EXPECT_LE(c, 2) << idx;
    twice += (c == 2);
  }
  EXPECT_EQ(twice, 1);  // exactly the padding
}

TEST(SamplerTest, DropLastDropsTheUnevenTailAndShortBatch) {
  auto s = Sampler::create(11, {.seed = 1, .batch_size = 4, .rank = 1, .world_size = 2, .drop_last = true});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->samples_per_rank(), 5u);
  EXPECT_EQ(s->batches_per_epoch(), 1u);
  EXPECT_EQ(s->padded_samples(), 0u);
  EXPECT_EQ(all_batches(*s, 0).size(), 4u);
}

TEST(SamplerTest, SameSeedSameOrderNewEpochNewOrder) {
  auto a = Sampler::create(1000, {.seed = 9});
  auto b = Sampler::create(1000, {.seed = 9});
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(a->epoch_order(4), b->epoch_order(4));
  EXPECT_NE(a->epoch_order(4), a->epoch_order(5));
  auto o = a->epoch_order(4);
  std::sort(o.begin(), o.end());
  for (uint32_t i = 0; i < 1000; ++i) ASSERT_EQ(o[i], i);
}

TEST(SamplerTest, NoShuffleIsIdentityInterleavedByRank) {
  auto s = Sampler::create(6, {.batch_size = 2, .rank = 1, .world_size = 2, .shuffle = false});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(all_batches(*s, 7), (std::vector<uint32_t>{1, 3, 5}));
}

TEST(SamplerTest, AnyBatchCanBeComputedDirectly) {
  auto s = Sampler::create(100, {.seed = 2, .batch_size = 8});
  ASSERT_TRUE(s.has_value());
  const auto all = all_batches(*s, 1);
  std::vector<uint32_t> batch;
  ASSERT_TRUE(s->batch_indices(s->epoch_order(1), 5, batch).ok());
  EXPECT_EQ(batch, std::vector<uint32_t>(all.begin() + 40, all.begin() + 48));
  EXPECT_FALSE(s->batch_indices(s->epoch_order(1), s->batches_per_epoch(), batch).ok());
}

TEST(SamplerTest, RejectsBadOptions) {
  EXPECT_FALSE(Sampler::create(0, {}).has_value());
  EXPECT_FALSE(Sampler::create(10, {.batch_size = 0}).has_value());
  EXPECT_FALSE(Sampler::create(10, {.rank = 2, .world_size = 2}).has_value());
  EXPECT_FALSE(Sampler::create(1, {.world_size = 2, .drop_last = true}).has_value());
}

TEST(SamplerTest, PermutationIsUniform) {
  // Where does element 0 land in a 4-element permutation? Uniform over 4 positions.
  auto s = Sampler::create(4, {.seed = 3});
  ASSERT_TRUE(s.has_value());
  int pos[4] = {};
  const int n = 20000;
  for (int e = 0; e < n; ++e) {
    auto o = s->epoch_order(e);
    ++pos[std::find(o.begin(), o.end(), 0u) - o.begin()];
  }
  double chi2 = 0;
  for (int c : pos) chi2 += (c - n / 4.0) * (c - n / 4.0) / (n / 4.0);
  EXPECT_LT(chi2, 11.34);  // 3 dof, alpha 0.01
}

// Eval's sharding: dataset order, rank r at positions r, r + W, ...; every sample exactly once over
// the ranks, the later ranks one fewer, nothing padded, dropped or shuffled.
TEST(SamplerTest, UnpaddedShardsCoverEverySampleExactlyOnce) {
  for (const size_t n : {1u, 2u, 7u, 10u, 11u, 12u}) {
    for (const int world : {1, 2, 3, 5}) {
      std::map<uint32_t, int> count;
      for (int rank = 0; rank < world; ++rank) {
        SamplerOptions o{.seed = 9, .batch_size = 3, .rank = rank, .world_size = world, .shuffle = false};
        o.pad = false;
        auto s = Sampler::create(n, o);
        ASSERT_TRUE(s.has_value()) << n << " " << world;
        const size_t expected = static_cast<size_t>(rank) < n ? (n - rank + world - 1) / world : 0;
        EXPECT_EQ(s->samples_per_rank(), expected);
        EXPECT_EQ(s->batches_per_epoch(), (expected + 2) / 3);
        EXPECT_EQ(s->padded_samples(), 0u);
        const std::vector<uint32_t> seen = all_batches(*s, 4);
        ASSERT_EQ(seen.size(), expected);
        for (size_t k = 0; k < seen.size(); ++k) EXPECT_EQ(seen[k], rank + k * world);  // dataset order
        for (uint32_t i : seen) ++count[i];
      }
      ASSERT_EQ(count.size(), n) << n << " over " << world;
      for (auto& [idx, c] : count) EXPECT_EQ(c, 1) << idx;
    }
  }
}

TEST(SamplerTest, EvalSpecTurnsOffShufflePaddingAndDropLast) {
  PipelineSpec spec = default_spec(augment::Profile::kUpstage, "x");
  spec.sampler.drop_last = true;
  spec.mode = Mode::kEval;
  const PipelineSpec e = effective_spec(spec);
  EXPECT_FALSE(e.sampler.shuffle);
  EXPECT_FALSE(e.sampler.drop_last);
  EXPECT_FALSE(e.sampler.pad);
  spec.mode = Mode::kTrain;
  EXPECT_EQ(effective_spec(spec).sampler, spec.sampler);
}

TEST(SamplerTest, ABatchPastAnUnpaddedRanksEndIsRefused) {
  SamplerOptions o{.batch_size = 2, .rank = 4, .world_size = 5, .shuffle = false};
  o.pad = false;
  auto s = Sampler::create(3, o);  // rank 4 of 5 over 3 samples: none
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->batches_per_epoch(), 0u);
  std::vector<uint32_t> out;
  EXPECT_EQ(s->batch_indices(s->epoch_order(0), 0, out).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace textfeed::loader
