// IpcClaim: flock on a lock file, re-checked against the path after locking (a lock file removed
// by the daemon that held it must not be locked by a second daemon while a third creates a new
// one).
#include "transport/daemon/detail/ipc_claim.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file.h"

namespace textfeed::transport::internal {

namespace {

// Opens and locks PATH.lock. kUnavailable when another daemon holds it.
Result<int> lock(const std::string& lock_path) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int fd =
        ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0) {
      const int e = errno;
      if (e == ELOOP)
        return Status::invalid_argument(lock_path + " is a symbolic link: refusing to use it");
      return Status::from_errno("cannot open " + lock_path, e);
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
      ::close(fd);
      return Status::invalid_argument(lock_path +
                                      " is not a regular file of this user: refusing to use it");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      ::close(fd);
      if (e == EWOULDBLOCK)
        return Status::unavailable("another textfeed serve is running on this endpoint (it holds " +
                                   lock_path + ")");
      return Status::from_errno("cannot lock " + lock_path, e);
    }
    struct stat now {};
    if (::lstat(lock_path.c_str(), &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino)
      return fd;
    ::close(fd);  // the file was removed or replaced between open and flock: try the new one
  }
  return Status::unavailable("cannot settle the lock " + lock_path + " (it keeps being replaced)");
}

}  // namespace

Result<std::unique_ptr<IpcClaim>> IpcClaim::claim(const std::string& path) {
  if (path.empty()) return Status::invalid_argument("an ipc endpoint needs a path");
  if (path[0] == '@')
    return Status::invalid_argument(
        "ipc://" + path +
        " is an abstract socket: it has no file permissions, so anyone on this host "
        "could connect; give a path");
  TF_ASSIGN_OR_RETURN(const int fd, lock(path + ".lock"));
  std::unique_ptr<IpcClaim> claim(new IpcClaim(path, fd));
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode) || st.st_uid != ::geteuid())
      return Status::invalid_argument(
          path + " exists and is " +
          (S_ISSOCK(st.st_mode) ? "another user's socket" : file_kind(st.st_mode)) +
          ": refusing to replace it (remove it, or bind another path)");
    ::unlink(path.c_str());  // a socket left by a daemon that died: we hold the lock now
  }
  return claim;
}

IpcClaim::~IpcClaim() {
  // Removed while still locked: a daemon that opened the old file before this is refused, or
  // (after the unlock) finds that the path no longer names the file it locked and starts over.
  // Only while the path still names the file this claim locked.
  struct stat held {
  }, now{};
  const std::string lock = path_ + ".lock";
  if (::fstat(lock_fd_, &held) == 0 && ::lstat(lock.c_str(), &now) == 0 &&
      now.st_dev == held.st_dev && now.st_ino == held.st_ino)
    ::unlink(lock.c_str());
  ::close(lock_fd_);
}

}  // namespace textfeed::transport::internal
