// SampleSource: dataset folder or cache file.
#include "loader/source.h"

#include <cstring>

#include "base/file.h"
#include "cache/format.h"

namespace textfeed::loader {

namespace {
bool looks_like_cache(const std::string& path) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".tfc") == 0) return true;
  // Only a regular file can be a cache; a FIFO must not block this peek.
  Result<ReadableFile> f = open_regular_file(path);
  char magic[8] = {};
  return f.has_value() && f->size >= 8 && read_exactly(*f, path, magic, 8).ok() &&
         std::memcmp(magic, cache::kHeaderMagic, 8) == 0;
}
}  // namespace

Result<std::shared_ptr<const SampleSource>> SampleSource::open(const std::string& path, const ReaderOptions& o) {
  if (looks_like_cache(path)) {
    TF_ASSIGN_OR_RETURN(auto reader, cache::CacheReader::open(path));
    if (reader->size() == 0) return Status::invalid_argument(path + ": the cache holds no samples");
    return from_cache(std::move(reader));
  }
  TF_ASSIGN_OR_RETURN(Dataset ds, open_dataset(path, o));
  if (ds.samples.empty()) return Status::invalid_argument(path + ": the dataset has no images");
  return from_dataset(std::move(ds));
}

std::shared_ptr<const SampleSource> SampleSource::from_dataset(Dataset dataset) {
  auto s = std::make_shared<SampleSource>();
  s->dataset_ = std::make_shared<const Dataset>(std::move(dataset));
  return s;
}

std::shared_ptr<const SampleSource> SampleSource::from_cache(std::shared_ptr<const cache::CacheReader> reader) {
  auto s = std::make_shared<SampleSource>();
  s->cache_ = std::move(reader);
  return s;
}

size_t SampleSource::size() const { return cache_ ? cache_->size() : dataset_->samples.size(); }

std::string SampleSource::name(size_t i) const {
  if (dataset_) return dataset_->samples.at(i).image;
  auto v = cache_->sample(i);
  return v.has_value() ? std::string(v->name) : "sample " + std::to_string(i);
}

std::string SampleSource::describe() const {
  if (cache_) return "cache " + cache_->path() + " (" + std::to_string(size()) + " samples)";
  return "dataset " + dataset_->root + " (" + std::to_string(size()) + " images)";
}

}  // namespace textfeed::loader
