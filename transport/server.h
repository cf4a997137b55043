// Server: the daemon's protocol engine. One ZeroMQ ROUTER socket, owned by the thread that calls
// run(); streams (one per client rank) produce batches with a BatchPipeline on the server's
// oneTBB arena, round-robin between streams that hold credits, and send them as payload frames.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include <oneapi/tbb/task_arena.h>

#include "base/status.h"
#include "loader/source.h"

namespace textfeed::transport {

struct ServerOptions {
  std::string endpoint = "ipc:///tmp/textfeed.sock";
  std::map<std::string, std::shared_ptr<const loader::SampleSource>> datasets;  // name -> source
  std::string name = "textfeed serve";
  int max_credits = 16;  // per stream: more is refused, so memory stays bounded
};

// Not thread-safe: create, then run() from one thread; stop with the flag.
class Server {
 public:
  // Binds the endpoint (ipc paths are made mode 0600). Errors: kInvalidArgument, kUnavailable.
  static Result<std::unique_ptr<Server>> create(const ServerOptions& options, tbb::task_arena& arena);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Serves until `stop` becomes true (checked at least every 100 ms). Errors: kIo on socket failure.
  Status run(const std::atomic<bool>& stop);
  // The endpoint actually bound (tcp port 0 resolves to the chosen port).
  std::string endpoint() const;

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace textfeed::transport
