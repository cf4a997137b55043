// Wakeup: an eventfd that worker threads signal and a ZeroMQ poll loop watches (zmq_poll accepts
// plain file descriptors), so a socket thread sleeps until a socket or a finished batch needs it.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace textfeed::transport::internal {

// A resource type. signal() is thread-safe and async-signal-safe; drain() belongs to the thread
// that polls fd().
class Wakeup {
 public:
  Wakeup() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~Wakeup() {
    if (fd_ >= 0) ::close(fd_);
  }
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  void signal() const {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof(one));  // EAGAIN: already signalled
  }
  void drain() const {
    uint64_t v;
    [[maybe_unused]] const ssize_t n = ::read(fd_, &v, sizeof(v));  // EAGAIN: nothing pending
  }

 private:
  int fd_;
};

}  // namespace textfeed::transport::internal
