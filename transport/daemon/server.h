// Server: the daemon's protocol engine (docs/protocol.md). One ZeroMQ ROUTER socket, owned by the
// thread that calls run(); every client stream (one per DDP rank) fills batches on the server's
// oneTBB arena, several at once, dispatched round-robin between the streams that hold credits
// (Scheduler), and delivered in order: into the client's shared-memory slots, or as zero-copy
// payload frames. Its options, limits and timings are ServerOptions (transport/daemon/options.h).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "base/status.h"
#include "transport/daemon/options.h"

namespace textfeed::loader {
class WorkerPool;
}  // namespace textfeed::loader

namespace textfeed::transport {

// Not thread-safe: create, then run() from one thread; stop it with the flag.
class Server {
 public:
  // Binds the endpoint. An ipc path is claimed first (an flock on PATH.lock): a second daemon on
  // the path of a live one is refused, and nothing at the path but a stale socket of this user is
  // replaced; the socket is created mode 0600, with the memory socket PATH.mem beside it (shared
  // memory is offered over ipc only). Errors: kInvalidArgument (no dataset, tcp without CURVE or
  // allow_plain_tcp, bad keys, a path that is not ours to replace, an abstract ipc socket),
  // kUnavailable (bind failed, another daemon on the path). Fills run on `pool`, which must
  // outlive the Server.
  static Result<std::unique_ptr<Server>> create(const ServerOptions& options,
                                                loader::WorkerPool& pool);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Serves until `stop` becomes true (checked at least every options.poll_interval), then drains:
  // no new fills, running fills finish and are delivered, every client is told the daemon is
  // going away. Fills still running after drain_timeout are cancelled (each ends after the sample
  // its workers are on, augment options bound how long that is) and their batches dropped.
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
