// Fuzz target: the cache reader (cache/cache.h). The input is written as a cache file, opened,
// and every record read and verified. Random bytes rarely pass the header, footer, index and
// record checksums, so each input is tried a second time with every checksum recomputed where
// the bounds it covers lie inside the file: that reaches the structure checks and the Cap'n Proto
// records behind them. Beyond "no crash", it checks what CacheReader promises of the views.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/log.h"
#include "cache/cache.h"
#include "cache/crc32c.h"
#include "cache/format.h"
#include "tests/fuzz/fuzz_targets.h"

namespace textfeed::fuzz {
namespace {

using cache::FileFooter;
using cache::FileHeader;
using cache::IndexEntry;

// Whether [offset, offset + size) lies inside `total` bytes, without sums that could wrap.
bool inside(uint64_t offset, uint64_t size, uint64_t total) {
  return offset <= total && size <= total - offset;
}

template <class T>
T load(const std::vector<uint8_t>& b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}
template <class T>
void store(std::vector<uint8_t>& b, size_t at, const T& v) {
  std::memcpy(b.data() + at, &v, sizeof(T));
}

// Recomputes, in the order the reader checks them, each record's, the index's, the meta
// record's, the header's and the footer's CRC32C.
std::vector<uint8_t> with_checksums_fixed(std::span<const uint8_t> input) {
  std::vector<uint8_t> b(input.begin(), input.end());
  if (b.size() < sizeof(FileHeader) + sizeof(FileFooter)) return b;
  const size_t footer_at = b.size() - sizeof(FileFooter);
  FileHeader h = load<FileHeader>(b, 0);
  h.header_crc = cache::crc32c(&h, offsetof(FileHeader, header_crc));
  store(b, 0, h);
  FileFooter f = load<FileFooter>(b, footer_at);
  if (f.index_offset <= footer_at &&
      f.num_samples <= (footer_at - f.index_offset) / sizeof(IndexEntry)) {
    for (uint64_t i = 0; i < f.num_samples; ++i) {
      const size_t at = f.index_offset + i * sizeof(IndexEntry);
      IndexEntry e = load<IndexEntry>(b, at);
      if (inside(e.offset, e.size, footer_at)) e.crc = cache::crc32c(b.data() + e.offset, e.size);
      store(b, at, e);
    }
    f.index_crc = cache::crc32c(b.data() + f.index_offset, f.num_samples * sizeof(IndexEntry));
  }
  if (inside(f.meta_offset, f.meta_size, footer_at))
    f.meta_crc = cache::crc32c(b.data() + f.meta_offset, f.meta_size);
  f.footer_crc = cache::crc32c(&f, offsetof(FileFooter, footer_crc));
  store(b, footer_at, f);
  return b;
}

// Reads every byte a view points at, so a view past the mapping faults here.
uint64_t touch(std::span<const uint8_t> bytes) {
  uint64_t sum = 0;
  for (uint8_t c : bytes) sum += c;
  return sum;
}

void check_sample(const cache::CacheReader& reader, size_t i) {
  const Result<cache::SampleView> v = reader.sample(i);
  const Status verified = reader.verify_sample(i);
  TF_CHECK(v.has_value() == verified.ok())
      << "sample " << i << ": sample() and verify_sample() disagree";
  if (!v.has_value()) {
    TF_CHECK(v.error().code() == Code::kCorrupt) << v.error().to_string();
    return;
  }
  TF_CHECK(v->index == i) << "sample " << i << " says it is " << v->index;
  TF_CHECK(v->labels.size() == v->quads.size() && v->texts().size() == v->quads.size())
      << "sample " << i << ": quads, labels and texts differ in count";
  TF_CHECK(v->width > 0 && v->height > 0) << "sample " << i << ": empty image";
  if (v->codec == cache::PixelCodec::kRaw)
    TF_CHECK(v->pixels.size() == static_cast<size_t>(v->width) * static_cast<size_t>(v->height) * 3)
        << "sample " << i << ": raw pixels do not match the size";
  const uint64_t file_bytes = reader.file_bytes();
  TF_CHECK(v->pixels.size() <= file_bytes && v->quads.size_bytes() <= file_bytes &&
           v->texts_blob.size() <= file_bytes && v->name.size() <= file_bytes)
      << "sample " << i << ": a view larger than the file";
  const std::span<const uint8_t> name(reinterpret_cast<const uint8_t*>(v->name.data()),
                                      v->name.size());
  const std::span<const uint8_t> texts(reinterpret_cast<const uint8_t*>(v->texts_blob.data()),
                                       v->texts_blob.size());
  const std::span<const uint8_t> quads(reinterpret_cast<const uint8_t*>(v->quads.data()),
                                       v->quads.size_bytes());
  volatile uint64_t sink =
      touch(v->pixels) + touch(name) + touch(texts) + touch(quads) + touch(v->labels);
  (void)sink;
}

void read_everything(const std::string& path, size_t input_bytes) {
  const Result<std::shared_ptr<const cache::CacheReader>> reader = cache::CacheReader::open(path);
  if (!reader.has_value()) {
    const Code code = reader.error().code();
    TF_CHECK(code == Code::kCorrupt || code == Code::kUnimplemented) << reader.error().to_string();
    return;
  }
  const cache::CacheReader& r = **reader;
  TF_CHECK(r.file_bytes() == input_bytes)
      << "file of " << input_bytes << " bytes mapped as " << r.file_bytes();
  TF_CHECK(r.size() <= input_bytes / sizeof(IndexEntry))
      << r.size() << " samples in " << input_bytes << " bytes";
  // Cap'n Proto lets two pointers share an object, so only each string alone is bounded.
  const cache::CacheMeta& meta = r.meta();
  for (const std::string* s : {&meta.profile, &meta.dataset_root, &meta.dataset_format})
    TF_CHECK(s->size() <= input_bytes) << "a meta string longer than the file";
  for (const cache::QuarantineEntry& q : meta.quarantine)
    TF_CHECK(q.file.size() <= input_bytes && q.reason.size() <= input_bytes)
        << "a quarantine string longer than the file";
  for (size_t i = 0; i < r.size(); ++i) check_sample(r, i);
  TF_CHECK(!r.sample(r.size()).has_value()) << "a sample past the end";
}

}  // namespace

void cache_one_input(std::span<const uint8_t> input) {
  static const std::string raw_path = scratch_dir() + "/raw.tfc",
                           fixed_path = scratch_dir() + "/fixed.tfc";
  write_file(raw_path, input);
  read_everything(raw_path, input.size());  // the reader (and its mapping) is gone after this
  const std::vector<uint8_t> fixed = with_checksums_fixed(input);
  if (fixed.size() == input.size() && std::equal(fixed.begin(), fixed.end(), input.begin())) return;
  write_file(fixed_path, fixed);
  read_everything(fixed_path, fixed.size());
}

}  // namespace textfeed::fuzz
