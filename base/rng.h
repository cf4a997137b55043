// Rng: the per-sample random stream. Every random decision of a sample comes from
// Rng(seed, epoch, index), so results do not depend on thread count or completion order.
//
// The generator is MT19937 and uniform() is numpy's legacy rand() formula
// ((a >> 5) * 2^26 + (b >> 6)) / 2^53 over two consecutive outputs. Rng::numpy_legacy(s)
// seeds it exactly like numpy's np.random.seed(s) (init_genrand), so a replay consumes the same
// values as the Python reference pipelines (docs/targets.md §2.5).
#pragma once

#include <cstdint>
#include <random>

namespace textfeed {

// A value type (copyable, about 5 KB); not thread-safe: one owner per sample.
class Rng {
 public:
  // The stream of sample `index` in `epoch` for a run seeded with `seed`. The three values are
  // mixed (splitmix64) into the whole MT19937 state, so neighbouring indices are unrelated.
  Rng(uint64_t seed, uint64_t epoch, uint64_t index);

  // Bit-exact with numpy.random.seed(seed); np.random.rand().
  static Rng numpy_legacy(uint32_t seed);

  // Uniform in [0, 1) with 53 random bits (numpy's rand()). Counts as one draw.
  double uniform();
  // lo + (hi - lo) * uniform().
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform integer in [0, n), n >= 1, without modulo bias. Not counted as a draw.
  uint32_t below(uint32_t n);
  // Raw 32-bit output. Not counted as a draw.
  uint32_t next_u32() { return static_cast<uint32_t>(mt_()); }

  // Number of uniform() calls so far (what a replay compares with the reference's draw count).
  int64_t draws() const { return draws_; }

 private:
  explicit Rng(std::mt19937 mt) : mt_(mt) {}
  std::mt19937 mt_;
  int64_t draws_ = 0;
};

// splitmix64 finaliser: a bijective 64-bit mix, used to derive independent seeds.
uint64_t mix64(uint64_t x);

}  // namespace textfeed
