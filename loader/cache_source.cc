// CacheSource: samples as views into the mapped cache; the index fingerprinted from its meta.
#include "loader/cache_source.h"

#include <utility>

#include "loader/detail/fingerprint.h"

namespace textfeed::loader {

namespace {
uint64_t cache_fingerprint(const cache::CacheReader& c) {
  const cache::CacheMeta& m = c.meta();
  internal::Fingerprint f;
  f.text("textfeed cache index 1");
  f.u64(c.size());
  f.text(m.dataset_format);
  f.u64(static_cast<uint64_t>(static_cast<int64_t>(m.image_size)));
  f.u64(m.num_words);
  f.u64(m.num_ignored);
  f.u64(m.raw_pixel_bytes);
  return f.value();
}
}  // namespace

Result<std::shared_ptr<const CacheSource>> CacheSource::open(const std::string& path) {
  TF_ASSIGN_OR_RETURN(auto reader, cache::CacheReader::open(path));
  if (reader->size() == 0) return Status::invalid_argument(path + ": the cache holds no samples");
  return std::make_shared<const CacheSource>(std::move(reader));
}

CacheSource::CacheSource(std::shared_ptr<const cache::CacheReader> reader)
    : reader_(std::move(reader)), fingerprint_(cache_fingerprint(*reader_)) {}

Status CacheSource::read(size_t i, SampleRead& out) const {
  TF_ASSIGN_OR_RETURN(const cache::SampleView view, reader_->sample(i));
  out.name.assign(view.name);
  out.width = view.width;
  out.height = view.height;
  out.pre_resized = reader_->meta().image_size > 0;
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
  auto v = reader_->sample(i);
  return v.has_value() ? std::string(v->name) : "sample " + std::to_string(i);
}

std::string CacheSource::describe() const {
  return "cache " + reader_->path() + " (" + std::to_string(size()) + " samples)";
}

}  // namespace textfeed::loader
