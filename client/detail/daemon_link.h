// DaemonLink: what a daemon session needs of one connection to its daemon, as a seam: a
// transport::Connection in production (connect_daemon()), a scripted daemon in the session's
// tests, which then run without sockets, threads or sleeps.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "base/wakeup.h"
#include "client/slot_ring.h"
#include "transport/connection.h"
#include "transport/wire.h"

namespace textfeed::client::internal {

// A resource type owned by one thread, as the connection under it (transport::Connection's
// contract for each call).
class DaemonLink {
 public:
  virtual ~DaemonLink() = default;
  virtual const transport::HelloReply& hello() const = 0;
  virtual Result<transport::StreamOpened> open(const transport::OpenStream& request,
                                               std::chrono::milliseconds timeout) = 0;
  // Lends a shared-memory stream `ring`'s memory file.
  virtual Status attach(const transport::StreamOpened& stream, const SlotRing& ring,
                        std::chrono::milliseconds timeout) = 0;
  virtual Status credit(const transport::Credit& credit) = 0;
  virtual Result<std::optional<transport::Message>> poll(
      std::chrono::milliseconds timeout, const transport::Connection::PayloadFor& payload_for,
      const Wakeup* wake) = 0;
  virtual Status close(uint64_t stream_id, std::chrono::milliseconds timeout) = 0;
  // When the daemon was last heard from (heartbeats too), on the session's clock.
  virtual Clock::TimePoint last_heard() const = 0;
};

// Makes a session's links. Thread-safe: each session calls it from its own thread.
class DaemonConnector {
 public:
  virtual ~DaemonConnector() = default;
  // Connects and says Hello. Errors: transport::Connection::connect's.
  virtual Result<std::unique_ptr<DaemonLink>> connect(const std::string& endpoint,
                                                      const std::string& client_name,
                                                      const transport::ConnectOptions& options) = 0;
};

// Links over transport::Connection (ZeroMQ), whose steady time is the SteadyClock's.
std::shared_ptr<DaemonConnector> connection_connector();

}  // namespace textfeed::client::internal
