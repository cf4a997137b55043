// CacheSource: a SampleSource over a mapped cache file (cache/cache.h): each read() gives views
// into the mapping, the pixels decoded (raw records) or JPEG-coded.
#pragma once

#include <memory>
#include <string>

#include "cache/cache.h"
#include "loader/source.h"

namespace textfeed::loader {

// Immutable; every method is safe from many threads (CacheReader's are).
class CacheSource final : public SampleSource {
 public:
  // cache::CacheReader::open(path). Errors: its, kInvalidArgument (no samples).
  static Result<std::shared_ptr<const CacheSource>> open(const std::string& path);

  explicit CacheSource(std::shared_ptr<const cache::CacheReader> reader);

  size_t size() const override { return reader_->size(); }
  // Views into the mapping: `pixels` for a raw record, `encoded` for a JPEG one; width and height
  // are the stored size; `name` is the record's. Errors: those of CacheReader::sample (kCorrupt).
  Status read(size_t i, SampleRead& out) const override;
  std::string name(size_t i) const override;
  std::string describe() const override;
  // What the cache's header and meta say of the index without reading every sample: count,
  // format, image_size, words, ignored words, pixel count.
  uint64_t fingerprint() const override { return fingerprint_; }
  int stored_image_size() const override { return reader_->meta().image_size; }

  const cache::CacheReader& reader() const { return *reader_; }

 private:
  std::shared_ptr<const cache::CacheReader> reader_;
  uint64_t fingerprint_ = 0;
};

}  // namespace textfeed::loader
