// SampleSource::open: a cache file, a cache manifest or a dataset, told apart by name and content.
#include "loader/source.h"

#include "cache/cache.h"
#include "cache/manifest.h"
#include "loader/cache_source.h"
#include "loader/dataset_source.h"

namespace textfeed::loader {

namespace {
bool ends_with(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
// A .tfc or .tfmanifest that does not open is reported as a broken cache, not read as a dataset;
// a manifest is known by its content too (a dataset's json never starts as one does).
bool looks_like_cache(const std::string& path) {
  return ends_with(path, ".tfc") || ends_with(path, ".tfmanifest") || cache::is_cache_file(path) ||
         cache::is_manifest_file(path);
}
}  // namespace

Result<std::shared_ptr<const SampleSource>> SampleSource::open(const std::string& path, const ReaderOptions& o) {
  if (looks_like_cache(path)) {
    TF_ASSIGN_OR_RETURN(std::shared_ptr<const CacheSource> cache, CacheSource::open(path));
    return std::shared_ptr<const SampleSource>(std::move(cache));
  }
  TF_ASSIGN_OR_RETURN(std::shared_ptr<const DatasetSource> dataset, DatasetSource::open(path, o));
  return std::shared_ptr<const SampleSource>(std::move(dataset));
}

}  // namespace textfeed::loader
