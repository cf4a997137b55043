// Sampler: DistributedSampler semantics, determinism and exact coverage across ranks.
#include "loader/sources/sampler.h"

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
  EXPECT_EQ(batches[0], 2u);   // 6 samples in batches of 4: 4 + 2
  ASSERT_EQ(count.size(), n);  // every sample at least once
  int twice = 0;
  for (auto& [idx, c] : count) {
    EXPECT_LE(c, 2) << idx;
    twice += (c == 2);
  }
  EXPECT_EQ(twice, 1);  // exactly the padding
}

TEST(SamplerTest, DropLastDropsTheUnevenTailAndShortBatch) {
  auto s = Sampler::create(
      11, {.seed = 1, .batch_size = 4, .rank = 1, .world_size = 2, .drop_last = true});
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
        SamplerOptions o{
            .seed = 9, .batch_size = 3, .rank = rank, .world_size = world, .shuffle = false};
        o.pad = false;
        auto s = Sampler::create(n, o);
        ASSERT_TRUE(s.has_value()) << n << " " << world;
        const size_t expected = static_cast<size_t>(rank) < n ? (n - rank + world - 1) / world : 0;
        EXPECT_EQ(s->samples_per_rank(), expected);
        EXPECT_EQ(s->batches_per_epoch(), (expected + 2) / 3);
        EXPECT_EQ(s->padded_samples(), 0u);
        const std::vector<uint32_t> seen = all_batches(*s, 4);
        ASSERT_EQ(seen.size(), expected);
        for (size_t k = 0; k < seen.size(); ++k)
          EXPECT_EQ(seen[k], rank + k * world);  // dataset order
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

// Every rank's batches of `epoch`, for world size `w` (the other options from `o`).
std::map<uint32_t, int> counts_over_ranks(const std::vector<size_t>& sizes,
                                          const std::vector<double>& weights, SamplerOptions o,
                                          uint64_t epoch, std::vector<size_t>* per_rank = nullptr) {
  std::map<uint32_t, int> count;
  for (int r = 0; r < o.world_size; ++r) {
    o.rank = r;
    auto s = Sampler::create(sizes, weights, o);
    EXPECT_TRUE(s.has_value()) << (s.has_value() ? "" : s.error().message());
    if (!s.has_value()) return count;
    std::vector<uint32_t> seen, batch;
    const auto order = s->epoch_order(epoch);
    for (size_t b = 0; b < s->batches_in_epoch(epoch); ++b) {
      EXPECT_TRUE(s->batch_indices(order, b, batch).ok());
      seen.insert(seen.end(), batch.begin(), batch.end());
    }
    if (per_rank) per_rank->push_back(seen.size());
    for (uint32_t i : seen) ++count[i];
  }
  return count;
}

TEST(SamplerTest, UnweightedSourcesConcatenateAndTwoRanksCoverEachSampleOnce) {
  std::vector<size_t> per_rank;
  const auto count =
      counts_over_ranks({5, 7}, {}, {.seed = 4, .batch_size = 4, .world_size = 2}, 2, &per_rank);
  ASSERT_EQ(count.size(), 12u);
  for (const auto& [index, c] : count) EXPECT_EQ(c, 1) << index;
  EXPECT_EQ(per_rank, (std::vector<size_t>{6, 6}));
}

TEST(SamplerTest, OneSourceGivesTheSameOrderAsBefore) {
  // A single unweighted source keeps the order it always had (batches stay byte-identical).
  auto a = Sampler::create(50, {.seed = 7});
  auto b = Sampler::create({50}, {}, {.seed = 7});
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(a->epoch_order(3), b->epoch_order(3));
}

TEST(SamplerTest, LocateMapsAnIndexToItsSourceAndIndexThere) {
  auto s = Sampler::create({5, 7, 1}, {}, {});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->locate(0), (std::pair<uint32_t, uint32_t>{0, 0}));
  EXPECT_EQ(s->locate(4), (std::pair<uint32_t, uint32_t>{0, 4}));
  EXPECT_EQ(s->locate(5), (std::pair<uint32_t, uint32_t>{1, 0}));
  EXPECT_EQ(s->locate(12), (std::pair<uint32_t, uint32_t>{2, 0}));
}

TEST(SamplerTest, QuotasRoundByLargestRemainder) {
  auto s = Sampler::create({10, 10, 10}, {1, 1, 1}, {.epoch_size = 10});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->quotas(),
            (std::vector<uint64_t>{4, 3, 3}));  // 3.33 each: the first gets the one left
  auto t = Sampler::create({4, 40}, {1, 3}, {});
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->quotas(), (std::vector<uint64_t>{11, 33}));  // 44 draws in 1:3
  auto u = Sampler::create({4, 40}, {2, 1}, {.epoch_size = 7});
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->quotas(),
            (std::vector<uint64_t>{5, 2}));  // 4.67 and 2.33: the larger remainder first
}

TEST(SamplerTest, WeightedEpochRepeatsTheSmallSourceAndSubsamplesTheLargeOne) {
  // Sources of 10 and 30 with weights 3:1 over an epoch of 40: 30 draws of the first (each of its
  // samples 3 times), 10 of the second (10 different ones).
  const SamplerOptions o{.seed = 11, .batch_size = 5, .world_size = 2};
  std::vector<size_t> per_rank;
  const auto count = counts_over_ranks({10, 30}, {3, 1}, o, 1, &per_rank);
  EXPECT_EQ(per_rank, (std::vector<size_t>{20, 20}));
  int first = 0, second = 0;
  for (const auto& [index, c] : count) {
    if (index < 10) {
      EXPECT_EQ(c, 3) << index;
      first += c;
    } else {
      EXPECT_EQ(c, 1) << index;
      second += c;
    }
  }
  EXPECT_EQ(first, 30);
  EXPECT_EQ(second, 10);
  // The copies of a sample are different draws, so they are augmented differently.
  auto s = Sampler::create({10, 30}, {3, 1}, o);
  ASSERT_TRUE(s.has_value());
  std::map<uint32_t, std::vector<uint32_t>> copies;
  for (uint64_t d : s->epoch_order(1)) copies[draw_index(d)].push_back(draw_copy(d));
  for (auto& [index, c] : copies) {
    std::sort(c.begin(), c.end());
    if (index < 10) {
      EXPECT_EQ(c, (std::vector<uint32_t>{0, 1, 2})) << index;
    }
  }
}

TEST(SamplerTest, WeightedOrdersDifferPerEpochAndRepeatPerSeed) {
  auto a = Sampler::create({10, 30}, {3, 1}, {.seed = 2});
  auto b = Sampler::create({10, 30}, {3, 1}, {.seed = 2});
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(a->epoch_order(5), b->epoch_order(5));
  EXPECT_NE(a->epoch_order(5), a->epoch_order(6));
  // The subsample of the larger source changes from epoch to epoch too.
  auto picked = [&](uint64_t e) {
    std::vector<uint32_t> v;
    for (uint64_t d : a->epoch_order(e))
      if (draw_index(d) >= 10) v.push_back(draw_index(d));
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_NE(picked(5), picked(6));
}

TEST(SamplerTest, RejectsWeightsThatDoNotFit) {
  EXPECT_FALSE(Sampler::create({10, 10}, {1}, {}).has_value());
  EXPECT_FALSE(Sampler::create({10, 10}, {1, 0}, {}).has_value());
  EXPECT_FALSE(Sampler::create({10, 0}, {}, {}).has_value());
  EXPECT_FALSE(
      Sampler::create({10}, {}, {.epoch_size = 5}).has_value());  // epoch_size needs weights
}

// The samples ranks 0..w-1 of stage (w, b) delivered in their first `k` batches of `order`.
TEST(SamplerTest, ElasticResumeDeliversExactlyWhatNoRankDelivered) {
  const size_t n = 24;
  const SamplerOptions before{.seed = 3, .batch_size = 3, .world_size = 2};
  std::map<uint32_t, int> delivered;
  for (int r = 0; r < 2; ++r) {  // two batches on each of the 2 ranks: 12 samples
    SamplerOptions o = before;
    o.rank = r;
    auto s = Sampler::create(n, o);
    ASSERT_TRUE(s.has_value());
    std::vector<uint32_t> batch;
    const auto order = s->epoch_order(4);
    for (size_t b = 0; b < 2; ++b) {
      ASSERT_TRUE(s->batch_indices(order, b, batch).ok());
      for (uint32_t i : batch) ++delivered[i];
    }
  }
  ASSERT_EQ(delivered.size(), 12u);
  for (int w : {1, 3, 4}) {
    SamplerOptions after{.seed = 3, .batch_size = 2, .world_size = w};
    after.resume = {4, {{2, 3, {2}}}};
    std::vector<size_t> per_rank;
    const auto rest = counts_over_ranks({n}, {}, after, 4, &per_rank);
    EXPECT_EQ(rest.size(), 12u) << w;
    for (const auto& [index, c] : rest) {
      EXPECT_EQ(c, 1) << "world size " << w << " index " << index;
      EXPECT_EQ(delivered.count(index), 0u) << "world size " << w << " index " << index;
    }
    // The epoch after the resumed one is whole again.
    const auto next = counts_over_ranks({n}, {}, after, 5);
    EXPECT_EQ(next.size(), n) << w;
  }
}

TEST(SamplerTest, ElasticResumeChainsStagesAndTakesPerRankCounts) {
  // 30 samples: 2 ranks of batch 4 deliver 1 and 2 batches (not in step), then 3 ranks of batch 2
  // deliver 1 batch each, then one rank takes the rest.
  const size_t n = 30;
  std::map<uint32_t, int> seen;
  auto take = [&](SamplerOptions o, const std::vector<uint64_t>& batches_per_rank) {
    for (int r = 0; r < o.world_size; ++r) {
      o.rank = r;
      auto s = Sampler::create(n, o);
      ASSERT_TRUE(s.has_value()) << s.error().message();
      std::vector<uint32_t> batch;
      const auto order = s->epoch_order(0);
      for (size_t b = 0; b < batches_per_rank[r]; ++b) {
        ASSERT_TRUE(s->batch_indices(order, b, batch).ok());
        for (uint32_t i : batch) ++seen[i];
      }
    }
  };
  SamplerOptions o{.seed = 8, .batch_size = 4, .world_size = 2};
  take(o, {1, 2});
  o = {.seed = 8, .batch_size = 2, .world_size = 3};
  o.resume = {0, {{2, 4, {1, 2}}}};
  take(o, {1, 1, 1});
  o = {.seed = 8, .batch_size = 5, .world_size = 1};
  o.resume = {0, {{2, 4, {1, 2}}, {3, 2, {1}}}};
  auto last = Sampler::create(n, o);
  ASSERT_TRUE(last.has_value());
  take(o, {last->batches_in_epoch(0)});
  ASSERT_EQ(seen.size(), n);
  for (const auto& [index, c] : seen) EXPECT_EQ(c, 1) << index;
}

TEST(SamplerTest, ElasticResumeRefusesAStageThatDeliveredMoreThanItHad) {
  SamplerOptions o{.batch_size = 2};
  o.resume = {0, {{2, 4, {4}}}};  // 10 samples on 2 ranks of batch 4: 2 batches each, not 4
  auto s = Sampler::create(10, o);
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message().find("delivered 4 batches"), std::string::npos)
      << s.error().message();
  o.resume = {0, {{2, 4, {1, 1, 1}}}};  // 3 counts for 2 ranks
  EXPECT_FALSE(Sampler::create(10, o).has_value());
}

TEST(SamplerTest, AResumeThatLeftNothingGivesAnEpochOfNoBatches) {
  SamplerOptions o{.batch_size = 2};
  o.resume = {6, {{1, 5, {2}}}};  // one rank took all 10
  auto s = Sampler::create(10, o);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->batches_in_epoch(6), 0u);
  EXPECT_EQ(s->batches_in_epoch(7), 5u);
  const EpochLengths e = s->epoch_lengths();
  EXPECT_EQ(e.normalize(6, 0), (std::pair<uint64_t, uint64_t>{7, 0}));
}

}  // namespace textfeed::loader
