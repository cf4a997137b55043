// CacheWriter: appends records through a checksumming buffered sink, then meta, index, footer;
// fsync and an atomic rename make the file appear whole or not at all.
#include <fcntl.h>
#include <kj/debug.h>
#include <kj/exception.h>
#include <kj/io.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "base/file.h"
#include "base/log.h"
#include "cache/cache.h"
#include "cache/crc32c.h"
#include "cache/detail/codec.h"
#include "cache/format.h"

namespace textfeed::cache {
namespace {

// A buffered file sink that counts bytes and checksums the current record.
class FileSink final : public kj::OutputStream {
 public:
  explicit FileSink(int fd) : fd_(fd), buf_(kBufBytes) {}

  void write(const void* data, size_t size) override {
    if (size == 0) return;  // data may be null then (an empty index): nothing to checksum or copy
    const uint8_t* p = static_cast<const uint8_t*>(data);
    crc_ = crc32c(p, size, crc_);
    offset_ += size;
    if (used_ + size <= kBufBytes) {
      std::memcpy(buf_.data() + used_, p, size);
      used_ += size;
      return;
    }
    flush();
    if (size >= kBufBytes) {
      write_all(p, size);  // large pixel blocks go straight from the caller's memory
    } else {
      std::memcpy(buf_.data(), p, size);
      used_ = size;
    }
  }

  void flush() {
    write_all(buf_.data(), used_);
    used_ = 0;
  }

  // Starts writeback of everything written since the last call once it reaches kSyncBytes, so
  // the disk works while the build goes on and the final fsync only waits for the tail (as
  // RocksDB's bytes_per_sync). Asynchronous: it does not wait for the disk.
  void start_writeback() {
    const uint64_t written = offset_ - used_;
    if (written - synced_ < kSyncBytes) return;
    ::sync_file_range(fd_, static_cast<off_t>(synced_), static_cast<off_t>(written - synced_),
                      SYNC_FILE_RANGE_WRITE);  // best effort: fsync in finish() is the guarantee
    synced_ = written;
  }
  uint64_t offset() const { return offset_; }
  uint32_t take_crc() { return std::exchange(crc_, 0); }

 private:
  static constexpr size_t kBufBytes = 1 << 20;
  static constexpr uint64_t kSyncBytes = 64 << 20;
  void write_all(const uint8_t* p, size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        KJ_FAIL_SYSCALL("write", errno);
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
  }
  int fd_;
  std::vector<uint8_t> buf_;
  size_t used_ = 0;
  uint64_t offset_ = 0;
  uint64_t synced_ = 0;  // bytes whose writeback has been started
  uint32_t crc_ = 0;
};

// The pid of a temporary name's tail "<pid>" (older builds) or "<pid>-<16 hex digits>"
// (create_temp_beside), or 0 when the tail is neither.
pid_t temp_owner(const std::string& tail) {
  const size_t dash = tail.find('-');
  const std::string digits = tail.substr(0, dash);
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return 0;
  if (dash != std::string::npos &&
      (tail.size() - dash - 1 != 16 ||
       tail.find_first_not_of("0123456789abcdef", dash + 1) != std::string::npos))
    return 0;
  return static_cast<pid_t>(std::stol(digits));
}

// Removes the temporaries of `path` whose process no longer exists: what a killed build leaves.
// A live process's temporary (a build running now, or one of another user: EPERM) is kept, and
// only regular files are removed (a planted symlink or folder of that name is left alone).
std::vector<std::string> remove_stale_temps(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<std::string> removed;
  const fs::path p(path);
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  const std::string prefix = p.filename().string() + ".tmp-";
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const pid_t pid = temp_owner(name.substr(prefix.size()));
    if (pid <= 0 || pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec) || it->is_symlink(type_ec)) continue;
    std::error_code rm_ec;
    if (fs::remove(it->path(), rm_ec)) removed.push_back(it->path().string());
  }
  return removed;
}

}  // namespace

std::string_view codec_name(PixelCodec codec) {
  return codec == PixelCodec::kJpeg ? "jpeg" : "raw";
}

struct CacheWriter::Impl {
  std::string path, temp;
  bool overwrite = false;
  FileDescriptor fd;
  std::unique_ptr<FileSink> sink;
  std::vector<IndexEntry> index;
  uint64_t words = 0, ignored = 0, pixel_bytes = 0, raw_pixel_bytes = 0;
  std::vector<std::string> removed_stale;
  bool finished = false;

  ~Impl() {
    fd = FileDescriptor();
    if (!finished && !temp.empty()) ::unlink(temp.c_str());
  }
};

CacheWriter::CacheWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CacheWriter::~CacheWriter() = default;

Result<std::unique_ptr<CacheWriter>> CacheWriter::create(const std::string& path, bool overwrite) {
  // Refused now, not after an hour of building: only a regular file is ever replaced.
  TF_RETURN_IF_ERROR(check_replaceable(path, overwrite));
  if (overwrite) {
    // And only a cache (or an empty file): --force on a mistyped --out must not replace a
    // dataset's annotations or anything else that happens to be a regular file.
    std::error_code ec;
    const uintmax_t bytes = std::filesystem::file_size(path, ec);  // a regular file, or none
    if (!ec && bytes > 0 && !is_cache_file(path))
      return Status::invalid_argument(
          path +
          " exists and is not a textfeed cache: only a cache is replaced "
          "(remove the file yourself if it should go)");
  }
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->overwrite = overwrite;
  impl->removed_stale = remove_stale_temps(path);
  for (const std::string& t : impl->removed_stale)
    TF_LOG(Warning) << "removed " << t << ", left by an interrupted build";
  // A fresh file of an unguessable name (O_EXCL | O_NOFOLLOW): a symlink planted at a predictable
  // temporary name would otherwise have its target overwritten.
  TF_ASSIGN_OR_RETURN(TempFile temp, create_temp_beside(path, 0644));
  impl->temp = temp.path;
  impl->fd = std::move(temp.fd);
  impl->sink = std::make_unique<FileSink>(impl->fd.get());
  FileHeader h{};
  std::memcpy(h.magic, kHeaderMagic, 8);
  h.format_version = kFormatVersion;
  h.header_size = sizeof(FileHeader);
  h.schema_id = kSchemaId;
  h.endian_marker = kEndianMarker;
  h.header_crc = crc32c(&h, offsetof(FileHeader, header_crc));
  try {
    impl->sink->write(&h, sizeof(h));
  } catch (const kj::Exception& e) {
    return Status::io(impl->temp + ": " + e.getDescription().cStr());
  }
  return std::unique_ptr<CacheWriter>(new CacheWriter(std::move(impl)));
}

Status CacheWriter::add(const SampleData& s) {
  Impl& m = *impl_;
  if (m.finished) return Status::invalid_argument("cache writer: add() after finish()");
  if (s.labels.size() != s.quads.size() || s.texts.size() != s.quads.size())
    return Status::invalid_argument("cache writer: sample '" + std::string(s.name) +
                                    "' has unequal numbers of quads, labels and texts");
  for (const std::string& t : s.texts)
    if (t.find('\0') != std::string::npos)  // the record keeps transcriptions NUL-separated
      return Status::invalid_argument("cache writer: sample '" + std::string(s.name) +
                                      "' has a transcription with a NUL byte");
  uint64_t text_bytes = 0;
  for (const std::string& t : s.texts) text_bytes += t.size() + 1;
  const uint64_t record =
      record_bytes_bound(s.name.size(), s.pixels.size(), s.quads.size(), text_bytes) +
      s.poly_xy.size_bytes() + s.poly_points.size_bytes() + s.poly_labels.size();
  if (s.pixels.size() > kMaxBlobBytes || text_bytes > kMaxBlobBytes ||
      s.quads.size_bytes() > kMaxBlobBytes || record > kMaxRecordBytes)
    return Status::invalid_argument(
        "cache writer: sample '" + std::string(s.name) + "' would be a record of up to " +
        std::to_string(record) + " bytes (" + std::to_string(s.pixels.size()) + " of pixels, " +
        std::to_string(text_bytes) + " of transcriptions), over the " + "limits of " +
        std::to_string(kMaxBlobBytes) + " per field and " + std::to_string(kMaxRecordBytes) +
        " per record");
  // What the reader refuses is never written.
  if (std::string why = internal::check_words(s.quads, s.labels); !why.empty())
    return Status::invalid_argument("cache writer: sample '" + std::string(s.name) + "' " + why);
  if (std::string why = internal::check_polygons(s.poly_xy, s.poly_points, s.poly_labels);
      !why.empty())
    return Status::invalid_argument("cache writer: sample '" + std::string(s.name) + "': " + why);
  if (s.width <= 0 || s.height <= 0)
    return Status::invalid_argument("cache writer: sample '" + std::string(s.name) +
                                    "' has an empty image (" + std::to_string(s.width) + "x" +
                                    std::to_string(s.height) + ")");
  if (s.codec == PixelCodec::kRaw &&
      s.pixels.size() != static_cast<size_t>(s.width) * static_cast<size_t>(s.height) * 3)
    return Status::invalid_argument("cache writer: sample '" + std::string(s.name) +
                                    "' raw pixels do not match " + std::to_string(s.width) + "x" +
                                    std::to_string(s.height) + "x3");
  IndexEntry e{};
  e.offset = m.sink->offset();
  m.sink->take_crc();
  try {
    internal::write_sample(*m.sink, s, static_cast<uint32_t>(m.index.size()));
  } catch (const kj::Exception& ex) {
    return Status::io(m.temp + ": writing sample '" + std::string(s.name) +
                      "': " + ex.getDescription().cStr());
  }
  e.size = m.sink->offset() - e.offset;
  e.crc = m.sink->take_crc();
  m.sink->start_writeback();
  m.index.push_back(e);
  m.words += s.quads.size();
  for (unsigned char l : s.labels) m.ignored += (l == kLabelIgnored);
  m.pixel_bytes += s.pixels.size();
  m.raw_pixel_bytes += static_cast<uint64_t>(s.width) * static_cast<uint64_t>(s.height) * 3;
  return Status();
}

Status CacheWriter::finish(CacheMeta meta) {
  Impl& m = *impl_;
  if (m.finished) return Status::invalid_argument("cache writer: finish() twice");
  meta.num_words = m.words;
  meta.num_ignored = m.ignored;
  meta.pixel_bytes = m.pixel_bytes;
  meta.raw_pixel_bytes = m.raw_pixel_bytes;
  FileFooter f{};
  try {
    f.meta_offset = m.sink->offset();
    m.sink->take_crc();
    internal::write_meta(*m.sink, meta);
    f.meta_size = m.sink->offset() - f.meta_offset;
    f.meta_crc = m.sink->take_crc();
    f.index_offset = m.sink->offset();
    m.sink->write(m.index.data(), m.index.size() * sizeof(IndexEntry));
    f.index_crc = m.sink->take_crc();
    f.num_samples = m.index.size();
    f.format_version = kFormatVersion;
    std::memcpy(f.magic, kFooterMagic, 8);
    f.footer_crc = crc32c(&f, offsetof(FileFooter, footer_crc));
    m.sink->write(&f, sizeof(f));
    m.sink->flush();
  } catch (const kj::Exception& ex) {
    return Status::io(m.temp + ": " + ex.getDescription().cStr());
  }
  if (::fsync(m.fd.get()) != 0) return Status::from_errno("fsync " + m.temp, errno);
  TF_RETURN_IF_ERROR(m.fd.close().with_context(m.temp));
  TF_RETURN_IF_ERROR(rename_into_place(m.temp, m.path, m.overwrite));
  m.finished = true;
  return Status();
}

size_t CacheWriter::num_samples() const { return impl_->index.size(); }
uint64_t CacheWriter::bytes_written() const { return impl_->sink->offset(); }
const std::string& CacheWriter::temp_path() const { return impl_->temp; }
const std::vector<std::string>& CacheWriter::removed_stale_temps() const {
  return impl_->removed_stale;
}

}  // namespace textfeed::cache
