// The random streams of mmocr's training chains (augment/mmocr/random_streams.h) against the
// libraries they reproduce. Expected values are values printed by numpy 1.24 / CPython 3.11 for
// these seeds (numpy 1.24.2, CPython 3.11.2); the imgaug draws of RecordedChainReplaysAreReproduced
// are the ones recorded by the chain goldens (golden-mmocr-chains/index.json).
#include "augment/mmocr/random_streams.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace textfeed::augment::mmocr {
namespace {

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kTwoPow31 = int64_t{1} << 31;
constexpr int64_t kTwoPow32 = int64_t{1} << 32;
constexpr int64_t kTwoPow40 = int64_t{1} << 40;

struct RangeDraw {
  int64_t lo;
  int64_t hi;
  int64_t value;
};

struct StreamStart {
  uint64_t seed;
  std::vector<double> first;
  double draw_1000;  // the 1000th value: past the first regeneration of the 624-word state
};

// ---- numpy's legacy generator ----

TEST(NumpyLegacyRandomTest, RandomSampleMatchesNumpy) {
  const std::vector<StreamStart> starts = {
      {0,
       {0.54881350392732475, 0.71518936637241948, 0.60276337607164387, 0.54488318299689686},
       0.67714114411142412},
      {42,
       {0.37454011884736249, 0.95071430640991617, 0.73199394181140509, 0.5986584841970366},
       0.44600577295795574},
      {4294967295U,
       {0.097632028994013798, 0.91238284530262181, 0.78903530185163995, 0.78000359811346776},
       0.55662685938411205},
  };
  for (const StreamStart& start : starts) {
    NumpyLegacyRandom rng(static_cast<uint32_t>(start.seed));
    for (double expected : start.first) EXPECT_EQ(rng.random_sample(), expected) << start.seed;
    for (size_t i = start.first.size() + 1; i < 1000; ++i) rng.random_sample();
    EXPECT_EQ(rng.random_sample(), start.draw_1000) << start.seed;
  }
}

TEST(NumpyLegacyRandomTest, RandintMatchesNumpyOnEdgeRanges) {
  // np.random.seed(42); then np.random.randint(lo, hi) for each range in turn: sizes 2, 2^2,
  // 2^2 + 1, negative bounds, 2^31 - 1, 2^32 (one whole output), 2^32 + 1 and 2^40 (64-bit
  // outputs), the whole int64 range and a range at its top.
  const std::vector<RangeDraw> draws = {
      {0, 2, 0},
      {0, 4, 3},
      {0, 5, 4},
      {0, 7, 6},
      {-1000, 7, -894},
      {-3, -1, -2},
      {0, kTwoPow31 - 1, 423734972},
      {0, kTwoPow32, 2563451924LL},
      {0, kTwoPow32 + 1, 1914837113},
      {0, kTwoPow40, 902372521174LL},
      {kInt64Min, kInt64Max, -8151918526507952694LL},
      {kInt64Max - 2, kInt64Max, kInt64Max - 1},
  };
  NumpyLegacyRandom rng(42);
  for (const RangeDraw& d : draws)
    EXPECT_EQ(rng.randint(d.lo, d.hi), d.value) << d.lo << " " << d.hi;
}

TEST(NumpyLegacyRandomTest, RandintOfSizeTwoIsTwoCallsInARow) {
  // np.random.seed(42); np.random.randint(-5, 300, size=2) twice: [97, 265], [101, 66].
  NumpyLegacyRandom rng(42);
  const std::vector<int64_t> expected = {97, 265, 101, 66};
  for (int64_t value : expected) EXPECT_EQ(rng.randint(-5, 300), value);
}

TEST(NumpyLegacyRandomTest, RandintOfOneValueDrawsNothing) {
  // np.random.seed(7): random_sample() is 0.0763...; after randint(5, 6) it still is, and after
  // randint(0, 2) it is not.
  NumpyLegacyRandom one_value(7);
  EXPECT_EQ(one_value.randint(5, 6), 5);
  EXPECT_EQ(one_value.random_sample(), 0.076308289373957172);
  NumpyLegacyRandom two_values(7);
  two_values.randint(0, 2);
  EXPECT_EQ(two_values.random_sample(), 0.22733907982646517);
}

// ---- Python's random module ----

TEST(PythonRandomTest, RandomMatchesCPython) {
  // Seeds of one word, of two (2^32) and the largest 64-bit one.
  const std::vector<StreamStart> starts = {
      {0, {0.84442185152504812, 0.75795440294030247, 0.420571580830845}, 0.48041253469814371},
      {1, {0.13436424411240122, 0.84743373693723267, 0.76377461897661403}, 0.70626154725513857},
      {uint64_t{1} << 32,
       {0.11299430095636409, 0.41782886486292836, 0.016676366499229101},
       0.04156870367167198},
      {std::numeric_limits<uint64_t>::max(),
       {0.021825695401270107, 0.33809532686137578, 0.21196748656082065},
       0.90099451660164442},
  };
  for (const StreamStart& start : starts) {
    PythonRandom rng(start.seed);
    for (double expected : start.first) EXPECT_EQ(rng.random(), expected) << start.seed;
    for (size_t i = start.first.size() + 1; i < 1000; ++i) rng.random();
    EXPECT_EQ(rng.random(), start.draw_1000) << start.seed;
  }
}

TEST(PythonRandomTest, RandintMatchesCPythonOnEdgeRanges) {
  // random.seed(2024); then random.randint(a, b) for each range in turn (both ends included):
  // one value, 2, 2^2, 2^2 + 1, 2^3, 2^3 + 1 values, negative bounds, 2^32 and 2^32 + 1 values
  // (two words), 2^40 + 1, the whole int64 range (2^64 values, three words) and 2^64 - 1.
  const std::vector<RangeDraw> draws = {
      {5, 5, 5},
      {0, 1, 0},
      {0, 3, 2},
      {0, 4, 1},
      {0, 7, 6},
      {0, 8, 4},
      {-9, -7, -7},
      {-1000, 6, -749},
      {0, kTwoPow32 - 1, 3157841750LL},
      {0, kTwoPow32, 1521158711},
      {0, kTwoPow40, 679541681738LL},
      {kInt64Min, kInt64Max, 3764238636245618788LL},
      {kInt64Min, kInt64Max - 1, -7845914759383471285LL},
      {kInt64Max - 1, kInt64Max, kInt64Max - 1},
  };
  PythonRandom rng(2024);
  for (const RangeDraw& d : draws)
    EXPECT_EQ(rng.randint(d.lo, d.hi), d.value) << d.lo << " " << d.hi;
}

TEST(PythonRandomTest, RandintOfOneValueStillDraws) {
  // random.seed(7): random() is 0.3238...; after randint(5, 5) it is 0.9478... (CPython draws
  // getrandbits(1) for a range of one value, unlike numpy).
  PythonRandom fresh(7);
  EXPECT_EQ(fresh.random(), 0.32383276483316237);
  PythonRandom after(7);
  EXPECT_EQ(after.randint(5, 5), 5);
  EXPECT_EQ(after.random(), 0.94786536060906323);
}

TEST(PythonRandomTest, GetrandbitsMatchesCPython) {
  // random.seed(99); then random.getrandbits(k) for k = 1, 5, 31, 32, 33, 48, 63, 64.
  const std::vector<std::pair<int, uint64_t>> draws = {
      {1, 0},
      {5, 12},
      {31, 429658751},
      {32, 2574571355ULL},
      {33, 767950141},
      {48, 37504721433070ULL},
      {63, 798545538688963576ULL},
      {64, 13448248701773115055ULL},
  };
  PythonRandom rng(99);
  for (const auto& [bits, value] : draws) EXPECT_EQ(rng.getrandbits(bits), value) << bits;
}

// ---- numpy's SeedSequence ----

struct SeedCase {
  uint64_t entropy;
  std::vector<uint32_t> spawn_key;
  std::array<uint32_t, 4> pool;
  std::vector<uint32_t> state_u32;
  std::vector<uint64_t> state_u64;
};

TEST(SeedSequenceTest, PoolAndStateMatchNumpy) {
  // SeedSequence(entropy, spawn_key).pool, .generate_state(5, np.uint32),
  // .generate_state(3, np.uint64): entropy of one and two words, spawn keys that pad the entropy.
  const std::vector<SeedCase> cases = {
      {0,
       {},
       {4265667335U, 1328953910U, 1320288413U, 3365567143U},
       {2968811710U, 3677149159U, 745650761U, 2884920346U, 2642120001U},
       {15793235383387715774ULL, 12390638538380655177ULL, 2361836109651742017ULL}},
      {42,
       {},
       {1662858758U, 128880814U, 1875164712U, 753753205U},
       {3444837047U, 2669555309U, 2046530742U, 3581440988U, 1691623607U},
       {11465652750463011511ULL, 15382171918060459190ULL, 9018504550953525431ULL}},
      {(uint64_t{1} << 40) + 7,
       {},
       {3471921077U, 2386518146U, 3093627787U, 1793934184U},
       {238885397U, 226915041U, 1322230113U, 2599373530U, 2212210947U},
       {974592680304384533ULL, 11164224302760304993ULL, 11068753026110695683ULL}},
      {42,
       {0},
       {1746818608U, 1579162102U, 586926626U, 1330660726U},
       {2684470948U, 3757501821U, 1691896351U, 1126406280U, 582891163U},
       {16138347438539916964ULL, 4837878136300915231ULL, 11281757838717630107ULL}},
      {42,
       {3, 7},
       {2956546394U, 3808200681U, 534595696U, 2853721080U},
       {958908296U, 2590339925U, 2359423284U, 3101002832U, 3497787380U},
       {11125425264357001096ULL, 13318705750602805556ULL, 911690194568871924ULL}},
      {std::numeric_limits<uint64_t>::max(),
       {1},
       {1640669090U, 2899615229U, 4180588390U, 4265437080U},
       {2744620144U, 3630152491U, 1816215874U, 932573616U, 273219630U},
       {15591386231082554480ULL, 4005373183648678210ULL, 5146037185057194030ULL}},
  };
  for (const SeedCase& c : cases) {
    const SeedSequence seq(c.entropy, c.spawn_key);
    EXPECT_EQ(seq.pool(), c.pool) << c.entropy;
    EXPECT_EQ(seq.generate_state_u32(5), c.state_u32) << c.entropy;
    EXPECT_EQ(seq.generate_state_u64(3), c.state_u64) << c.entropy;
  }
}

TEST(SeedSequenceTest, SpawnNumbersChildrenAcrossCalls) {
  // ss = SeedSequence(42); ss.spawn(1) then ss.spawn(2): spawn keys (0,), (1,), (2,).
  SeedSequence seq(42);
  const std::vector<SeedSequence> first = seq.spawn(1);
  const std::vector<SeedSequence> next = seq.spawn(2);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(first[0].spawn_key(), std::vector<uint32_t>{0});
  EXPECT_EQ(next[0].spawn_key(), std::vector<uint32_t>{1});
  EXPECT_EQ(next[1].spawn_key(), std::vector<uint32_t>{2});
  EXPECT_EQ(first[0].entropy(), 42u);
  const std::array<uint32_t, 4> pool_0 = {1746818608U, 1579162102U, 586926626U, 1330660726U};
  const std::array<uint32_t, 4> pool_2 = {2090380190U, 1516867457U, 310675112U, 1590090U};
  EXPECT_EQ(first[0].pool(), pool_0);
  EXPECT_EQ(next[1].pool(), pool_2);
}

// ---- numpy's Generator over SFC64 ----

TEST(NumpyGeneratorTest, RandomAndRawOutputsMatchNumpy) {
  // Generator(SFC64(e)): random() three times, then bit_generator.random_raw() twice.
  NumpyGenerator zero(0);
  for (double expected : {0.5686892493917326, 0.23483041728695253, 0.39642143170337907})
    EXPECT_EQ(zero.random(), expected);
  EXPECT_EQ(zero.random_raw(), 1874867651408945186ULL);
  EXPECT_EQ(zero.random_raw(), 7329937082660668956ULL);
  NumpyGenerator other(12345);
  for (double expected : {0.19120274451709907, 0.30618034325732313, 0.49135809785873485})
    EXPECT_EQ(other.random(), expected);
  EXPECT_EQ(other.random_raw(), 10578705784777203114ULL);
  EXPECT_EQ(other.random_raw(), 17470318719332186685ULL);
}

TEST(NumpyGeneratorTest, IntegersInt32MatchNumpyOnEdgeRanges) {
  // Generator(SFC64(2024)); then integers(lo, hi, dtype=np.int32) for each range in turn: one
  // value (no draw), 2, 2^2, 2^2 + 1, 2^10, 2^10 + 1, negative, imgaug's seed range, the whole
  // int32 range (2^32 values: one plain draw), 2^32 - 1 values, the top of the range.
  const std::vector<RangeDraw> draws = {
      {0, 1, 0},
      {0, 2, 1},
      {0, 4, 2},
      {0, 5, 2},
      {0, 1024, 458},
      {0, 1025, 231},
      {-5, -4, -5},
      {-100, 100, -48},
      {0, kTwoPow31 - 1, 1785973206},
      {kInt32Min, kTwoPow31, 1296274435},
      {kInt32Min, kTwoPow31 - 1, 533421752},
      {kTwoPow31 - 2, kTwoPow31, kTwoPow31 - 1},
  };
  NumpyGenerator rng(2024);
  for (const RangeDraw& d : draws)
    EXPECT_EQ(rng.integers_int32(d.lo, d.hi), d.value) << d.lo << " " << d.hi;
}

TEST(NumpyGeneratorTest, ThirtyTwoBitDrawsShareOneOutputAcrossOtherCalls) {
  // Generator(SFC64(5)): integers(0, 1000) uses the low half of an output; random() and
  // random_raw() take whole outputs and leave the high half buffered for the next integers().
  NumpyGenerator rng(5);
  EXPECT_EQ(rng.integers_int32(0, 1000), 191);
  EXPECT_EQ(rng.random(), 0.040479953705713889);
  EXPECT_EQ(rng.integers_int32(0, 1000), 683);
  EXPECT_EQ(rng.integers_int32(0, 1000), 475);
  EXPECT_EQ(rng.random_raw(), 13547891934001372951ULL);
  EXPECT_EQ(rng.integers_int32(0, 1000), 429);
  // integers(7, 8) is 7 and draws nothing: the next draw is the stream's first.
  NumpyGenerator one_value(5);
  EXPECT_EQ(one_value.integers_int32(7, 8), 7);
  EXPECT_EQ(one_value.integers_int32(0, 1000), 191);
}

TEST(NumpyGeneratorTest, UniformMatchesNumpy) {
  // Generator(SFC64(8)): uniform(-10, 10), uniform(5, 5) (a draw all the same), a range near the
  // largest double, a negative range, then random().
  NumpyGenerator rng(8);
  EXPECT_EQ(rng.uniform(-10, 10), -3.2957701744162948);
  EXPECT_EQ(rng.uniform(5, 5), 5.0);
  EXPECT_EQ(rng.uniform(-1e300, 1e300), 6.4531037527661491e+299);
  EXPECT_EQ(rng.uniform(-3.5, -1.25), -3.1915156431358125);
  EXPECT_EQ(rng.random(), 0.99419048865172888);
}

TEST(NumpyGeneratorTest, UniformRoundsTheProductBeforeTheSum) {
  // Generator(SFC64(s)).uniform(-10, 10) for s = 3, 4, 5: numpy rounds (hi - lo) * u, then adds
  // lo. A fused multiply-add (a build without -ffp-contract=off) gives another last bit on each.
  const std::vector<std::pair<uint64_t, double>> draws = {
      {3, 2.5673890072739685}, {4, -0.79224896704422498}, {5, 3.6767898508897741}};
  for (const auto& [seed, value] : draws) {
    NumpyGenerator rng(seed);
    EXPECT_EQ(rng.uniform(-10, 10), value) << seed;
  }
}

// ---- imgaug 0.4 ----

TEST(ImgaugAffineAngleTest, RecordedChainReplaysAreReproduced) {
  // psenet_000, psenet_001 and panet_000 of the chain goldens (imgaug.random.seed(seed), then
  // RandomRotate's Affine(rotate=(-10, 10))).
  struct Recorded {
    uint32_t seed;
    std::array<int32_t, 2> affine;
    std::array<int32_t, 2> sequential;
    double angle;
  };
  const std::vector<Recorded> recorded = {
      {917594527U, {402740850, 1206668522}, {937956972, 1142223524}, 9.7526178359985352},
      {1431606922U, {1691436277, 2066866548}, {1663153525, 1178921074}, -8.6234111785888672},
      {2137624838U, {1041663742, 1238136226}, {572681580, 1829649146}, 5.0798988342285156},
  };
  for (const Recorded& r : recorded) {
    const ImgaugAffineDraws draws = imgaug_affine_angle(r.seed, -10.0, 10.0);
    EXPECT_EQ(draws.derive_affine, r.affine) << r.seed;
    EXPECT_EQ(draws.derive_sequential, r.sequential) << r.seed;
    EXPECT_EQ(static_cast<double>(draws.angle_deg), r.angle) << r.seed;
  }
}

TEST(ImgaugAffineAngleTest, ConsecutiveAugmentationsContinueTheGlobalGenerator) {
  // Generator(SFC64(3)) as imgaug's global generator, four derivations in a row (numpy's
  // values): ranges (-10, 10), (-30, 30), (5, 5) (the constant, yet four int32 draws), (-10, 10).
  NumpyGenerator global(3);
  const ImgaugAffineDraws first = imgaug_affine_angle(global, -10, 10);
  EXPECT_EQ(first.derive_affine, (std::array<int32_t, 2>{252501670, 1349413118}));
  EXPECT_EQ(first.derive_sequential, (std::array<int32_t, 2>{1508257473, 1836799834}));
  EXPECT_EQ(first.angle_deg, 7.4273409843444824f);
  const ImgaugAffineDraws second = imgaug_affine_angle(global, -30, 30);
  EXPECT_EQ(second.derive_affine, (std::array<int32_t, 2>{900761257, 1684082511}));
  EXPECT_EQ(second.angle_deg, -13.270356178283691f);
  const ImgaugAffineDraws constant = imgaug_affine_angle(global, 5, 5);
  EXPECT_EQ(constant.derive_sequential, (std::array<int32_t, 2>{706799064, 930751650}));
  EXPECT_EQ(constant.angle_deg, 5.0f);
  const ImgaugAffineDraws fourth = imgaug_affine_angle(global, -10, 10);
  EXPECT_EQ(fourth.derive_affine, (std::array<int32_t, 2>{1521901768, 2080358688}));
  EXPECT_EQ(fourth.angle_deg, 6.1299357414245605f);
}

TEST(ImgaugAffineAngleTest, ASwappedRangeDrawsTheSameAngle) {
  // imgaug's Uniform(a, b) swaps a > b before drawing.
  const ImgaugAffineDraws swapped = imgaug_affine_angle(3U, 10.0, -10.0);
  EXPECT_EQ(swapped.angle_deg, 7.4273409843444824f);
  EXPECT_EQ(swapped.derive_affine, (std::array<int32_t, 2>{252501670, 1349413118}));
}

// ---- inputs the references reject ----

TEST(RandomStreamsDeathTest, EmptyOrInvalidRangesAbortNamingThem) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  NumpyLegacyRandom numpy_rng(1);
  EXPECT_DEATH(numpy_rng.randint(3, 3), "numpy randint\\(3, 3\\).*low >= high");
  EXPECT_DEATH(numpy_rng.randint(4, 3), "numpy randint\\(4, 3\\)");
  PythonRandom python_rng(1);
  EXPECT_DEATH(python_rng.randint(3, 2), "python randint\\(3, 2\\).*empty range");
  EXPECT_DEATH(python_rng.getrandbits(0), "getrandbits\\(0\\)");
  EXPECT_DEATH(python_rng.getrandbits(65), "getrandbits\\(65\\)");
  NumpyGenerator generator(1);
  EXPECT_DEATH(generator.integers_int32(3, 3), "Generator.integers\\(3, 3");
  EXPECT_DEATH(generator.integers_int32(0, kTwoPow31 + 1), "Generator.integers\\(0, 2147483649");
  EXPECT_DEATH(generator.integers_int32(kInt32Min - 1, 0), "Generator.integers\\(-2147483649, 0");
  EXPECT_DEATH(generator.uniform(1, 0), "Generator.uniform\\(1, 0\\)");
  EXPECT_DEATH(generator.uniform(-1e308, 1e308), "finite and non-negative");
  EXPECT_DEATH(imgaug_affine_angle(1U, 0.0, std::numeric_limits<double>::infinity()),
               "imgaug Affine rotate range");
}

}  // namespace
}  // namespace textfeed::augment::mmocr
