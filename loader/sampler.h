// Sampler: which dataset indices make up batch k of rank r in epoch e. Pure arithmetic on
// (seed, epoch, dataset size): any batch of any epoch can be computed directly, which is what
// makes exact mid-epoch resume and restarting a stream at batch k possible.
//
// Semantics follow torch.utils.data.DistributedSampler + DataLoader:
//   order   = a permutation of 0..n-1 drawn from (seed, epoch) when shuffle, else 0..n-1;
//   shards  = without drop_last, order is padded by wrapping around to a multiple of world_size
//             (so every rank gets ceil(n / world_size) samples); with drop_last the tail that
//             does not divide evenly is dropped (floor(n / world_size) each);
//   rank r  = order[r], order[r + world_size], ...;
//   batches = consecutive runs of batch_size; the last, shorter one is dropped with drop_last.
// Every rank therefore has the same number of batches.
//
// Without padding (options.pad false and no drop_last, what eval mode sets): rank r gets the
// positions r, r + world_size, ... below n, so every sample appears exactly once over the ranks,
// ranks r >= n % world_size get one sample fewer (when n does not divide evenly), and the number
// of batches may then differ between ranks; a rank with no sample (world_size > n) has 0 batches.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "loader/spec.h"

namespace textfeed::loader {

// A value type: immutable after creation, safe to use from many threads.
class Sampler {
 public:
  // Errors: kInvalidArgument (empty dataset, batch_size < 1, rank outside [0, world_size)).
  static Result<Sampler> create(size_t dataset_size, const SamplerOptions& options);

  // Samples this rank sees per epoch (after padding or dropping).
  size_t samples_per_rank() const { return per_rank_; }
  // Batches this rank sees per epoch; equal for every rank unless unpadded (see above).
  size_t batches_per_epoch() const;
  // Samples of the whole epoch over all ranks, padding included (n when unpadded).
  size_t total_samples() const {
    return unpadded() ? n_ : per_rank_ * static_cast<size_t>(options_.world_size);
  }
  // How many samples padding repeats per epoch (0 with drop_last or when n divides evenly).
  size_t padded_samples() const;
  // The epoch's order before sharding (O(n); compute it once per epoch).
  std::vector<uint32_t> epoch_order(uint64_t epoch) const;
  // Dataset indices of batch `batch` of this rank, in order, given `order` = epoch_order(e).
  // `out` is resized. Errors: kInvalidArgument when batch >= batches_per_epoch() or `order`
  // does not have dataset_size() entries.
  Status batch_indices(std::span<const uint32_t> order, size_t batch, std::vector<uint32_t>& out) const;

  const SamplerOptions& options() const { return options_; }
  size_t dataset_size() const { return n_; }

 private:
  Sampler(size_t n, const SamplerOptions& o, size_t per_rank) : n_(n), options_(o), per_rank_(per_rank) {}
  // Dataset index at position `pos` of the padded epoch order.
  uint32_t at(std::span<const uint32_t> order, size_t pos) const { return order[pos % n_]; }
  bool unpadded() const { return !options_.pad && !options_.drop_last; }

  size_t n_;
  SamplerOptions options_;
  size_t per_rank_;
};

}  // namespace textfeed::loader
