// CacheSource: a SampleSource over a mapped cache (cache/cache.h): one cache file, or the shard
// files a manifest lists (cache/manifest.h), end to end. Each read() gives views into the mapping,
// the pixels decoded (raw records) or JPEG-coded.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cache/cache.h"
#include "cache/manifest.h"
#include "loader/sources/source.h"

namespace textfeed::loader {

// Immutable; every method is safe from many threads (CacheReader's are).
class CacheSource final : public SampleSource {
 public:
  // A cache manifest (cache::is_manifest_path) through cache::open_manifest, any other path through
  // cache::CacheReader::open. Errors: theirs, kInvalidArgument (no samples).
  static Result<std::shared_ptr<const CacheSource>> open(const std::string& path);

  explicit CacheSource(std::shared_ptr<const cache::CacheReader> reader);
  // The shards of `shards` end to end: shard k's sample j is index shards.manifest.shards[k].first
  // + j, so the index is that of the whole build the shards were cut from.
  explicit CacheSource(std::shared_ptr<const cache::ShardSet> shards);

  size_t size() const override { return offsets_.back(); }
  // Views into the mapping: `pixels` for a raw record, `encoded` for a JPEG one; width and height
  // are the stored size; `name` is the record's. Errors: those of CacheReader::sample (kCorrupt).
  Status read(size_t i, SampleRead& out) const override;
  std::string name(size_t i) const override;
  std::string describe() const override;
  // What the cache's meta says of the index without reading every sample: count, format,
  // image_size, words, ignored words, pixel count; for shards their sums, so a manifest has the
  // fingerprint of the whole cache of the same build (a checkpoint of one resumes on the other).
  uint64_t fingerprint() const override { return fingerprint_; }
  int stored_image_size() const override { return meta_.image_size; }

  // The Meta of the file, or the shards' merged (cache::ShardSet::meta).
  const cache::CacheMeta& meta() const { return meta_; }

 private:
  // (shard, index there) of index i < size().
  std::pair<size_t, size_t> locate(size_t i) const;

  std::shared_ptr<const cache::ShardSet> set_;  // null for a single file
  std::vector<std::shared_ptr<const cache::CacheReader>> shards_;
  std::vector<size_t> offsets_;  // shards_.size() + 1 prefix sums
  cache::CacheMeta meta_;
  std::string path_;
  uint64_t fingerprint_ = 0;
};

}  // namespace textfeed::loader
