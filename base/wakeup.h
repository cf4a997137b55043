// Wakeup: an eventfd that other threads signal and one thread polls beside its sockets (zmq_poll
// and poll(2) accept it as a plain descriptor), so that the polling thread sleeps until a socket or
// a signal needs it. The one RAII wake-up of the daemon's loop and of the client's session threads.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <utility>

#include "base/status.h"

namespace textfeed {

// A resource type, move-only. signal() is thread-safe and async-signal-safe; drain() belongs to
// the thread that polls fd().
class Wakeup {
 public:
  // Errors: kIo naming errno (eventfd failed: out of descriptors, say).
  static Result<Wakeup> create() {
    const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) return Status::from_errno("eventfd", errno);
    return Wakeup(fd);
  }
  Wakeup(Wakeup&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Wakeup& operator=(Wakeup&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;
  ~Wakeup() { reset(); }

  // The descriptor to poll for readability; valid while this object lives.
  int fd() const { return fd_; }
  // Makes fd() readable until the next drain(). EAGAIN (the counter is full) means it already is.
  void signal() const {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(fd_, &one, sizeof(one));
  }
  // Clears the signals so far: call it before looking at what they were for, so that a signal
  // after the look is seen by the next poll. EAGAIN means none was pending.
  void drain() const {
    uint64_t v;
    [[maybe_unused]] const ssize_t n = ::read(fd_, &v, sizeof(v));
  }

 private:
  explicit Wakeup(int fd) : fd_(fd) {}
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

}  // namespace textfeed
