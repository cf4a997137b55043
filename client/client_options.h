// ClientOptions: every timing of a feed's daemon sessions (client/detail/daemon_session.h) and of
// its consumer side, each with its default, in one place, and the clock they are read on. The
// daemon's own are transport::ServerOptions. Python's Loader exposes four of them (timeout,
// daemon_timeout, reconnect_timeout, stall_timeout); the rest are for tests and embedders.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "base/clock.h"
#include "base/status.h"

namespace textfeed::client {

// A value type; copied into the feed. Every duration is a wall of steady time on `clock`.
struct ClientOptions {
  // A daemon's answer to Hello when the feed opens (kUnavailable after it: the daemon is taken for
  // absent, and its session keeps trying while another producer is up).
  std::chrono::milliseconds connect_timeout{10000};
  // Each reconnect attempt waits for Hello at most this long (and at most connect_timeout): a
  // daemon that answers late is tried again after the back-off, not waited for.
  std::chrono::milliseconds reconnect_connect_timeout{5000};
  // A session beats at least this often while it waits (and as often as the daemon asks).
  std::chrono::milliseconds heartbeat_interval{1000};
  // Silence after which a daemon is taken for lost; at least three of the daemon's own heartbeat
  // intervals (HelloReply.serverHeartbeatMillis), so that a quiet, live daemon is never lost
  // between two of them.
  std::chrono::milliseconds daemon_timeout{10000};
  // A session lost this long, while no other producer of its feed is up, gives up: out for good,
  // kUnavailable. With every producer out, next() fails with the last one's error.
  std::chrono::milliseconds reconnect_timeout{60000};
  // A daemon that still answers but has held the batch next() waits for this long (a hung read, a
  // stopped worker) is taken for lost too, and that batch is made elsewhere. Applies only while
  // another producer could make it (a feed of one daemon waits for it).
  std::chrono::milliseconds stall_timeout{30000};

  // The wait before each reconnect attempt of a lost session: backoff_first, doubling up to
  // backoff_max, each drawn in [1 - backoff_jitter, 1 + backoff_jitter] times that (so that the
  // ranks of a job do not knock on a restarted daemon all at once).
  std::chrono::milliseconds backoff_first{200};
  std::chrono::milliseconds backoff_max{5000};
  double backoff_jitter = 0.25;  // in [0, 1)
  // The jitter's seed, mixed with the producer's index; 0: drawn from std::random_device.
  uint64_t backoff_seed = 0;

  // A session's longest wait for a message before it looks at the clock (silence) again.
  std::chrono::milliseconds poll_interval{200};
  // How long a closing session waits for the daemon's Closed of its stream.
  std::chrono::milliseconds close_timeout{2000};
  // The consumer side (next(), the local threads) looks at the clock and the producers at least
  // this often while it waits.
  std::chrono::milliseconds wait_slice{100};

  // Where time is read; null: a SteadyClock. Tests pass a FakeClock. Shared: immutable, and it may
  // outlive the feed.
  std::shared_ptr<const Clock> clock;
};

// Errors: kInvalidArgument naming the field (a duration that is not positive, a jitter outside
// [0, 1), backoff_first above backoff_max).
Status validate(const ClientOptions& options);

// The clock of `options`: its own, or a SteadyClock.
inline std::shared_ptr<const Clock> clock_of(const ClientOptions& options) {
  return options.clock ? options.clock : std::make_shared<const SteadyClock>();
}

}  // namespace textfeed::client
