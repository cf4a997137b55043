// The sample cache: a single memory-mapped file of Cap'n Proto records (docs/cache_format.md).
// CacheWriter builds one atomically (temporary name, fsync, rename); CacheReader maps one and
// hands out zero-copy views, checking each record's checksum the first time it is read.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/image.h"
#include "base/quad.h"
#include "base/status.h"

namespace textfeed::cache {

enum class PixelCodec : unsigned char { kRaw = 0, kJpeg = 1 };

// The largest record (one sample's or Meta's message, segment table included). A reader refuses a
// bigger one before checksumming it, so a crafted file (a sparse one costs no disk) cannot make
// the first read of a sample hash gigabytes, and the writer never writes one; as large as the
// largest image file the loader reads (loader::kMaxImageFileBytes).
inline constexpr uint64_t kMaxRecordBytes = uint64_t{1} << 30;
// The largest blob (pixels, transcriptions, ...) of a record: Cap'n Proto's limit on a Data field.
inline constexpr uint64_t kMaxBlobBytes = (uint64_t{1} << 29) - 1;
// An upper bound of the bytes a record takes whose name, pixels and transcriptions (each text
// with its NUL) have these sizes and which holds `words` quads: the blobs and what surrounds them.
constexpr uint64_t record_bytes_bound(uint64_t name_bytes, uint64_t pixel_bytes, uint64_t words,
                                      uint64_t text_bytes) {
  return 512 + name_bytes + pixel_bytes + words * (sizeof(Quad) + 1) + text_bytes;
}
std::string_view codec_name(PixelCodec codec);

// One sample as the writer takes it. Views must stay valid during CacheWriter::add().
struct SampleData {
  std::string_view name;
  int orig_width = 0;
  int orig_height = 0;
  int width = 0;  // stored pixels
  int height = 0;
  PixelCodec codec = PixelCodec::kRaw;
  // kRaw: height*width*3 RGB bytes; kJpeg: a JPEG file. Written straight from this memory when
  // it starts on an 8-byte boundary (any heap buffer does), copied once otherwise.
  std::span<const uint8_t> pixels;
  std::span<const Quad> quads;
  std::span<const unsigned char> labels;
  std::span<const std::string> texts;
  // Every word with all its points (loader::SampleRecord::poly_*), in STORED px like `quads`;
  // empty spans write no polygons (a reader then takes the quads as the words).
  std::span<const float> poly_xy;
  std::span<const uint32_t> poly_points;
  std::span<const unsigned char> poly_labels;
};

struct QuarantineEntry {
  std::string file;
  std::string reason;
};

// What the Meta record holds (cache/cache.capnp documents each field).
struct CacheMeta {
  std::string profile;
  int image_size = 0;
  PixelCodec codec = PixelCodec::kRaw;
  int jpeg_quality = 0;
  int64_t build_unix_seconds = 0;
  double build_seconds = 0;
  std::string dataset_root;
  std::string dataset_format;
  uint64_t num_words = 0;
  uint64_t num_ignored = 0;
  uint64_t pixel_bytes = 0;      // stored pixel bytes, all samples
  uint64_t raw_pixel_bytes = 0;  // what codec raw would store: sum of width * height * 3
  std::vector<QuarantineEntry> quarantine;
  // Provenance (cache.capnp Meta documents each): which part of which dataset this file holds
  // and with which options. shard_count 0: a file written before these fields existed.
  uint32_t shard_index = 0;
  uint32_t shard_count = 0;
  uint64_t first_input = 0;
  uint64_t num_inputs = 0;
  uint64_t dataset_samples = 0;
  uint64_t dataset_fingerprint = 0;
  std::string reader_options;
  bool restart_rows = false;
  double max_bad_share = 0;
};

// Writes a cache file. A resource type owned by one thread. Nothing appears at the final path
// until finish() succeeds; a writer destroyed before that removes its temporary file, and a
// process killed before that leaves at most a temporary "<path>.tmp-<pid>-<16 random hex
// digits>" file, created fresh (O_EXCL | O_NOFOLLOW), which never opens as a cache (it has no
// footer) and which the next create() for the same path removes once process <pid> is gone.
// Only a regular file at the final path is ever replaced (never a symlink, device or FIFO).
class CacheWriter {
 public:
  // Errors: kInvalidArgument (path exists and !overwrite, or it is not a regular file), kIo.
  static Result<std::unique_ptr<CacheWriter>> create(const std::string& path, bool overwrite);
  ~CacheWriter();
  CacheWriter(const CacheWriter&) = delete;
  CacheWriter& operator=(const CacheWriter&) = delete;

  // Appends a sample; its index is the number added before it. Errors: kInvalidArgument
  // (inconsistent sizes, a transcription with a NUL byte, a quad coordinate that is not finite, a
  // label other than kLabelValid or kLabelIgnored, a blob over kMaxBlobBytes or a record over
  // kMaxRecordBytes), kIo.
  Status add(const SampleData& sample);
  // Writes Meta (num_words, num_ignored, pixel_bytes and raw_pixel_bytes are filled from what
  // was added), the index and the footer, fsyncs, and renames into place.
  // Errors: kIo, kInvalidArgument.
  Status finish(CacheMeta meta);

  size_t num_samples() const;
  uint64_t bytes_written() const;
  const std::string& temp_path() const;
  // Leftovers of killed builds of the same path that create() removed.
  const std::vector<std::string>& removed_stale_temps() const;

 private:
  struct Impl;
  explicit CacheWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A zero-copy view of one sample, valid while its CacheReader lives.
struct SampleView {
  uint32_t index = 0;
  std::string_view name;
  int orig_width = 0;
  int orig_height = 0;
  int width = 0;
  int height = 0;
  PixelCodec codec = PixelCodec::kRaw;
  std::span<const uint8_t> pixels;
  std::span<const Quad> quads;
  std::span<const unsigned char> labels;
  std::string_view texts_blob;  // NUL-terminated transcriptions, one per quad
  // The polygons (cache.capnp polyXy, polyPoints, polyLabels); empty in a record written before
  // they existed or without them. Checked on read: sizes agree, coordinates finite, labels 0/1.
  std::span<const float> poly_xy;
  std::span<const uint32_t> poly_points;
  std::span<const unsigned char> poly_labels;

  // The transcriptions (allocates; not for the hot path).
  std::vector<std::string_view> texts() const;
  // The pixels as an RGB image (kRaw only).
  ImageView image() const {
    return {pixels.data(), height, width, 3, static_cast<ptrdiff_t>(width) * 3, DType::kU8};
  }
};

// Whether `path` is a regular file that starts with a cache's header magic: what tells a cache
// from a dataset or any other file, read without blocking (a FIFO or a device is no cache) and
// without mapping or validating anything else (CacheReader::open does that).
bool is_cache_file(const std::string& path);

// A mapped cache file. Immutable after open(), shared between threads (hence shared_ptr):
// every method is safe to call concurrently. Many processes can map the same file; the page
// cache holds it once.
class CacheReader {
 public:
  // Maps and validates header, footer, index bounds and the Meta record. Only a regular file is
  // opened: a FIFO or device is refused without blocking.
  // Errors: kNotFound, kInvalidArgument (not a regular file), kIo, kCorrupt (naming what is wrong
  //         and where), kUnimplemented (a newer format version).
  static Result<std::shared_ptr<const CacheReader>> open(const std::string& path);
  ~CacheReader();
  CacheReader(const CacheReader&) = delete;
  CacheReader& operator=(const CacheReader&) = delete;

  size_t size() const;
  const CacheMeta& meta() const;
  const std::string& path() const;
  uint64_t file_bytes() const;
  // The header's and the footer's CRC32C as stored (docs/cache_format.md). The footer's covers
  // the index's and Meta's CRCs, so it tells one build's file from any other: a manifest records
  // both for each shard.
  uint32_t header_crc() const;
  uint32_t footer_crc() const;
  // Sample i. Its checksum and content (finite quads, labels 0 or 1, a JPEG's frame size equal to
  // width x height) are checked the first time this reader returns it.
  // Errors: kInvalidArgument (i out of range), kCorrupt (checksum or structure, naming sample i).
  Result<SampleView> sample(size_t i) const;
  // Checks sample i's checksum, structure and content now, whatever was checked before.
  Status verify_sample(size_t i) const;

 private:
  struct Impl;
  explicit CacheReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace textfeed::cache
