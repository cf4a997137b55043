// ZAP request: version, request id, domain, address, routing id, mechanism, credentials...;
// reply: version, request id, status code, status text, user id, metadata.
#include "transport/daemon/detail/zap.h"

#include <zmq_addon.hpp>

#include "base/log.h"
#include "transport/curve.h"

namespace textfeed::transport::internal {

Result<std::unique_ptr<ZapHandler>> ZapHandler::create(zmq::context_t& context,
                                                       const std::vector<std::string>& allowed) {
  std::unique_ptr<ZapHandler> h(new ZapHandler(context));
  for (const std::string& key : allowed) {
    if (!is_z85_key(key))
      return Status::invalid_argument("allowed client key '" + key + "' is not 40 Z85 characters");
    h->allowed_.insert(key);
  }
  try {
    h->socket_.set(zmq::sockopt::linger, 0);
    h->socket_.bind("inproc://zeromq.zap.01");
  } catch (const zmq::error_t& e) {
    return Status::unavailable(std::string("cannot bind the ZAP handler: ") + e.what());
  }
  return h;
}

void ZapHandler::handle_pending() {
  while (true) {
    std::vector<zmq::message_t> req;
    std::optional<size_t> got;
    try {
      got = zmq::recv_multipart(socket_, std::back_inserter(req), zmq::recv_flags::dontwait);
    } catch (const zmq::error_t& e) {
      TF_LOG(Error) << "serve: ZAP receive failed: " << e.what();
      return;
    }
    if (!got) return;
    std::string status = "400", text = "malformed ZAP request", user;
    if (req.size() >= 6 && req[0].to_string_view() == "1.0") {
      const std::string mechanism = req[5].to_string();
      if (mechanism == "CURVE" && req.size() >= 7 && req[6].size() == 32) {
        char z85[41] = {};
        zmq_z85_encode(z85, static_cast<const uint8_t*>(req[6].data()), 32);
        if (allowed_.count(z85)) {
          status = "200", text = "OK", user = z85;
        } else {
          ++refused_;
          text = "client key not allowed";
          TF_LOG(Warning) << "serve: refused a CURVE client from " << req[3].to_string()
                          << " with key " << z85 << " (not in the allow list)";
        }
      } else {
        ++refused_;
        text = "CURVE required";
        TF_LOG(Warning) << "serve: refused a " << mechanism << " client from "
                        << req[3].to_string();
      }
    }
    const std::string request_id = req.size() > 1 ? req[1].to_string() : std::string();
    std::vector<zmq::const_buffer> reply = {zmq::buffer(std::string_view("1.0")),
                                            zmq::buffer(request_id),
                                            zmq::buffer(status),
                                            zmq::buffer(text),
                                            zmq::buffer(user),
                                            zmq::const_buffer()};
    try {
      zmq::send_multipart(socket_, reply);
    } catch (const zmq::error_t& e) {
      TF_LOG(Error) << "serve: ZAP reply failed: " << e.what();
      return;
    }
  }
}

}  // namespace textfeed::transport::internal
