// Clock: the seam onto time. The daemon and the client read steady time only through it
// (heartbeats, silence, back-off, give-up, stalls, stats), so that tests move time by hand instead
// of sleeping. unix_millis() is the wall clock, for messages and logs only, never for timing.
#pragma once

#include <chrono>
#include <cstdint>

namespace textfeed {

// An interface. Implementations are thread-safe: now() may be called from any thread.
class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual TimePoint now() const = 0;
};

// The real one: std::chrono::steady_clock.
class SteadyClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
};

// Milliseconds since the Unix epoch, by the wall clock (Heartbeat.unixMillis: for the peer's logs).
inline int64_t unix_millis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace textfeed
