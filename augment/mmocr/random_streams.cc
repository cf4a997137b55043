// The streams of random_streams.h, written from the published algorithms: MT19937's reference
// seeding (init_genrand, init_by_array) and tempering; numpy's legacy double and masked bounded
// integers; CPython's getrandbits and rejection; numpy's SeedSequence hash mixing; SFC64; and
// Lemire's bounded integers as numpy's Generator applies them. docs/targets.md §9.3 says which
// reference call each function stands for.
// Built with -ffp-contract=off (augment/CMakeLists.txt): NumpyGenerator::uniform is numpy's
// lo + range * u, and a fused multiply-add there changes the last bit of some values.
#include "augment/mmocr/random_streams.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <utility>

#include "base/log.h"

namespace textfeed::augment::mmocr {
namespace {

// MT19937's parameters (Matsumoto and Nishimura's reference code).
constexpr size_t kMtShift = 397;
constexpr uint32_t kMtMatrixA = 0x9908b0dfU;
constexpr uint32_t kMtUpperMask = 0x80000000U;
constexpr uint32_t kMtLowerMask = 0x7fffffffU;
constexpr uint32_t kMtInitMultiplier = 1812433253U;
constexpr uint32_t kMtArraySeed = 19650218U;
constexpr uint32_t kMtArrayMultiplier1 = 1664525U;
constexpr uint32_t kMtArrayMultiplier2 = 1566083941U;

// A double from two 32-bit outputs, as numpy's legacy generator and CPython make it: 27 + 26 bits.
constexpr double kTwoPow26 = 67108864.0;
constexpr double kTwoPow53 = 9007199254740992.0;
double double_from_u32_pair(uint32_t a, uint32_t b) {
  return ((a >> 5) * kTwoPow26 + (b >> 6)) / kTwoPow53;
}

// numpy's SeedSequence constants (numpy/random/bit_generator.pyx).
constexpr uint32_t kSeedInitA = 0x43b0d7e5U;
constexpr uint32_t kSeedMultA = 0x931e8875U;
constexpr uint32_t kSeedInitB = 0x8b51f9ddU;
constexpr uint32_t kSeedMultB = 0x58f38dedU;
constexpr uint32_t kSeedMixMultL = 0xca01f9ddU;
constexpr uint32_t kSeedMixMultR = 0x4973f715U;
constexpr int kSeedXShift = 16;

// SFC64 as numpy seeds it: three words from the SeedSequence, the counter at 1, 12 rounds.
constexpr size_t kSfcSeedWords = 3;
constexpr int kSfcSeedRounds = 12;

// imgaug 0.4: seeds are drawn in [0, 2^31 - 1) as int32 pairs; a fresh deterministic Affine
// advances its generator once per parameter it samples before the angle (scale, translation,
// and the two ends of the angle's range).
constexpr int64_t kImgaugSeedMin = 0;
constexpr int64_t kImgaugSeedMax = (int64_t{1} << 31) - 1;
constexpr int kImgaugAdvancesBeforeAngle = 4;

constexpr int kBitsPerWord = 32;

// The 32-bit words of a non-negative integer, least significant first; 0 is one word [0]
// (numpy's _int_to_uint32_array, CPython's random_seed).
std::vector<uint32_t> words_of(uint64_t n) {
  std::vector<uint32_t> words;
  do {
    words.push_back(static_cast<uint32_t>(n));
    n >>= kBitsPerWord;
  } while (n != 0);
  return words;
}

// SeedSequence's hashmix, which carries its multiplier from call to call.
class HashMix {
 public:
  uint32_t operator()(uint32_t value) {
    value ^= hash_const_;
    hash_const_ *= kSeedMultA;
    value *= hash_const_;
    value ^= value >> kSeedXShift;
    return value;
  }

 private:
  uint32_t hash_const_ = kSeedInitA;
};

uint32_t seed_mix(uint32_t x, uint32_t y) {
  uint32_t result = kSeedMixMultL * x - kSeedMixMultR * y;
  result ^= result >> kSeedXShift;
  return result;
}

// SeedSequence.get_assembled_entropy: the entropy words, padded with zeros to the pool size when
// a spawn key follows, then the spawn key's words.
std::vector<uint32_t> assembled_entropy(uint64_t entropy, const std::vector<uint32_t>& spawn_key) {
  std::vector<uint32_t> words = words_of(entropy);
  if (!spawn_key.empty() && words.size() < SeedSequence::kPoolWords)
    words.resize(SeedSequence::kPoolWords, 0);
  words.insert(words.end(), spawn_key.begin(), spawn_key.end());
  return words;
}

// SeedSequence.mix_entropy: hash the first words into the pool, mix every pool word into every
// other, then fold in the words past the pool.
std::array<uint32_t, SeedSequence::kPoolWords> mix_entropy(const std::vector<uint32_t>& words) {
  constexpr size_t kPool = SeedSequence::kPoolWords;
  std::array<uint32_t, kPool> pool{};
  HashMix hash;
  for (size_t i = 0; i < kPool; ++i) pool[i] = hash(i < words.size() ? words[i] : 0U);
  for (size_t src = 0; src < kPool; ++src)
    for (size_t dst = 0; dst < kPool; ++dst)
      if (src != dst) pool[dst] = seed_mix(pool[dst], hash(pool[src]));
  for (size_t src = kPool; src < words.size(); ++src)
    for (size_t dst = 0; dst < kPool; ++dst) pool[dst] = seed_mix(pool[dst], hash(words[src]));
  return pool;
}

// One SFC64 step (Chris Doty-Humphrey's small fast chaotic generator, 64-bit words).
uint64_t sfc64_next(std::array<uint64_t, 4>& s) {
  constexpr int kRightShift = 11;
  constexpr int kLeftShift = 3;
  constexpr int kRotate = 24;
  const uint64_t out = s[0] + s[1] + s[3]++;
  s[0] = s[1] ^ (s[1] >> kRightShift);
  s[1] = s[2] + (s[2] << kLeftShift);
  s[2] = std::rotl(s[2], kRotate) + out;
  return out;
}

}  // namespace

namespace internal {

void Mt19937::init_genrand(uint32_t seed) {
  state_[0] = seed;
  for (size_t i = 1; i < kStateWords; ++i) {
    const uint32_t prev = state_[i - 1];
    state_[i] = kMtInitMultiplier * (prev ^ (prev >> 30)) + static_cast<uint32_t>(i);
  }
  index_ = kStateWords;
}

void Mt19937::init_by_array(std::span<const uint32_t> key) {
  TF_CHECK(!key.empty()) << "MT19937 init_by_array needs at least one key word";
  init_genrand(kMtArraySeed);
  size_t i = 1;
  size_t j = 0;
  for (size_t k = std::max(kStateWords, key.size()); k > 0; --k) {
    const uint32_t prev = state_[i - 1];
    state_[i] = (state_[i] ^ ((prev ^ (prev >> 30)) * kMtArrayMultiplier1)) + key[j] +
                static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kStateWords) {
      state_[0] = state_[kStateWords - 1];
      i = 1;
    }
    if (j >= key.size()) j = 0;
  }
  for (size_t k = kStateWords - 1; k > 0; --k) {
    const uint32_t prev = state_[i - 1];
    state_[i] =
        (state_[i] ^ ((prev ^ (prev >> 30)) * kMtArrayMultiplier2)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= kStateWords) {
      state_[0] = state_[kStateWords - 1];
      i = 1;
    }
  }
  state_[0] = kMtUpperMask;  // a non-zero state whatever the key
  index_ = kStateWords;
}

void Mt19937::twist() {
  // In place: the words at k + 397 past the end wrap onto words already renewed, as in the
  // reference's three loops.
  for (size_t k = 0; k < kStateWords; ++k) {
    const uint32_t y = (state_[k] & kMtUpperMask) | (state_[(k + 1) % kStateWords] & kMtLowerMask);
    state_[k] = state_[(k + kMtShift) % kStateWords] ^ (y >> 1) ^ ((y & 1U) != 0 ? kMtMatrixA : 0U);
  }
  index_ = 0;
}

uint32_t Mt19937::next_u32() {
  if (index_ >= kStateWords) twist();
  uint32_t y = state_[index_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= y >> 18;
  return y;
}

}  // namespace internal

// ---- numpy's legacy generator ----

NumpyLegacyRandom::NumpyLegacyRandom(uint32_t seed) { mt_.init_genrand(seed); }

double NumpyLegacyRandom::random_sample() {
  const uint32_t a = mt_.next_u32();
  const uint32_t b = mt_.next_u32();
  return double_from_u32_pair(a, b);
}

uint64_t NumpyLegacyRandom::bounded_masked(uint64_t range) {
  if (range == 0) return 0;
  const int bits = std::bit_width(range);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  uint64_t value = 0;
  if (range <= std::numeric_limits<uint32_t>::max()) {
    do {
      value = mt_.next_u32() & mask;
    } while (value > range);
    return value;
  }
  do {
    const uint64_t high = mt_.next_u32();
    value = ((high << kBitsPerWord) | mt_.next_u32()) & mask;
  } while (value > range);
  return value;
}

int64_t NumpyLegacyRandom::randint(int64_t lo, int64_t hi) {
  TF_CHECK(lo < hi) << "numpy randint(" << lo << ", " << hi
                    << "): empty range (numpy raises ValueError: low >= high)";
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) - 1;
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + bounded_masked(range));
}

// ---- Python's random module ----

PythonRandom::PythonRandom(uint64_t seed) {
  const std::vector<uint32_t> key = words_of(seed);
  mt_.init_by_array(key);
}

double PythonRandom::random() {
  const uint32_t a = mt_.next_u32();
  const uint32_t b = mt_.next_u32();
  return double_from_u32_pair(a, b);
}

uint64_t PythonRandom::getrandbits(int k) {
  TF_CHECK(k >= 1 && k <= 64) << "getrandbits(" << k << "): k must be in [1, 64]";
  if (k <= kBitsPerWord) return mt_.next_u32() >> (kBitsPerWord - k);
  const uint64_t low = mt_.next_u32();
  const uint64_t high = mt_.next_u32() >> (2 * kBitsPerWord - k);
  return low | (high << kBitsPerWord);
}

// _randbelow(width + 1), with width + 1 up to 2^64 (whose bit length, 65, takes a third word).
uint64_t PythonRandom::randbelow_one_more_than(uint64_t width) {
  if (width == std::numeric_limits<uint64_t>::max()) {
    while (true) {
      const uint64_t value = getrandbits(2 * kBitsPerWord);
      if ((mt_.next_u32() >> (kBitsPerWord - 1)) == 0) return value;  // bit 64 must be 0
    }
  }
  const uint64_t n = width + 1;
  const int k = std::bit_width(n);
  uint64_t value = getrandbits(k);
  while (value >= n) value = getrandbits(k);
  return value;
}

int64_t PythonRandom::randint(int64_t a, int64_t b) {
  TF_CHECK(a <= b) << "python randint(" << a << ", " << b
                   << "): empty range (Python raises ValueError: empty range for randrange())";
  const uint64_t width = static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
  return static_cast<int64_t>(static_cast<uint64_t>(a) + randbelow_one_more_than(width));
}

// ---- numpy's SeedSequence ----

SeedSequence::SeedSequence(uint64_t entropy, std::vector<uint32_t> spawn_key)
    : entropy_(entropy), spawn_key_(std::move(spawn_key)) {
  pool_ = mix_entropy(assembled_entropy(entropy_, spawn_key_));
}

std::vector<uint32_t> SeedSequence::generate_state_u32(size_t n_words) const {
  std::vector<uint32_t> state(n_words);
  uint32_t hash_const = kSeedInitB;
  for (size_t i = 0; i < n_words; ++i) {
    uint32_t value = pool_[i % kPoolWords];
    value ^= hash_const;
    hash_const *= kSeedMultB;
    value *= hash_const;
    value ^= value >> kSeedXShift;
    state[i] = value;
  }
  return state;
}

std::vector<uint64_t> SeedSequence::generate_state_u64(size_t n_words) const {
  const std::vector<uint32_t> halves = generate_state_u32(2 * n_words);
  std::vector<uint64_t> state(n_words);
  for (size_t i = 0; i < n_words; ++i)
    state[i] = uint64_t{halves[2 * i]} | (uint64_t{halves[2 * i + 1]} << kBitsPerWord);
  return state;
}

std::vector<SeedSequence> SeedSequence::spawn(size_t n_children) {
  std::vector<SeedSequence> children;
  children.reserve(n_children);
  for (size_t i = 0; i < n_children; ++i) {
    std::vector<uint32_t> key = spawn_key_;
    key.push_back(n_children_spawned_++);
    children.emplace_back(entropy_, std::move(key));
  }
  return children;
}

// ---- numpy's Generator over SFC64 ----

NumpyGenerator::NumpyGenerator(uint64_t entropy) : NumpyGenerator(SeedSequence(entropy)) {}

NumpyGenerator::NumpyGenerator(const SeedSequence& seed_sequence) {
  const std::vector<uint64_t> seed = seed_sequence.generate_state_u64(kSfcSeedWords);
  state_ = {seed[0], seed[1], seed[2], 1};
  for (int i = 0; i < kSfcSeedRounds; ++i) sfc64_next(state_);
}

uint64_t NumpyGenerator::random_raw() { return sfc64_next(state_); }

uint32_t NumpyGenerator::next_u32() {
  if (has_u32_) {
    has_u32_ = false;
    return u32_;
  }
  const uint64_t out = sfc64_next(state_);
  has_u32_ = true;
  u32_ = static_cast<uint32_t>(out >> kBitsPerWord);
  return static_cast<uint32_t>(out);
}

double NumpyGenerator::random() {
  constexpr int kDropBits = 11;
  return static_cast<double>(sfc64_next(state_) >> kDropBits) * (1.0 / kTwoPow53);
}

double NumpyGenerator::uniform(double lo, double hi) {
  const double range = hi - lo;
  TF_CHECK(std::isfinite(range) && range >= 0)
      << "Generator.uniform(" << lo << ", " << hi
      << "): high - low must be finite and non-negative (numpy raises there)";
  return lo + range * random();
}

// Lemire's nearly divisionless bounded integer in [0, range], range < 2^32 - 1: the high half of
// a 32 x 32-bit product, rejecting low halves below 2^32 mod (range + 1).
uint32_t NumpyGenerator::bounded_lemire(uint32_t range) {
  const uint32_t range_excl = range + 1;
  uint64_t product = uint64_t{next_u32()} * range_excl;
  auto leftover = static_cast<uint32_t>(product);
  if (leftover < range_excl) {
    const uint32_t threshold = (std::numeric_limits<uint32_t>::max() - range) % range_excl;
    while (leftover < threshold) {
      product = uint64_t{next_u32()} * range_excl;
      leftover = static_cast<uint32_t>(product);
    }
  }
  return static_cast<uint32_t>(product >> kBitsPerWord);
}

int32_t NumpyGenerator::integers_int32(int64_t lo, int64_t hi) {
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kEnd = int64_t{std::numeric_limits<int32_t>::max()} + 1;
  TF_CHECK(kMin <= lo && lo < hi && hi <= kEnd)
      << "Generator.integers(" << lo << ", " << hi
      << ", dtype=int32): needs INT32_MIN <= low < high <= 2^31 (numpy raises ValueError)";
  const auto range = static_cast<uint32_t>(hi - 1 - lo);
  const auto offset = static_cast<uint32_t>(lo);
  if (range == 0) return static_cast<int32_t>(lo);
  if (range == std::numeric_limits<uint32_t>::max())
    return static_cast<int32_t>(offset + next_u32());
  return static_cast<int32_t>(offset + bounded_lemire(range));
}

// ---- imgaug 0.4 ----

ImgaugAffineDraws imgaug_affine_angle(NumpyGenerator& global, double lo, double hi) {
  TF_CHECK(std::isfinite(lo) && std::isfinite(hi))
      << "imgaug Affine rotate range (" << lo << ", " << hi << ") must be finite";
  ImgaugAffineDraws draws;
  // to_deterministic derives the child (Affine) first, then the Sequential; each derivation
  // draws two int32 seeds and keeps the second.
  for (int32_t& seed : draws.derive_affine)
    seed = global.integers_int32(kImgaugSeedMin, kImgaugSeedMax);
  for (int32_t& seed : draws.derive_sequential)
    seed = global.integers_int32(kImgaugSeedMin, kImgaugSeedMax);
  SeedSequence parent(static_cast<uint64_t>(draws.derive_affine[1]));
  NumpyGenerator affine(parent.spawn(1)[0]);
  for (int i = 0; i < kImgaugAdvancesBeforeAngle; ++i) affine.random();
  if (lo > hi) std::swap(lo, hi);
  draws.angle_deg = static_cast<float>(lo == hi ? lo : affine.uniform(lo, hi));
  return draws;
}

ImgaugAffineDraws imgaug_affine_angle(uint32_t seed, double lo, double hi) {
  NumpyGenerator global(seed);
  return imgaug_affine_angle(global, lo, hi);
}

}  // namespace textfeed::augment::mmocr
