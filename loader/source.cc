// SampleSource: dataset folder or cache file.
#include "loader/source.h"

#include <cstring>
#include <fstream>
#include <string_view>

#include "base/log.h"

namespace textfeed::loader {

namespace {
// FNV-1a (64-bit) over little-endian fields, each variable-length one preceded by its length, so
// that no two different indexes write the same byte stream.
class Fingerprint {
 public:
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  void text(std::string_view s) {
    u64(s.size());
    for (char c : s) byte(static_cast<uint8_t>(c));
  }
  void f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  uint64_t value() const { return h_; }

 private:
  void byte(uint8_t b) { h_ = (h_ ^ b) * 0x100000001b3ull; }
  uint64_t h_ = 0xcbf29ce484222325ull;
};

uint64_t dataset_fingerprint(const Dataset& d) {
  Fingerprint f;
  f.text("textfeed dataset index 1");
  f.u64(d.samples.size());
  for (const SampleRecord& r : d.samples) {
    f.text(r.image);
    f.u64(static_cast<uint64_t>(static_cast<int64_t>(r.width)));
    f.u64(static_cast<uint64_t>(static_cast<int64_t>(r.height)));
    f.u64(r.quads.size());
    for (size_t w = 0; w < r.quads.size(); ++w) {
      for (float c : r.quads[w].xy) f.f32(c);
      f.u64(w < r.labels.size() ? r.labels[w] : 0xff);
    }
  }
  return f.value();
}

uint64_t cache_fingerprint(const cache::CacheReader& c) {
  const cache::CacheMeta& m = c.meta();
  Fingerprint f;
  f.text("textfeed cache index 1");
  f.u64(c.size());
  f.text(m.dataset_format);
  f.u64(static_cast<uint64_t>(static_cast<int64_t>(m.image_size)));
  f.u64(m.num_words);
  f.u64(m.num_ignored);
  f.u64(m.raw_pixel_bytes);
  return f.value();
}

// The records the readers left out, said once for every consumer of a dataset (serve, bench, show,
// the Python Loader): a word or an image dropped without a word to anyone is a silent loss. The
// first kMaxLoggedBadRecords one by one, then their count (`textfeed inspect` lists them all).
constexpr size_t kMaxLoggedBadRecords = 100;
void log_bad_records(const Dataset& ds) {
  if (ds.bad.empty()) return;
  TF_LOG(Warning) << "dataset " << ds.root << ": " << ds.bad.size()
                  << " annotation record(s) left out or kept without their words; `textfeed inspect " << ds.root
                  << "` lists them all";
  for (size_t i = 0; i < ds.bad.size() && i < kMaxLoggedBadRecords; ++i) {
    const BadRecord& b = ds.bad[i];
    std::string where = b.file;
    if (b.line) where.append(":").append(std::to_string(b.line));
    TF_LOG(Warning) << "dataset " << ds.root << ": " << where << ": " << b.reason;
  }
  if (ds.bad.size() > kMaxLoggedBadRecords)
    TF_LOG(Warning) << "dataset " << ds.root << ": ... and " << ds.bad.size() - kMaxLoggedBadRecords
                    << " more annotation record(s)";
}

// A .tfc that does not open is reported as a broken cache, not read as a dataset.
bool looks_like_cache(const std::string& path) {
  return (path.size() >= 4 && path.compare(path.size() - 4, 4, ".tfc") == 0) || cache::is_cache_file(path);
}
}  // namespace

Result<std::shared_ptr<const SampleSource>> SampleSource::open(const std::string& path, const ReaderOptions& o) {
  if (looks_like_cache(path)) {
    TF_ASSIGN_OR_RETURN(auto reader, cache::CacheReader::open(path));
    if (reader->size() == 0) return Status::invalid_argument(path + ": the cache holds no samples");
    return from_cache(std::move(reader));
  }
  TF_ASSIGN_OR_RETURN(Dataset ds, open_dataset(path, o));
  log_bad_records(ds);
  if (ds.samples.empty()) return Status::invalid_argument(path + ": the dataset has no images");
  return from_dataset(std::move(ds));
}

std::shared_ptr<const SampleSource> SampleSource::from_dataset(Dataset dataset) {
  auto s = std::make_shared<SampleSource>();
  s->fingerprint_ = dataset_fingerprint(dataset);
  s->dataset_ = std::make_shared<const Dataset>(std::move(dataset));
  return s;
}

std::shared_ptr<const SampleSource> SampleSource::from_cache(std::shared_ptr<const cache::CacheReader> reader) {
  auto s = std::make_shared<SampleSource>();
  s->fingerprint_ = cache_fingerprint(*reader);
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
