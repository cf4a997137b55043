// SampleSource: where a pipeline's samples come from — a dataset folder (JPEG decode) or a cache
// file (mapped pixels). Both give the same quads for the same image, so the same seed gives the
// same geometry and targets from either.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cache/cache.h"
#include "loader/dataset.h"
#include "loader/decode.h"

namespace textfeed::loader {

// Immutable after open(); const methods are safe from many threads.
class SampleSource {
 public:
  // A path ending in ".tfc" or starting with the cache magic is a cache; anything else is a
  // dataset (see open_dataset), whose bad records (Dataset::bad) are logged as warnings, each with
  // its file, line and reason (the first 100, then their count). Errors: those of open_dataset /
  // CacheReader::open, kInvalidArgument (no samples).
  static Result<std::shared_ptr<const SampleSource>> open(const std::string& path, const ReaderOptions& options);
  static std::shared_ptr<const SampleSource> from_dataset(Dataset dataset);
  static std::shared_ptr<const SampleSource> from_cache(std::shared_ptr<const cache::CacheReader> reader);

  size_t size() const;
  bool is_cache() const { return cache_ != nullptr; }
  // Pixels in a cache were resized to this longer side (0: source size); -1 for a dataset.
  int stored_image_size() const { return cache_ ? cache_->meta().image_size : -1; }
  // Name of sample i (image path relative to the root), for messages.
  std::string name(size_t i) const;
  const Dataset* dataset() const { return dataset_.get(); }
  const cache::CacheReader* cache() const { return cache_.get(); }
  std::string describe() const;
  // A stable 64-bit hash of the sample index, computed once when the source is made: for a
  // dataset, each sample's image name, size, word coordinates (float bits) and labels, in index
  // order; for a cache, what its header and meta say of the index without reading every sample
  // (count, format, image_size, words, ignored words, pixel count). The same on every machine and
  // run; a checkpoint names its dataset with it (the same size is not the same dataset).
  uint64_t fingerprint() const { return fingerprint_; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  std::shared_ptr<const cache::CacheReader> cache_;
  uint64_t fingerprint_ = 0;
};

}  // namespace textfeed::loader
