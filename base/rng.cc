// Rng: seeding and numpy-compatible uniform draws.
#include "base/rng.h"

#include <array>

namespace textfeed {

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

namespace {

std::mt19937 derived_engine(uint64_t seed, uint64_t epoch, uint64_t index) {
  // Domain-separate the three inputs, then expand to 8 words for seed_seq.
  uint64_t h = mix64(seed ^ 0x7465787466656564ULL);  // "textfeed"
  h = mix64(h ^ epoch);
  h = mix64(h ^ (index * 0xd6e8feb86659fd93ULL));
  std::array<uint32_t, 8> words{};
  for (size_t i = 0; i < words.size(); ++i) {
    h = mix64(h + i);
    words[i] = static_cast<uint32_t>(h >> 32);
  }
  std::seed_seq seq(words.begin(), words.end());
  return std::mt19937(seq);
}

}  // namespace

Rng::Rng(uint64_t seed, uint64_t epoch, uint64_t index) : mt_(derived_engine(seed, epoch, index)) {}

Rng Rng::numpy_legacy(uint32_t seed) { return Rng(std::mt19937(seed)); }

double Rng::uniform() {
  const uint32_t a = static_cast<uint32_t>(mt_()) >> 5;
  const uint32_t b = static_cast<uint32_t>(mt_()) >> 6;
  ++draws_;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

uint32_t Rng::below(uint32_t n) {
  // Lemire's nearly divisionless method.
  uint64_t m = static_cast<uint64_t>(next_u32()) * n;
  uint32_t low = static_cast<uint32_t>(m);
  if (low < n) {
    const uint32_t threshold = static_cast<uint32_t>(-n) % n;
    while (low < threshold) {
      m = static_cast<uint64_t>(next_u32()) * n;
      low = static_cast<uint32_t>(m);
    }
  }
  return static_cast<uint32_t>(m >> 32);
}

}  // namespace textfeed
