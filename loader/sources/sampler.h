// Sampler: which samples make up batch k of rank r in epoch e. Pure arithmetic on (seed, epoch,
// the sources' sizes and weights): any batch of any epoch can be computed directly, which is what
// makes exact mid-epoch resume and restarting a stream at batch k possible.
//
// The index space is the sources' samples end to end: source s's sample i is index
// offset(s) + i, with offset(s) the sum of the sizes before it (one source: its own indices).
//
// An epoch's order is a list of draws, each an index and a copy number (a sample drawn twice in
// one epoch is augmented differently each time: its random stream is keyed by both):
//   - without weights: a permutation of every index drawn from (seed, epoch) when shuffle, else
//     0..n-1: the sources concatenated, as torch's ConcatDataset + RandomSampler;
//   - with weights: epoch_size draws (default: the sum of the sizes), source s's quota c_s being
//     epoch_size * w_s / sum(w) rounded by largest remainder (the floors, then one more for each of
//     the sources with the largest fractional parts until the quotas sum to epoch_size; ties go to
//     the earlier source). Source s of size n_s gives floor(c_s / n_s) whole permutations of its
//     samples and then the first c_s mod n_s of one more (so a source smaller than its share is
//     repeated, a larger one subsampled without repetition), each from its own random stream of
//     (seed, epoch); the draws of every source are then shuffled together. Without shuffle the
//     permutations are the identity: a source larger than its share gives its first samples.
//   - an elastic resume (SamplerOptions::resume) replaces the order of its epoch by the draws no
//     stage delivered, in their order (docs/design.md "Elastic resume").
// Sharding follows torch.utils.data.DistributedSampler + DataLoader, on an order of length L:
//   shards  = without drop_last, order is padded by wrapping around to a multiple of world_size
//             (so every rank gets ceil(L / world_size) samples); with drop_last the tail that
//             does not divide evenly is dropped (floor(L / world_size) each);
//   rank r  = order[r], order[r + world_size], ...;
//   batches = consecutive runs of batch_size; the last, shorter one is dropped with drop_last.
// Every rank therefore has the same number of batches.
//
// Without padding (options.pad false and no drop_last, what eval mode sets): rank r gets the
// positions r, r + world_size, ... below L, so every sample appears exactly once over the ranks,
// ranks r >= L % world_size get one sample fewer (when L does not divide evenly), and the number
// of batches may then differ between ranks; a rank with no sample (world_size > L) has 0 batches.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "base/epochs.h"
#include "base/status.h"
#include "loader/spec/spec.h"

namespace textfeed::loader {

// A draw of an epoch's order: the index in its low 32 bits, how many times the epoch drew that
// index before in its high 32 bits. The draw itself keys the sample's random stream
// (SampleProducer::produce): the index for a first copy, as with no weights, and values below 2^61
// for the others, clear of the permutation streams (sampler.cc).
inline uint32_t draw_index(uint64_t draw) { return static_cast<uint32_t>(draw); }
inline uint32_t draw_copy(uint64_t draw) { return static_cast<uint32_t>(draw >> 32); }

// A value type: immutable after creation, safe to use from many threads.
class Sampler {
 public:
  // `source_sizes`: samples per source, each > 0; `weights`: empty (concatenation) or one > 0 per
  // source. Errors: kInvalidArgument (no samples, more than 2^32 - 1, an option out of bounds, a
  // resume stage that delivered more batches than its order gives a rank, no sample for a rank
  // with drop_last).
  static Result<Sampler> create(std::vector<size_t> source_sizes, std::vector<double> weights,
                                const SamplerOptions& options);
  static Result<Sampler> create(size_t dataset_size, const SamplerOptions& options) {
    return create({dataset_size}, {}, options);
  }

  // Samples this rank sees in a whole epoch (after padding or dropping).
  size_t samples_per_rank() const { return per_rank(epoch_length_); }
  // Batches this rank sees in a whole epoch; equal for every rank unless unpadded (see above).
  size_t batches_per_epoch() const { return batches(epoch_length_); }
  // Batches of `epoch`: batches_per_epoch(), or fewer in an elastically resumed epoch.
  size_t batches_in_epoch(uint64_t epoch) const;
  // The batches of every epoch, as streams and feeds count them.
  EpochLengths epoch_lengths() const;
  // Samples of a whole epoch over all ranks, padding included (the epoch's length when unpadded).
  size_t total_samples() const {
    return options_.pad || options_.drop_last
               ? samples_per_rank() * static_cast<size_t>(options_.world_size)
               : epoch_length_;
  }
  // How many samples padding repeats per whole epoch (0 with drop_last or when it divides evenly).
  size_t padded_samples() const;
  // Draws in a whole epoch's order (the dataset size without weights).
  size_t epoch_length() const { return epoch_length_; }
  // The epoch's order before sharding (O(epoch length); compute it once per epoch).
  std::vector<uint64_t> epoch_order(uint64_t epoch) const;
  // Indices of batch `batch` of this rank, in order, given `order` = epoch_order(e), into `out`;
  // their draws into `draws` when not null. Errors: kInvalidArgument when batch is past the
  // order's batches.
  Status batch_indices(std::span<const uint64_t> order, size_t batch, std::vector<uint32_t>& out,
                       std::vector<uint64_t>* draws = nullptr) const;

  // (source, index in that source) of index `index` (< dataset_size()).
  std::pair<uint32_t, uint32_t> locate(uint32_t index) const;
  // Draws per source in a whole epoch (the sizes without weights).
  const std::vector<uint64_t>& quotas() const { return quotas_; }
  const std::vector<size_t>& source_sizes() const { return sizes_; }

  const SamplerOptions& options() const { return options_; }
  size_t dataset_size() const { return offsets_.back(); }

 private:
  Sampler() = default;
  size_t per_rank(size_t length) const;
  size_t batches(size_t length) const;
  std::vector<uint64_t> full_order(uint64_t epoch) const;
  Status apply_resume(std::vector<uint64_t>& order) const;

  std::vector<size_t> sizes_;
  std::vector<size_t> offsets_;   // sizes_.size() + 1 prefix sums
  std::vector<uint64_t> quotas_;  // empty without weights
  SamplerOptions options_;
  size_t epoch_length_ = 0;
  // The resumed epoch's order, computed (and checked) once at creation; null without resume.
  std::shared_ptr<const std::vector<uint64_t>> resumed_;
};

}  // namespace textfeed::loader
