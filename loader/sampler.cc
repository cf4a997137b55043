// Sampler: epoch permutation and DDP sharding.
#include "loader/sampler.h"

#include <numeric>
#include <string>

#include "base/rng.h"

namespace textfeed::loader {

namespace {
// The per-epoch permutation draws from a stream no sample uses (sample streams are keyed by
// dataset index < 2^32).
constexpr uint64_t kPermutationStream = ~uint64_t{0};
}  // namespace

Result<Sampler> Sampler::create(size_t n, const SamplerOptions& o) {
  if (n == 0) return Status::invalid_argument("sampler: the dataset has no samples");
  if (n > UINT32_MAX) return Status::invalid_argument("sampler: more than 2^32 samples");
  if (o.batch_size < 1)
    return Status::invalid_argument("sampler: batch_size must be >= 1, got " + std::to_string(o.batch_size));
  if (o.world_size < 1 || o.rank < 0 || o.rank >= o.world_size)
    return Status::invalid_argument("sampler: need 0 <= rank < world_size, got rank " +
                                    std::to_string(o.rank) + " of " + std::to_string(o.world_size));
  const size_t w = static_cast<size_t>(o.world_size);
  const size_t r = static_cast<size_t>(o.rank);
  // Unpadded: positions r, r + w, ... below n (none when r >= n).
  const size_t per_rank = o.drop_last ? n / w : o.pad ? (n + w - 1) / w : (r < n ? (n - r + w - 1) / w : 0);
  if (per_rank == 0 && o.drop_last)
    return Status::invalid_argument("sampler: " + std::to_string(n) + " samples cannot give every one of " +
                                    std::to_string(w) + " ranks a sample with drop_last");
  return Sampler(n, o, per_rank);
}

size_t Sampler::batches_per_epoch() const {
  const size_t b = static_cast<size_t>(options_.batch_size);
  return options_.drop_last ? per_rank_ / b : (per_rank_ + b - 1) / b;
}

size_t Sampler::padded_samples() const {
  const size_t total = total_samples();
  return total > n_ ? total - n_ : 0;
}

std::vector<uint32_t> Sampler::epoch_order(uint64_t epoch) const {
  std::vector<uint32_t> order(n_);
  std::iota(order.begin(), order.end(), 0u);
  if (options_.shuffle) {
    Rng rng(options_.seed, epoch, kPermutationStream);
    for (size_t i = n_ - 1; i > 0; --i) std::swap(order[i], order[rng.below(static_cast<uint32_t>(i + 1))]);
  }
  return order;
}

Status Sampler::batch_indices(std::span<const uint32_t> order, size_t batch,
                              std::vector<uint32_t>& out) const {
  if (order.size() != n_)
    return Status::invalid_argument("sampler: epoch order has " + std::to_string(order.size()) +
                                    " entries, the dataset " + std::to_string(n_));
  const size_t nb = batches_per_epoch();
  if (batch >= nb)
    return Status::invalid_argument("sampler: batch " + std::to_string(batch) + " of an epoch with " +
                                    std::to_string(nb) + " batches");
  const size_t b = static_cast<size_t>(options_.batch_size);
  const size_t first = batch * b;
  const size_t count = std::min(b, per_rank_ - first);
  out.resize(count);
  const size_t w = static_cast<size_t>(options_.world_size), r = static_cast<size_t>(options_.rank);
  for (size_t i = 0; i < count; ++i) out[i] = at(order, (first + i) * w + r);
  return Status();
}

}  // namespace textfeed::loader
