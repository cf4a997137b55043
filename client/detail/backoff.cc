// Backoff's waits.
#include "client/detail/backoff.h"

#include <algorithm>

namespace textfeed::client::internal {

Backoff::Backoff(std::chrono::milliseconds first, std::chrono::milliseconds max, double jitter,
                 uint64_t seed)
    : first_(first), max_(max), base_(first), jitter_(jitter), rng_(seed) {}

std::chrono::milliseconds Backoff::next() {
  const double factor =
      jitter_ > 0 ? std::uniform_real_distribution<double>(1 - jitter_, 1 + jitter_)(rng_) : 1.0;
  const auto wait =
      std::chrono::milliseconds(static_cast<int64_t>(static_cast<double>(base_.count()) * factor));
  base_ = std::min(base_ * 2, max_);
  return std::max(wait, std::chrono::milliseconds(1));
}

}  // namespace textfeed::client::internal
