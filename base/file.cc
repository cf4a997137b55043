// Regular-file-only reads, fresh temporary files and guarded renames (see file.h).
#include "base/file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>

namespace textfeed {

const char* file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symlink";
  return "an unknown kind of file";
}

namespace {

Status not_regular(const std::string& path, mode_t mode) {
  return Status::invalid_argument(path + " is " + file_kind(mode) + ", not a regular file");
}

Status open_error(const std::string& path, int err) {
  if (err == ENOENT) return Status::not_found(path + ": no such file");
  return Status::from_errno("cannot open " + path, err);
}

template <class Buffer>
Status read_whole(const std::string& path, Buffer& out, uint64_t max_bytes) {
  TF_ASSIGN_OR_RETURN(ReadableFile f, open_regular_file(path));
  if (f.size > max_bytes)
    return Status::invalid_argument(path + ": file of " + std::to_string(f.size) +
                                    " bytes is over the limit of " + std::to_string(max_bytes) +
                                    " bytes");
  out.resize(static_cast<size_t>(f.size));
  return read_exactly(f, path, out.data(), out.size());
}

std::string random_hex() {
  uint64_t r = 0;
  if (::getrandom(&r, sizeof(r), 0) != static_cast<ssize_t>(sizeof(r))) {
    std::random_device rd;  // getrandom missing or interrupted: the library's own source
    r = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }
  char s[17];
  std::snprintf(s, sizeof(s), "%016llx", static_cast<unsigned long long>(r));
  return s;
}

}  // namespace

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

FileDescriptor::FileDescriptor(FileDescriptor&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

Status FileDescriptor::close() {
  if (fd_ < 0) return Status();
  const int rc = ::close(std::exchange(fd_, -1));
  return rc == 0 ? Status() : Status::from_errno("close", errno);
}

Result<ReadableFile> open_regular_file(const std::string& path) {
  // stat first, so that a device is never even opened (opening some has side effects: a tape
  // rewinds, a watchdog starts); fstat after the open closes the race with a swapped name.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return open_error(path, errno);
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode);
  ReadableFile f;
  f.fd = FileDescriptor(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!f.fd.valid()) return open_error(path, errno);
  if (::fstat(f.fd.get(), &st) != 0) return Status::from_errno("cannot stat " + path, errno);
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode);
  f.size = static_cast<uint64_t>(st.st_size);
  return f;
}

Status read_exactly(const ReadableFile& file, const std::string& path, void* dst, size_t n) {
  auto* p = static_cast<uint8_t*>(dst);
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(file.fd.get(), p + done, n - done, static_cast<off_t>(done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return Status::from_errno("cannot read " + path, errno);
    }
    if (got == 0)
      return Status::io("short read of " + path + ": " + std::to_string(done) + " of " +
                        std::to_string(n) + " bytes (the file shrank while it was read)");
    done += static_cast<size_t>(got);
  }
  return Status();
}

Status read_regular_file(const std::string& path, std::vector<uint8_t>& out, uint64_t max_bytes) {
  return read_whole(path, out, max_bytes);
}

Status read_regular_file(const std::string& path, std::string& out, uint64_t max_bytes) {
  return read_whole(path, out, max_bytes);
}

Status check_replaceable(const std::string& path, bool overwrite) {
  // "" would be refused only by the final rename, after the whole work of making the file.
  if (path.empty()) return Status::invalid_argument("the output path is empty");
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status();
    return Status::from_errno("cannot stat " + path, errno);
  }
  if (!overwrite) return Status::invalid_argument(path + " exists; pass --force to replace it");
  if (S_ISLNK(st.st_mode))
    return Status::invalid_argument(
        path +
        " is a symlink; refusing to replace it (name the file it points to, "
        "or remove the link)");
  if (!S_ISREG(st.st_mode))
    return Status::invalid_argument(path + " is " + file_kind(st.st_mode) +
                                    "; refusing to replace it: only a regular file is replaced");
  return Status();
}

Result<TempFile> create_temp_beside(const std::string& path, mode_t mode) {
  const std::string prefix = path + ".tmp-" + std::to_string(::getpid()) + "-";
  for (int attempt = 0;; ++attempt) {
    TempFile t;
    t.path = prefix + random_hex();
    t.fd = FileDescriptor(
        ::open(t.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (t.fd.valid()) return t;
    if (errno != EEXIST || attempt >= 8)
      return Status::from_errno("cannot create " + t.path, errno);
  }
}

Status rename_into_place(const std::string& from, const std::string& path, bool overwrite,
                         bool sync_folder) {
  TF_RETURN_IF_ERROR(check_replaceable(path, overwrite));
  const unsigned flags = overwrite ? 0 : RENAME_NOREPLACE;
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, path.c_str(), flags) != 0) {
    if (errno == EEXIST)
      return Status::invalid_argument(path + " appeared meanwhile; pass --force to replace it");
    return Status::from_errno("rename " + from + " -> " + path, errno);
  }
  if (!sync_folder) return Status();
  // Make the rename itself durable (best effort: some file systems refuse to fsync a folder).
  std::error_code ec;
  const std::string dir = std::filesystem::absolute(path, ec).parent_path().string();
  FileDescriptor d(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (d.valid()) ::fsync(d.get());
  return Status();
}

}  // namespace textfeed
