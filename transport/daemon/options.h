// ServerOptions: every limit and timing of the daemon, each with its default, in one place.
// `textfeed serve --help` documents the ones it exposes (tools/serve_command.cc takes its
// defaults from here). Limits that belong to the protocol are not repeated: the daemon checks them
// against the wire's constants (transport/wire.h, transport/shm.h).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "base/clock.h"
#include "loader/sources/source.h"
#include "transport/curve.h"

namespace textfeed::transport {

// The ranges `textfeed serve` accepts for its options (the defaults below lie inside them).
inline constexpr int kMaxCreditsLimit = 1024;          // --max-credits: 1..this
inline constexpr int kMaxFrameBuffersLimit = 64;       // --frame-buffers: 1..this
inline constexpr int kMaxStreamOrClientLimit = 65536;  // --max-streams(-per-client), --max-clients
// A value type; copied into the Server.
struct ServerOptions {
  std::string endpoint = "ipc:///tmp/textfeed.sock";  // ipc:// (made mode 0600) or tcp://
  std::map<std::string, std::shared_ptr<const loader::SampleSource>> datasets;  // name -> source
  loader::ReaderOptions reader;  // what the datasets (not the caches) were read with: a stream must
                                 // ask for the same
  loader::DecodeOptions decode;  // this daemon's decode limits, whatever a stream asks
  std::string name = "textfeed serve";

  // Per stream.
  int max_credits = 16;   // batches in flight at most; more is refused (kOverloaded)
  int frame_buffers = 3;  // frames streams: daemon-side batch buffers (memory = this x batch)
  size_t max_batch_bytes = size_t{4} << 30;  // a stream whose batch is larger is refused

  // Scheduling: fills started and not yet sent, over all streams; 0 = worker threads + 2.
  int max_in_flight = 0;

  // Bounds on what clients can make the daemon hold; a request past one is refused (kOverloaded)
  // with a message naming the limit.
  int max_streams_per_client = 64;  // open streams of one connection
  int max_streams = 1024;           // open streams of all clients (ended ones count until their
                                    // fills stop)
  int max_clients = 4096;       // connections known at once (each forgotten after client_timeout
                                // of silence)
  size_t max_memory_bytes = 0;  // daemon-side batch memory (frame buffers) of all streams;
                                // 0 = half of the physical memory

  // Timing.
  std::chrono::milliseconds client_timeout{10000};     // a client silent this long is gone
  std::chrono::milliseconds heartbeat_interval{1000};  // send one after this long without traffic
  std::chrono::milliseconds drain_timeout{30000};      // on stop, wait this long for running fills,
                                                       // then cancel them
  std::chrono::milliseconds poll_interval{100};  // the loop wakes at least this often (to see the
                                                 // stop flag; sockets and finished fills wake it
                                                 // at once)
  std::chrono::milliseconds peer_check_interval{
      100};  // how often silence and heartbeats are checked
  std::chrono::milliseconds trim_interval{
      1000};  // heap handed back (malloc_trim) at most this often
  std::chrono::milliseconds refusal_log_interval{1000};  // refused memory hand-overs: one log line
                                                         // at most this often
  std::chrono::milliseconds stop_linger{
      1000};  // on stop, how long the last messages may take to go

  // Work per pass of the loop, so that batches keep flowing under a flood.
  int messages_per_pass = 256;            // client messages handled
  size_t memory_handovers_per_pass = 64;  // shared-memory descriptors taken
  // Error replies repeat what the client sent (a dataset name, an option): cut to this, so that a
  // reply always fits in one envelope and a log line stays a line.
  size_t max_error_message_bytes = 16 << 10;

  CurveServerOptions curve;      // CURVE encryption + client allow list (tcp)
  bool allow_plain_tcp = false;  // tcp without CURVE must be asked for explicitly

  // Time for heartbeats, client timeouts, stats and the drain; null: a SteadyClock. Tests pass a
  // FakeClock. Shared: immutable from the Server's side, and it may outlive the Server.
  std::shared_ptr<const Clock> clock;

  // How often clients are asked to send a heartbeat (HelloReply.heartbeatMillis): four within
  // the client timeout, at most one a second.
  std::chrono::milliseconds client_heartbeat_interval() const {
    return std::max(std::chrono::milliseconds(1),
                    std::min(std::chrono::milliseconds(1000), client_timeout / 4));
  }
};

}  // namespace textfeed::transport
