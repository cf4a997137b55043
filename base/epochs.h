// EpochLengths: how many batches each epoch of a stream has. Every epoch has `per_epoch`, except
// the one an elastic resume picked up (loader/sources/sampler.h), which has the batches left of it
// — maybe none, in which case a position in it moves on to the next epoch.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "base/status.h"

namespace textfeed {

struct EpochLengths {
  uint64_t per_epoch = 0;
  bool resumed = false;  // whether resumed_epoch has resumed_batches instead of per_epoch
  uint64_t resumed_epoch = 0;
  uint64_t resumed_batches = 0;

  uint64_t of(uint64_t epoch) const {
    return resumed && epoch == resumed_epoch ? resumed_batches : per_epoch;
  }
  // (epoch, batch) itself when batch < of(epoch), else the first batch of the epochs after it that
  // has one (an epoch with no batch is skipped over).
  std::pair<uint64_t, uint64_t> normalize(uint64_t epoch, uint64_t batch) const {
    while (batch >= of(epoch) && per_epoch > 0) {
      ++epoch;
      batch = 0;
    }
    return {epoch, batch};
  }
  // Whether a stream may start or seek to (epoch, batch): kInvalidArgument when batch is past the
  // epoch's batches. Batch 0 always may (an epoch without batches then moves on: normalize()).
  Status check(uint64_t epoch, uint64_t batch) const {
    if (const uint64_t n = of(epoch); batch >= n && batch != 0)
      return Status::invalid_argument("batch " + std::to_string(batch) + " of an epoch of " +
                                      std::to_string(n) + " batches");
    return Status();
  }
  // The position after batch `batch` of `epoch`.
  std::pair<uint64_t, uint64_t> after(uint64_t epoch, uint64_t batch) const {
    return normalize(epoch, batch + 1);
  }

  friend bool operator==(const EpochLengths&, const EpochLengths&) = default;
};

}  // namespace textfeed
