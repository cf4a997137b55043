// wait_until: tests wait for a condition with a deadline, never for a fixed time.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace textfeed::transport {

// Polls `done` until it is true or `timeout` has passed; returns its last answer. The pause
// between polls only spaces them out: no result depends on its length.
inline bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace textfeed::transport
