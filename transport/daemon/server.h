// Server: the daemon's protocol engine (docs/protocol.md). One ZeroMQ ROUTER socket, owned by the
// thread that calls run(); every client stream (one per DDP rank) fills batches on the server's
// oneTBB arena, several at once, dispatched round-robin between the streams that hold credits,
// and delivered in order: into the client's shared-memory slots, or as zero-copy payload frames.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "base/status.h"
#include "loader/source.h"
#include "transport/curve.h"

namespace textfeed::loader {
class WorkerArena;
}  // namespace textfeed::loader

namespace textfeed::transport {

// Every knob of the daemon; `textfeed serve --help` documents the same ones.
struct ServerOptions {
  std::string endpoint = "ipc:///tmp/textfeed.sock";  // ipc:// (made mode 0600) or tcp://
  std::map<std::string, std::shared_ptr<const loader::SampleSource>> datasets;  // name -> source
  std::string name = "textfeed serve";
  int max_credits = 16;      // per stream: batches in flight at most; more is refused (kOverloaded)
  int frame_buffers = 3;     // per frames stream: daemon-side batch buffers (memory = this x batch)
  int max_in_flight = 0;     // fills started and not yet sent, over all streams; 0 = threads + 2
  size_t max_batch_bytes = size_t{4} << 30;  // a stream whose batch is larger is refused
  std::chrono::milliseconds client_timeout{10000};    // a client silent this long is gone
  std::chrono::milliseconds heartbeat_interval{1000};  // send one after this long without traffic
  std::chrono::milliseconds drain_timeout{30000};      // on stop, wait this long for running fills,
                                                       // then cancel them
  CurveServerOptions curve;  // CURVE encryption + client allow list (tcp)
  bool allow_plain_tcp = false;  // tcp without CURVE must be asked for explicitly
  // Bounds on what clients can make the daemon hold; a request past one is refused (kOverloaded)
  // with a message naming the limit.
  int max_streams_per_client = 64;  // open streams of one connection
  int max_streams = 1024;           // open streams of all clients (ended ones count until their
                                    // fills stop)
  int max_clients = 4096;           // connections known at once (each forgotten after client_timeout
                                    // of silence)
  size_t max_memory_bytes = 0;      // daemon-side batch memory (frame buffers) of all streams;
                                    // 0 = half of the physical memory
};

// Not thread-safe: create, then run() from one thread; stop it with the flag.
class Server {
 public:
  // Binds the endpoint. An ipc path is claimed first (an flock on PATH.lock): a second daemon on
  // the path of a live one is refused, and nothing at the path but a stale socket of this user is
  // replaced; the socket is created mode 0600, with the memory socket PATH.mem beside it (shared
  // memory is offered over ipc only). Errors: kInvalidArgument (no dataset, tcp without CURVE or
  // allow_plain_tcp, bad keys, a path that is not ours to replace, an abstract ipc socket),
  // kUnavailable (bind failed, another daemon on the path). Fills run on `arena`, which must
  // outlive the Server.
  static Result<std::unique_ptr<Server>> create(const ServerOptions& options, loader::WorkerArena& arena);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Serves until `stop` becomes true (checked at least every 100 ms), then drains: no new fills,
  // running fills finish and are delivered, every client is told the daemon is going away. Fills
  // still running after drain_timeout are cancelled (each ends after the sample its workers are
  // on, augment options bound how long that is) and their batches dropped.
  // Errors: kIo on socket failure.
  Status run(const std::atomic<bool>& stop);
  // The endpoint actually bound (tcp port 0 resolves to the chosen port).
  std::string endpoint() const;

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace textfeed::transport
