// The random streams mmocr 1.x's training chains draw from, reproduced bit for bit so that a
// chain seeded like the reference takes the same decisions (docs/targets.md §9.3):
// - numpy's legacy global generator (np.random.seed / random_sample / rand / randint),
// - Python's random module (random.seed(int) / random / randint),
// - numpy's Generator over SFC64 seeded through SeedSequence, which imgaug 0.4 uses for the
//   angle of PSENet's and PANet's RandomRotate (imgaug_affine_angle below).
// All are value types (copyable state, no globals); none is thread-safe: one owner per stream.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace textfeed::augment::mmocr {

namespace internal {

// MT19937 (Matsumoto and Nishimura, 1998), the engine under numpy's legacy generator and Python's
// random module; the two differ only in how they seed it and how they bound integers.
class Mt19937 {
 public:
  static constexpr size_t kStateWords = 624;

  // The reference init_genrand: numpy's np.random.seed(seed) for an integer seed.
  void init_genrand(uint32_t seed);
  // The reference init_by_array: Python's random.seed(n) with n's 32-bit words. `key` must not
  // be empty (Python passes [0] for 0).
  void init_by_array(std::span<const uint32_t> key);
  // The next tempered 32-bit output.
  uint32_t next_u32();

 private:
  void twist();

  std::array<uint32_t, kStateWords> state_{};
  size_t index_ = kStateWords;
};

}  // namespace internal

// numpy's legacy generator (np.random.RandomState, the np.random.* functions) after
// np.random.seed(seed), as numpy 1.24 draws from it.
class NumpyLegacyRandom {
 public:
  explicit NumpyLegacyRandom(uint32_t seed);

  // np.random.random_sample() (also np.random.rand()): two 32-bit outputs a, b give
  // ((a >> 5) * 2^26 + (b >> 6)) / 2^53, uniform in [0, 1).
  double random_sample();

  // np.random.randint(lo, hi): uniform in [lo, hi) by masked rejection (32-bit outputs while
  // hi - lo - 1 fits in 32 bits, else 64-bit outputs made of two, the first one high). When
  // hi - lo == 1 it returns lo and draws nothing. randint(lo, hi, size=n) is n calls in a row.
  // Requires lo < hi: numpy raises ValueError("low >= high") there, so a caller whose range comes
  // from data checks it first and reports what the reference would (this aborts, naming it).
  int64_t randint(int64_t lo, int64_t hi);

 private:
  uint64_t bounded_masked(uint64_t range);

  internal::Mt19937 mt_;
};

// Python's random.Random after random.seed(seed) for an integer seed (CPython 3.11).
class PythonRandom {
 public:
  explicit PythonRandom(uint64_t seed);

  // random.random(): the same formula as numpy's random_sample() over two 32-bit outputs.
  double random();

  // random.randint(a, b): uniform in [a, b] (both ends included) by rejection: with n = b - a + 1
  // and k its bit length, getrandbits(k) until it is below n. Unlike numpy it draws even when
  // a == b. Requires a <= b: Python raises ValueError("empty range for randrange()") there, so a
  // caller whose range comes from data checks it first (this aborts, naming it).
  int64_t randint(int64_t a, int64_t b);

  // random.getrandbits(k) for 1 <= k <= 64: k bits from ceil(k / 32) outputs, the first output
  // the least significant word, the last one shifted right to its remaining bits.
  uint64_t getrandbits(int k);

 private:
  uint64_t randbelow_one_more_than(uint64_t width);

  internal::Mt19937 mt_;
};

// numpy's SeedSequence (numpy 1.24, pool size 4): hashes an entropy integer and a spawn key into a
// pool of four 32-bit words, from which it generates seeding words for bit generators.
// A value type; spawn() is the only mutating method.
class SeedSequence {
 public:
  static constexpr size_t kPoolWords = 4;

  // np.random.SeedSequence(entropy, spawn_key=tuple(spawn_key)).
  explicit SeedSequence(uint64_t entropy, std::vector<uint32_t> spawn_key = {});

  // SeedSequence.generate_state(n_words, np.uint32) / (n_words, np.uint64); a uint64 word is two
  // consecutive uint32 words, the first one low.
  std::vector<uint32_t> generate_state_u32(size_t n_words) const;
  std::vector<uint64_t> generate_state_u64(size_t n_words) const;

  // SeedSequence.spawn(n): children with spawn keys spawn_key + (i,), i counting the children
  // spawned so far (so a second spawn(1) gives a different child).
  std::vector<SeedSequence> spawn(size_t n_children);

  const std::array<uint32_t, kPoolWords>& pool() const { return pool_; }
  uint64_t entropy() const { return entropy_; }
  const std::vector<uint32_t>& spawn_key() const { return spawn_key_; }

 private:
  uint64_t entropy_;
  std::vector<uint32_t> spawn_key_;
  std::array<uint32_t, kPoolWords> pool_{};
  uint32_t n_children_spawned_ = 0;
};

// np.random.Generator(np.random.SFC64(seed)), numpy 1.24: Chris Doty-Humphrey's SFC64 with its
// state from SeedSequence.generate_state(3, np.uint64), and numpy's 32-bit output buffer (a 64-bit
// output serves two 32-bit draws, low half first; 64-bit and double draws bypass the buffer).
class NumpyGenerator {
 public:
  // Generator(SFC64(entropy)), i.e. seeded through SeedSequence(entropy).
  explicit NumpyGenerator(uint64_t entropy);
  // Generator(SFC64(seed_sequence)).
  explicit NumpyGenerator(const SeedSequence& seed_sequence);

  // Generator.integers(lo, hi, dtype=np.int32): uniform in [lo, hi). With r = hi - lo - 1: r = 0
  // returns lo and draws nothing; r = 2^32 - 1 is one 32-bit draw; otherwise Lemire's multiply
  // and reject over buffered 32-bit draws. size=n is n calls in a row. Requires
  // INT32_MIN <= lo < hi <= 2^31 (numpy raises ValueError outside; this aborts, naming it).
  int32_t integers_int32(int64_t lo, int64_t hi);

  // Generator.random(): (64-bit output >> 11) / 2^53, uniform in [0, 1).
  double random();

  // Generator.uniform(lo, hi): lo + (hi - lo) * random(); one draw even when lo == hi.
  // Requires hi - lo finite and >= 0 (numpy raises OverflowError / ValueError otherwise).
  double uniform(double lo, double hi);

  // bit_generator.random_raw(): the next 64-bit SFC64 output (the 32-bit buffer is untouched).
  uint64_t random_raw();

 private:
  uint32_t next_u32();
  uint32_t bounded_lemire(uint32_t range);

  std::array<uint64_t, 4> state_{};
  bool has_u32_ = false;
  uint32_t u32_ = 0;
};

// What imgaug 0.4 draws for Sequential([Affine(rotate=(lo, hi))]).to_deterministic() and one
// augmentation: the global generator's int32 pairs that derive the Affine's and the Sequential's
// generators, and the rotation angle in degrees (imgaug's float32, clockwise on screen).
struct ImgaugAffineDraws {
  std::array<int32_t, 2> derive_affine{};
  std::array<int32_t, 2> derive_sequential{};
  float angle_deg = 0.0f;
};

// The derivation on imgaug's global generator `global`, which it advances (four int32 draws and
// their rejections): the Affine child is Generator(SFC64(SeedSequence(derive_affine[1])
// .spawn(1)[0])); the child advances four times (one random() each), then the angle is
// float32(uniform(lo, hi)). As imgaug's Uniform, lo > hi are swapped and lo == hi gives lo.
// Requires finite lo and hi (imgaug would fail in numpy; this aborts, naming them).
ImgaugAffineDraws imgaug_affine_angle(NumpyGenerator& global, double lo, double hi);

// The same with the global generator seeded by imgaug.random.seed(seed), i.e.
// Generator(SFC64(seed)): the per-replay protocol of the chain goldens.
ImgaugAffineDraws imgaug_affine_angle(uint32_t seed, double lo, double hi);

}  // namespace textfeed::augment::mmocr
