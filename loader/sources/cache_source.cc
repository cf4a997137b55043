// CacheSource: samples as views into the mapped cache or its shards; the index fingerprinted
// from their meta.
#include "loader/sources/cache_source.h"

#include <algorithm>
#include <utility>

#include "loader/sources/detail/fingerprint.h"

namespace textfeed::loader {

namespace {
// Of what a whole build and its shards merged have alike, so that both give the same value.
uint64_t cache_fingerprint(size_t samples, const cache::CacheMeta& m) {
  internal::Fingerprint f;
  f.text("textfeed cache index 1");
  f.u64(samples);
  f.text(m.dataset_format);
  f.u64(static_cast<uint64_t>(static_cast<int64_t>(m.image_size)));
  f.u64(m.num_words);
  f.u64(m.num_ignored);
  f.u64(m.raw_pixel_bytes);
  return f.value();
}
}  // namespace

Result<std::shared_ptr<const CacheSource>> CacheSource::open(const std::string& path) {
  std::shared_ptr<const CacheSource> source;
  if (cache::is_manifest_path(path)) {
    TF_ASSIGN_OR_RETURN(auto shards, cache::open_manifest(path));
    source = std::make_shared<const CacheSource>(std::move(shards));
  } else {
    TF_ASSIGN_OR_RETURN(auto reader, cache::CacheReader::open(path));
    source = std::make_shared<const CacheSource>(std::move(reader));
  }
  if (source->size() == 0) return Status::invalid_argument(path + ": the cache holds no samples");
  return source;
}

CacheSource::CacheSource(std::shared_ptr<const cache::CacheReader> reader)
    : shards_{reader}, offsets_{0, reader->size()}, meta_(reader->meta()), path_(reader->path()) {
  fingerprint_ = cache_fingerprint(size(), meta_);
}

CacheSource::CacheSource(std::shared_ptr<const cache::ShardSet> set)
    : set_(std::move(set)), shards_(set_->shards), meta_(set_->meta), path_(set_->path) {
  offsets_.reserve(shards_.size() + 1);
  offsets_.push_back(0);
  for (const auto& s : shards_) offsets_.push_back(offsets_.back() + s->size());
  fingerprint_ = cache_fingerprint(size(), meta_);
}

std::pair<size_t, size_t> CacheSource::locate(size_t i) const {
  if (shards_.size() == 1) return {0, i};
  // The last shard whose first index is <= i (an empty shard starts where the next one does).
  const size_t k = static_cast<size_t>(std::upper_bound(offsets_.begin(), offsets_.end() - 1, i) -
                                       offsets_.begin()) -
                   1;
  return {k, i - offsets_[k]};
}

Status CacheSource::read(size_t i, SampleRead& out) const {
  if (i >= size())
    return Status::invalid_argument(path_ + ": sample " + std::to_string(i) + " of " +
                                    std::to_string(size()));
  const auto [k, j] = locate(i);
  out.quads = {};  // a damaged record's words are unknown: none from the sample read before
  out.labels = {};
  out.poly_xy = {};
  out.poly_points = {};
  out.poly_labels = {};
  TF_ASSIGN_OR_RETURN(const cache::SampleView view, shards_[k]->sample(j));
  out.name.assign(view.name);
  out.width = view.width;
  out.height = view.height;
  out.pre_resized = meta_.image_size > 0;
  out.quads = view.quads;
  out.labels = view.labels;
  out.poly_xy = view.poly_xy;  // empty in a cache written before polygons were kept
  out.poly_points = view.poly_points;
  out.poly_labels = view.poly_labels;
  if (view.codec == cache::PixelCodec::kRaw) {
    out.pixels = view.image();
    out.encoded = {};
  } else {
    out.pixels = {};
    out.encoded = view.pixels;
  }
  return Status();
}

std::string CacheSource::name(size_t i) const {
  if (i >= size()) return "sample " + std::to_string(i);
  const auto [k, j] = locate(i);
  auto v = shards_[k]->sample(j);
  return v.has_value() ? std::string(v->name) : "sample " + std::to_string(i);
}

std::string CacheSource::describe() const {
  if (!set_) return "cache " + path_ + " (" + std::to_string(size()) + " samples)";
  return "cache manifest " + path_ + " (" + std::to_string(size()) + " samples in " +
         std::to_string(shards_.size()) + " shards)";
}

}  // namespace textfeed::loader
