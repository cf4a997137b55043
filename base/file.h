// Files named from outside (dataset images and annotations, cache files, output paths) opened
// without being tricked: a name that is a FIFO, a device, a socket or a folder is refused without
// blocking, and a file written for the caller is created fresh beside its destination (never
// through a planted symlink) and renamed over nothing but a regular file.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace textfeed {

// An open file descriptor, closed on destruction. A move-only resource type; not thread-safe.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& other) noexcept;
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  // Closes now. Errors: kIo (close failed; the descriptor is gone either way).
  Status close();

 private:
  int fd_ = -1;
};

// What a file of this st_mode is, for messages: "a regular file", "a folder", "a FIFO",
// "a socket", "a character device", "a block device", "a symlink".
const char* file_kind(mode_t mode);

// A regular file open for reading, and its size when it was opened.
struct ReadableFile {
  FileDescriptor fd;
  uint64_t size = 0;
};

// Opens `path` (symlinks followed) for reading only if it is a regular file. The open uses
// O_NONBLOCK | O_NOCTTY | O_CLOEXEC, so a FIFO or a terminal neither blocks nor becomes the
// controlling terminal, and the type is checked with fstat on the descriptor itself (no race
// between the check and the use). Reads of a regular file ignore O_NONBLOCK.
// Errors: kNotFound; kInvalidArgument (a folder, FIFO, socket or device, named as such); kIo.
Result<ReadableFile> open_regular_file(const std::string& path);

// Reads `n` bytes from offset 0 of `file` into `dst`. `path` is for messages.
// Errors: kIo (a read error, or the file is shorter than `n`: it shrank since it was opened).
Status read_exactly(const ReadableFile& file, const std::string& path, void* dst, size_t n);

// Reads the whole regular file `path` into `out` (resized; its capacity is reused).
// Errors: those of open_regular_file; kInvalidArgument (more than `max_bytes`); kIo.
Status read_regular_file(const std::string& path, std::vector<uint8_t>& out, uint64_t max_bytes);
Status read_regular_file(const std::string& path, std::string& out, uint64_t max_bytes);

// Whether `path` may be replaced by a new file: it does not exist, or `overwrite` is set and it
// is a regular file (lstat: a symlink is refused, not resolved; so are folders, devices, FIFOs
// and sockets). Errors: kInvalidArgument saying why (an empty path included); kIo.
Status check_replaceable(const std::string& path, bool overwrite);

// A new, empty file beside `path`: "<path>.tmp-<pid>-<16 random hex digits>", created with
// O_EXCL | O_NOFOLLOW and `mode` (less the umask), so it is never an existing file or a symlink's
// target and its name cannot be guessed in advance. Errors: kIo.
struct TempFile {
  FileDescriptor fd;
  std::string path;
};
Result<TempFile> create_temp_beside(const std::string& path, mode_t mode);

// Renames `from` to `path` after check_replaceable(path, overwrite) (with RENAME_NOREPLACE when
// !overwrite, so a file that appears meanwhile is not replaced), then, when `sync_folder`, fsyncs
// the folder so the rename is durable. Errors: kInvalidArgument (see check_replaceable), kIo.
Status rename_into_place(const std::string& from, const std::string& path, bool overwrite,
                         bool sync_folder = true);

}  // namespace textfeed
