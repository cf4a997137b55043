// Clock: the daemon's seam onto time. The daemon reads time only through it (heartbeats, client
// timeouts, the drain deadline, stats), so that tests can move time by hand instead of sleeping.
#pragma once

#include <chrono>

namespace textfeed::transport {

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

}  // namespace textfeed::transport
