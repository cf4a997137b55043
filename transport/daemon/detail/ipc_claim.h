// IpcClaim: one daemon per ipc endpoint path. An flock on PATH.lock says a daemon lives there; a
// second one is refused instead of silently taking the socket, and nothing at PATH that is not a
// stale socket of this user (a regular file, a symlink, another user's socket) is ever replaced.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"

namespace textfeed::transport::internal {

// A resource type: holds the lock while it lives; removes the lock file when destroyed.
class IpcClaim {
 public:
  // Claims `path` (the socket path of an ipc:// endpoint). Errors: kUnavailable (another daemon
  // holds it), kInvalidArgument (something at the path or at PATH.lock that is not ours to
  // replace, an abstract or empty path), kIo.
  static Result<std::unique_ptr<IpcClaim>> claim(const std::string& path);
  ~IpcClaim();
  IpcClaim(const IpcClaim&) = delete;
  IpcClaim& operator=(const IpcClaim&) = delete;

  const std::string& path() const { return path_; }

 private:
  IpcClaim(std::string path, int lock_fd) : path_(std::move(path)), lock_fd_(lock_fd) {}
  std::string path_;
  int lock_fd_;
};

}  // namespace textfeed::transport::internal
