// SampleSource::open: a cache file, a cache manifest or a dataset, told apart by name and content.
#include "loader/sources/source.h"

#include "cache/cache.h"
#include "cache/manifest.h"
#include "loader/sources/cache_source.h"
#include "loader/sources/dataset_source.h"

namespace textfeed::loader {

namespace {
// A .tfc or .tfmanifest that does not open is reported as a broken cache, not read as a dataset;
// a manifest is known by its content too (a dataset's json never starts as one does).
bool looks_like_cache(const std::string& path) {
  return path.ends_with(".tfc") || cache::is_cache_file(path) || cache::is_manifest_path(path);
}
}  // namespace

Result<std::shared_ptr<const SampleSource>> SampleSource::open(const std::string& path,
                                                               const ReaderOptions& o) {
  if (looks_like_cache(path)) {
    TF_ASSIGN_OR_RETURN(std::shared_ptr<const CacheSource> cache, CacheSource::open(path));
    return std::shared_ptr<const SampleSource>(std::move(cache));
  }
  TF_ASSIGN_OR_RETURN(std::shared_ptr<const DatasetSource> dataset, DatasetSource::open(path, o));
  return std::shared_ptr<const SampleSource>(std::move(dataset));
}

}  // namespace textfeed::loader
