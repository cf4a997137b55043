// FakeClock: a Clock that moves only when a test moves it, so that timeouts, heartbeats, silence
// and back-off are tested without sleeping (the daemon's tests and the client's).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/clock.h"

namespace textfeed {

// Thread-safe: a test advances it while another thread reads it.
class FakeClock final : public Clock {
 public:
  TimePoint now() const override { return TimePoint(std::chrono::nanoseconds(ns_.load())); }
  void advance(std::chrono::nanoseconds d) { ns_ += d.count(); }

 private:
  std::atomic<int64_t> ns_{int64_t{1} << 40};  // far from zero, as a steady clock is
};

}  // namespace textfeed
