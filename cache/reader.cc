// CacheReader: mmap, validation on open, lazy per-record checksums, zero-copy views.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

#include "base/file.h"
#include "cache/cache.h"
#include "cache/crc32c.h"
#include "cache/detail/codec.h"
#include "cache/format.h"

namespace textfeed::cache {

static_assert(std::endian::native == std::endian::little,
              "the cache format is little-endian; big-endian hosts need byte swapping");

namespace {

// The (width, height) of a JPEG's frame header (SOFn), or nullopt when none comes before the
// first scan. Every read is bounds-checked: the bytes are hostile.
std::optional<std::pair<int, int>> jpeg_frame_size(std::span<const uint8_t> b) {
  if (b.size() < 4 || b[0] != 0xFF || b[1] != 0xD8) return std::nullopt;
  size_t pos = 2;
  while (pos + 4 <= b.size()) {
    if (b[pos] != 0xFF) return std::nullopt;
    const uint8_t marker = b[pos + 1];
    if (marker == 0xFF) {  // fill byte
      ++pos;
      continue;
    }
    if (marker == 0xDA || marker == 0xD9)
      return std::nullopt;  // a scan or the end: no frame header
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // TEM, RSTn: no length
      pos += 2;
      continue;
    }
    const size_t len = (size_t{b[pos + 2]} << 8) | b[pos + 3];
    const bool sof =
        marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (sof) {
      if (len < 7 || pos + 9 > b.size()) return std::nullopt;
      return std::pair<int, int>{(b[pos + 7] << 8) | b[pos + 8], (b[pos + 5] << 8) | b[pos + 6]};
    }
    pos += 2 + len;
  }
  return std::nullopt;
}

// The bytes of the Cap'n Proto flat message at `p` as its segment table gives them (table
// included), reading at most `avail` bytes; 0 when the table does not fit or has more segments
// than Cap'n Proto allows. Checked before a record's checksum: a table that does not describe
// exactly the record's bytes is garbage (the zeros of a sparse file, say), found in O(1).
uint64_t flat_message_bytes(const uint8_t* p, uint64_t avail) {
  if (avail < 8) return 0;
  uint32_t last = 0;
  std::memcpy(&last, p, 4);
  if (last >= 512) return 0;
  const uint64_t count = uint64_t{last} + 1, table_words = count / 2 + 1;
  if (table_words * 8 > avail) return 0;
  uint64_t words = table_words;
  for (uint64_t k = 0; k < count; ++k) {
    uint32_t w = 0;
    std::memcpy(&w, p + 4 + 4 * k, 4);
    words += w;  // at most 512 * 2^32 + 257: no wrap
  }
  return words * 8;
}

}  // namespace

struct CacheReader::Impl {
  std::string path;
  const uint8_t* base = nullptr;
  size_t bytes = 0;
  const IndexEntry* index = nullptr;
  size_t n = 0;
  CacheMeta meta;
  uint32_t header_crc = 0, footer_crc = 0;
  std::unique_ptr<std::atomic<bool>[]> verified;  // one flag per sample; grows with the index

  ~Impl() {
    if (base) ::munmap(const_cast<uint8_t*>(base), bytes);
  }
  std::span<const capnp::word> words(uint64_t offset, uint64_t size) const {
    return {reinterpret_cast<const capnp::word*>(base + offset), size / sizeof(capnp::word)};
  }
  Status corrupt(const std::string& what) const { return Status::corrupt(path + ": " + what); }
  // The steps of open(), in order: each checks what the next relies on.
  Status map_file();
  Result<FileHeader> check_header() const;
  Result<FileFooter> check_footer(const FileHeader& h) const;
  Status check_index(const FileFooter& f);
  Status read_meta_record(const FileFooter& f);
  Status check_sample(size_t i, SampleView& v) const;
  Status check_content(size_t i, const SampleView& v) const;
};

CacheReader::CacheReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CacheReader::~CacheReader() = default;

Result<std::shared_ptr<const CacheReader>> CacheReader::open(const std::string& path) {
  auto m = std::make_unique<Impl>();
  m->path = path;
  TF_RETURN_IF_ERROR(m->map_file());
  TF_ASSIGN_OR_RETURN(const FileHeader h, m->check_header());
  TF_ASSIGN_OR_RETURN(const FileFooter f, m->check_footer(h));
  TF_RETURN_IF_ERROR(m->check_index(f));
  TF_RETURN_IF_ERROR(m->read_meta_record(f));
  m->header_crc = h.header_crc;
  m->footer_crc = f.footer_crc;
  m->verified.reset(new std::atomic<bool>[m->n]());
  return std::shared_ptr<const CacheReader>(new CacheReader(std::move(m)));
}

// Maps the file at `path` whole (base, bytes) once it is known to be a regular file long enough
// for a header and a footer.
Status CacheReader::Impl::map_file() {
  // Only a regular file is a cache: a FIFO or a device is refused without blocking in open().
  Result<ReadableFile> f0 = open_regular_file(path);
  if (!f0.has_value()) {
    if (f0.error().code() == Code::kNotFound)
      return Status::not_found(path + ": no such cache file");
    return f0.error();
  }
  bytes = static_cast<size_t>(f0->size);
  if (bytes < sizeof(FileHeader) + sizeof(FileFooter))
    return corrupt("file of " + std::to_string(bytes) +
                   " bytes is too short to be a textfeed cache");
  void* p = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, f0->fd.get(), 0);
  if (p == MAP_FAILED) return Status::from_errno("cannot mmap " + path, errno);
  base = static_cast<const uint8_t*>(p);
  return Status();
}

Result<FileHeader> CacheReader::Impl::check_header() const {
  FileHeader h;
  std::memcpy(&h, base, sizeof(h));
  if (std::memcmp(h.magic, kHeaderMagic, 8) != 0)
    return corrupt("not a textfeed cache (bad header magic)");
  if (h.header_crc != crc32c(&h, offsetof(FileHeader, header_crc)))
    return corrupt("header checksum mismatch");
  if (h.format_version > kFormatVersion)
    return Status::unimplemented(path + ": cache format version " +
                                 std::to_string(h.format_version) +
                                 " is newer than this textfeed reads (" +
                                 std::to_string(kFormatVersion) + "); rebuild it or upgrade");
  if (h.format_version != kFormatVersion || h.header_size != sizeof(FileHeader) ||
      h.schema_id != kSchemaId || h.endian_marker != kEndianMarker)
    return corrupt("unsupported header (version, size, schema or byte order)");
  return h;
}

// The footer, once it and the bounds it gives the index and the meta record are valid.
Result<FileFooter> CacheReader::Impl::check_footer(const FileHeader& h) const {
  FileFooter f;
  std::memcpy(&f, base + bytes - sizeof(f), sizeof(f));
  if (std::memcmp(f.magic, kFooterMagic, 8) != 0)
    return corrupt("no footer: the file is truncated or its build did not finish");
  if (f.footer_crc != crc32c(&f, offsetof(FileFooter, footer_crc)))
    return corrupt("footer checksum mismatch");
  if (f.format_version != h.format_version)
    return corrupt("header and footer disagree on the format version");
  if (f.reserved != 0) return corrupt("footer reserved field is not zero");  // not under footer_crc
  const uint64_t footer_at = bytes - sizeof(FileFooter);
  // Bounds are checked without sums that could wrap: every value here comes from the file.
  if (f.index_offset > footer_at ||
      f.num_samples > (footer_at - f.index_offset) / sizeof(IndexEntry) ||
      f.num_samples * sizeof(IndexEntry) != footer_at - f.index_offset)
    return corrupt("index (" + std::to_string(f.num_samples) + " entries at " +
                   std::to_string(f.index_offset) + ") does not end at the footer");
  if (f.meta_offset < sizeof(FileHeader) || f.meta_offset > f.index_offset ||
      f.meta_offset % kAlignment || f.meta_size % kAlignment ||
      f.meta_size != f.index_offset - f.meta_offset)
    return corrupt("meta record bounds are invalid");
  if (f.meta_size > kMaxRecordBytes ||
      flat_message_bytes(base + f.meta_offset, f.meta_size) != f.meta_size)
    return corrupt("meta record of " + std::to_string(f.meta_size) +
                   " bytes is not one message of that size (or is over the limit of " +
                   std::to_string(kMaxRecordBytes) + ")");
  return f;
}

// Sets index and n. The index's structure before its checksum: a crafted index stops at its
// first bad entry instead of being hashed whole.
Status CacheReader::Impl::check_index(const FileFooter& f) {
  index = reinterpret_cast<const IndexEntry*>(base + f.index_offset);
  n = f.num_samples;
  uint64_t expect = sizeof(FileHeader);
  for (size_t i = 0; i < n; ++i) {
    const IndexEntry& e = index[i];
    if (e.offset != expect || e.size == 0 || e.size % kAlignment ||
        e.size > f.meta_offset - e.offset || e.size > kMaxRecordBytes)
      return corrupt("index entry " + std::to_string(i) + " (offset " + std::to_string(e.offset) +
                     ", size " + std::to_string(e.size) +
                     ") is out of bounds or over the record limit of " +
                     std::to_string(kMaxRecordBytes));
    expect = e.offset + e.size;
  }
  if (expect != f.meta_offset) return corrupt("records do not end where the meta record starts");
  if (crc32c(index, n * sizeof(IndexEntry)) != f.index_crc)
    return corrupt("index checksum mismatch");
  return Status();
}

Status CacheReader::Impl::read_meta_record(const FileFooter& f) {
  if (crc32c(base + f.meta_offset, f.meta_size) != f.meta_crc)
    return corrupt("meta record checksum mismatch");
  return internal::read_meta(words(f.meta_offset, f.meta_size), meta).with_context(path);
}

Status CacheReader::Impl::check_sample(size_t i, SampleView& v) const {
  const IndexEntry& e = index[i];
  TF_RETURN_IF_ERROR(internal::read_sample(words(e.offset, e.size), v)
                         .with_context(path + ": sample " + std::to_string(i)));
  auto bad = [&](const std::string& what) {
    return corrupt("sample " + std::to_string(i) + " ('" + std::string(v.name) + "'): " + what);
  };
  if (v.index != i) return bad("record says it is sample " + std::to_string(v.index));
  if (v.labels.size() != v.quads.size()) return bad("quads and labels differ in count");
  size_t nul = 0;
  for (char c : v.texts_blob) nul += (c == '\0');
  if (nul != v.quads.size() || (!v.texts_blob.empty() && v.texts_blob.back() != '\0'))
    return bad("transcriptions do not match the quads");
  if (v.width <= 0 || v.height <= 0) return bad("empty image");
  if (v.codec == PixelCodec::kRaw && v.pixels.size() != static_cast<size_t>(v.width) * v.height * 3)
    return bad("raw pixels have " + std::to_string(v.pixels.size()) + " bytes for " +
               std::to_string(v.width) + "x" + std::to_string(v.height) + "x3");
  return Status();
}

// What the structure cannot show, checked once per sample (on its first read and by verify), not
// on every read: a crafted record must not hand the pipeline words that are not finite numbers,
// labels other than valid/ignored, or JPEG pixels of another size than the record says (its
// words would then be placed on the wrong pixels).
Status CacheReader::Impl::check_content(size_t i, const SampleView& v) const {
  auto bad = [&](const std::string& what) {
    return corrupt("sample " + std::to_string(i) + " ('" + std::string(v.name) + "'): " + what);
  };
  if (std::string why = internal::check_words(v.quads, v.labels); !why.empty()) return bad(why);
  if (std::string why = internal::check_polygons(v.poly_xy, v.poly_points, v.poly_labels);
      !why.empty())
    return bad(why);
  if (v.codec == PixelCodec::kJpeg) {
    const auto size = jpeg_frame_size(v.pixels);
    if (!size) return bad("JPEG pixels have no frame header");
    if (size->first != v.width || size->second != v.height)
      return bad("JPEG pixels are " + std::to_string(size->first) + "x" +
                 std::to_string(size->second) + " but the record says " + std::to_string(v.width) +
                 "x" + std::to_string(v.height));
  }
  return Status();
}

size_t CacheReader::size() const { return impl_->n; }
const CacheMeta& CacheReader::meta() const { return impl_->meta; }
const std::string& CacheReader::path() const { return impl_->path; }
uint64_t CacheReader::file_bytes() const { return impl_->bytes; }
uint32_t CacheReader::header_crc() const { return impl_->header_crc; }
uint32_t CacheReader::footer_crc() const { return impl_->footer_crc; }

Result<SampleView> CacheReader::sample(size_t i) const {
  const Impl& m = *impl_;
  if (i >= m.n)
    return Status::invalid_argument(m.path + ": sample " + std::to_string(i) + " of " +
                                    std::to_string(m.n));
  if (!m.verified[i].load(std::memory_order_acquire)) {
    TF_RETURN_IF_ERROR(verify_sample(i));
    m.verified[i].store(true, std::memory_order_release);
  }
  SampleView v;
  TF_RETURN_IF_ERROR(m.check_sample(i, v));
  return v;
}

Status CacheReader::verify_sample(size_t i) const {
  const Impl& m = *impl_;
  if (i >= m.n)
    return Status::invalid_argument(m.path + ": sample " + std::to_string(i) + " of " +
                                    std::to_string(m.n));
  const IndexEntry& e = m.index[i];
  if (const uint64_t described = flat_message_bytes(m.base + e.offset, e.size); described != e.size)
    return m.corrupt("sample " + std::to_string(i) + " record at byte " + std::to_string(e.offset) +
                     " is " + std::to_string(e.size) + " bytes but its segment table describes " +
                     std::to_string(described));
  if (crc32c(m.base + e.offset, e.size) != e.crc)
    return m.corrupt("sample " + std::to_string(i) + " checksum mismatch (record at byte " +
                     std::to_string(e.offset) + ", " + std::to_string(e.size) + " bytes)");
  SampleView v;
  TF_RETURN_IF_ERROR(m.check_sample(i, v));
  return m.check_content(i, v);
}

std::vector<std::string_view> SampleView::texts() const {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i < texts_blob.size(); ++i)
    if (texts_blob[i] == '\0') {
      out.push_back(texts_blob.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

bool is_cache_file(const std::string& path) {
  Result<ReadableFile> f = open_regular_file(path);
  char magic[sizeof kHeaderMagic] = {};
  return f.has_value() && f->size >= sizeof magic &&
         read_exactly(*f, path, magic, sizeof magic).ok() &&
         std::memcmp(magic, kHeaderMagic, sizeof magic) == 0;
}

}  // namespace textfeed::cache
