// An eventfd as a wake-up for a thread that polls it with its socket: signal() from any thread,
// drain() by the thread before it looks at what it was woken for.
#pragma once

#include <unistd.h>

#include <cstdint>

namespace textfeed::client::internal {

inline void signal_fd(int fd) {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(fd, &one, sizeof(one));
}

inline void drain_fd(int fd) {
  uint64_t v;
  [[maybe_unused]] const ssize_t n = ::read(fd, &v, sizeof(v));
}

}  // namespace textfeed::client::internal
