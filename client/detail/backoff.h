// Backoff: the waits between a lost session's reconnect attempts: jittered exponential, so that
// the ranks of a job do not knock on a restarted daemon all at once, and deterministic given its
// seed.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace textfeed::client::internal {

// A value type; not thread-safe (one per session thread).
class Backoff {
 public:
  // The n-th wait (from 0) is min(first * 2^n, max), times a factor drawn uniformly in
  // [1 - jitter, 1 + jitter]. The caller has validated the arguments (ClientOptions).
  Backoff(std::chrono::milliseconds first, std::chrono::milliseconds max, double jitter,
          uint64_t seed);
  // The wait before the next attempt (at least 1 ms).
  std::chrono::milliseconds next();
  // After a success: the next wait is the first again.
  void reset() { base_ = first_; }

 private:
  std::chrono::milliseconds first_, max_, base_;
  double jitter_;
  std::mt19937_64 rng_;
};

}  // namespace textfeed::client::internal
