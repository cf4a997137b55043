// Connection: a client's side of the protocol (one DEALER socket, owned by one thread). Opens a
// stream, grants credits, and receives batches into the caller's buffer.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>

#include "base/status.h"
#include "transport/wire.h"

namespace textfeed::transport {

// A resource type; not thread-safe (ZeroMQ sockets belong to one thread).
class Connection {
 public:
  // Connects and says Hello. Errors: kUnavailable (no answer within `timeout`),
  // kUnimplemented (protocol version mismatch), others from the daemon's Error reply.
  static Result<std::unique_ptr<Connection>> connect(const std::string& endpoint, const std::string& client_name,
                                                     std::chrono::milliseconds timeout = std::chrono::seconds(10));
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  const HelloReply& hello() const;
  // Opens a stream. Errors: the daemon's Error (kNotFound for an unknown dataset, ...).
  Result<StreamOpened> open(const OpenStream& request, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Grants `count` more batches to the stream.
  Status credit(uint64_t stream_id, uint32_t count);
  // Receives the next Batch (EndOfEpoch messages are skipped and counted) and copies its payload
  // frames into `slot` at the descriptors' offsets. Errors: kUnavailable (timeout), the daemon's
  // Error, kCorrupt (payload frames that do not match the header or overflow `slot`).
  Result<BatchHeader> receive(std::span<uint8_t> slot, std::chrono::milliseconds timeout);
  // Sends a raw frame (for tests of the daemon's handling of garbage) and returns its reply.
  Result<Message> send_raw_for_testing(std::span<const uint8_t> frame, std::chrono::milliseconds timeout);
  Status close(uint64_t stream_id);

 private:
  struct Impl;
  explicit Connection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace textfeed::transport
