// ZapHandler: the daemon's ZeroMQ authentication handler (ZAP, RFC 27) for CURVE. libzmq asks it,
// over inproc://zeromq.zap.01 in the daemon's context, whether a client's public key may connect;
// it answers from the allow list. The socket is polled by the server's own loop (one thread).
#pragma once

#include <set>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "base/status.h"

namespace textfeed::transport::internal {

// A resource type owned by the server's thread (ZeroMQ sockets are single-threaded).
class ZapHandler {
 public:
  // Binds the ZAP endpoint in `context`. `allowed` are Z85 client public keys.
  // Errors: kInvalidArgument (a key that is not Z85), kUnavailable (bind failed).
  static Result<std::unique_ptr<ZapHandler>> create(zmq::context_t& context,
                                                    const std::vector<std::string>& allowed);
  zmq::socket_t& socket() { return socket_; }
  // Answers every pending request without blocking. Refusals are logged with the key.
  void handle_pending();
  uint64_t refused() const { return refused_; }

 private:
  explicit ZapHandler(zmq::context_t& context) : socket_(context, zmq::socket_type::rep) {}
  zmq::socket_t socket_;
  std::set<std::string> allowed_;
  uint64_t refused_ = 0;
};

}  // namespace textfeed::transport::internal
