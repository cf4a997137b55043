// CacheWriter: appends records through a checksumming buffered sink, then meta, index, footer;
// fsync and an atomic rename make the file appear whole or not at all.
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include <kj/debug.h>
#include <kj/exception.h>
#include <kj/io.h>

#include "cache/cache.h"
#include "cache/crc32c.h"
#include "cache/detail/codec.h"
#include "cache/format.h"

namespace textfeed::cache {
namespace {

// A buffered file sink that counts bytes and checksums the current record.
class FileSink final : public kj::OutputStream {
 public:
  explicit FileSink(int fd) : fd_(fd) { buf_.reserve(kBufBytes); }

  void write(const void* data, size_t size) override {
    const uint8_t* p = static_cast<const uint8_t*>(data);
    crc_ = crc32c(p, size, crc_);
    offset_ += size;
    if (buf_.size() + size <= kBufBytes) {
      buf_.insert(buf_.end(), p, p + size);
      return;
    }
    flush();
    if (size >= kBufBytes) {
      write_all(p, size);
    } else {
      buf_.insert(buf_.end(), p, p + size);
    }
  }

  void flush() {
    write_all(buf_.data(), buf_.size());
    buf_.clear();
  }
  uint64_t offset() const { return offset_; }
  uint32_t take_crc() { return std::exchange(crc_, 0); }

 private:
  static constexpr size_t kBufBytes = 1 << 20;
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
  uint64_t offset_ = 0;
  uint32_t crc_ = 0;
};

}  // namespace

std::string_view codec_name(PixelCodec codec) { return codec == PixelCodec::kJpeg ? "jpeg" : "raw"; }

struct CacheWriter::Impl {
  std::string path, temp;
  bool overwrite = false;
  int fd = -1;
  std::unique_ptr<FileSink> sink;
  std::vector<IndexEntry> index;
  uint64_t words = 0, ignored = 0, pixel_bytes = 0;
  bool finished = false;

  ~Impl() {
    if (fd >= 0) ::close(fd);
    if (!finished && !temp.empty()) ::unlink(temp.c_str());
  }
};

CacheWriter::CacheWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CacheWriter::~CacheWriter() = default;

Result<std::unique_ptr<CacheWriter>> CacheWriter::create(const std::string& path, bool overwrite) {
  if (!overwrite && std::filesystem::exists(path))
    return Status::invalid_argument(path + " exists; pass --force to replace it");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->overwrite = overwrite;
  impl->temp = path + ".tmp-" + std::to_string(::getpid());
  impl->fd = ::open(impl->temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (impl->fd < 0) {
    impl->temp.clear();
    return Status::from_errno("cannot create " + path + ".tmp-*", errno);
  }
  impl->sink = std::make_unique<FileSink>(impl->fd);
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
    return Status::io(m.temp + ": writing sample '" + std::string(s.name) + "': " + ex.getDescription().cStr());
  }
  e.size = m.sink->offset() - e.offset;
  e.crc = m.sink->take_crc();
  m.index.push_back(e);
  m.words += s.quads.size();
  for (unsigned char l : s.labels) m.ignored += (l == kLabelIgnored);
  m.pixel_bytes += s.pixels.size();
  return Status();
}

Status CacheWriter::finish(CacheMeta meta) {
  Impl& m = *impl_;
  if (m.finished) return Status::invalid_argument("cache writer: finish() twice");
  meta.num_words = m.words;
  meta.num_ignored = m.ignored;
  meta.pixel_bytes = m.pixel_bytes;
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
  if (::fsync(m.fd) != 0) return Status::from_errno("fsync " + m.temp, errno);
  ::close(m.fd);
  m.fd = -1;
  const unsigned flags = m.overwrite ? 0 : RENAME_NOREPLACE;
  if (::renameat2(AT_FDCWD, m.temp.c_str(), AT_FDCWD, m.path.c_str(), flags) != 0) {
    if (errno == EEXIST) return Status::invalid_argument(m.path + " appeared during the build; pass --force to replace it");
    return Status::from_errno("rename " + m.temp + " -> " + m.path, errno);
  }
  m.finished = true;
  // Make the rename itself durable.
  const std::string dir = std::filesystem::absolute(m.path).parent_path().string();
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status();
}

size_t CacheWriter::num_samples() const { return impl_->index.size(); }
uint64_t CacheWriter::bytes_written() const { return impl_->sink->offset(); }
const std::string& CacheWriter::temp_path() const { return impl_->temp; }

}  // namespace textfeed::cache
