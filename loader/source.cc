// SampleSource::open: a cache file or a dataset folder, told apart by name and magic.
#include "loader/source.h"

#include "cache/cache.h"
#include "loader/cache_source.h"
#include "loader/dataset_source.h"

namespace textfeed::loader {

namespace {
// A .tfc that does not open is reported as a broken cache, not read as a dataset.
bool looks_like_cache(const std::string& path) {
  return (path.size() >= 4 && path.compare(path.size() - 4, 4, ".tfc") == 0) || cache::is_cache_file(path);
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
