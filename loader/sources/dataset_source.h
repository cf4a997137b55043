// DatasetSource: a SampleSource over a dataset folder (loader/readers/dataset.h): each read() loads
// the image file's bytes, for the caller to decode.
#pragma once

#include <memory>
#include <string>

#include "loader/readers/dataset.h"
#include "loader/sources/source.h"

namespace textfeed::loader {

// Each sample's image name, size, word coordinates (float bits) and labels, in index order: what
// DatasetSource::fingerprint() gives, and what a cache records of the dataset it was built from.
uint64_t dataset_fingerprint(const Dataset& dataset);

// Immutable; every method is safe from many threads.
class DatasetSource final : public SampleSource {
 public:
  // open_dataset(path, options), whose bad records (Dataset::bad) are logged as warnings, each with
  // its file, line and reason (the first 100, then their count); each UFO json read, with the
  // image folder used for it and its image count, is logged once at kInfo. Errors: those of
  // open_dataset, kInvalidArgument (no images).
  static Result<std::shared_ptr<const DatasetSource>> open(const std::string& path,
                                                           const ReaderOptions& options);

  explicit DatasetSource(Dataset dataset);

  size_t size() const override { return dataset_.samples.size(); }
  // `encoded` is the image file (read into out.file), width and height 0 (the header says them);
  // `name` is the image's absolute path.
  Status read(size_t i, SampleRead& out) const override;
  std::string name(size_t i) const override;
  std::string describe() const override;
  // Each sample's image name, size, word coordinates (float bits) and labels, in index order.
  uint64_t fingerprint() const override { return fingerprint_; }
  int stored_image_size() const override { return -1; }

  const Dataset& dataset() const { return dataset_; }

 private:
  Dataset dataset_;
  uint64_t fingerprint_ = 0;
};

}  // namespace textfeed::loader
