// Connection: DEALER socket, request/reply helpers, payload frames copied into the caller's slot.
#include "transport/connection.h"

#include <cstring>
#include <vector>

#include <zmq.hpp>
#include <zmq_addon.hpp>

namespace textfeed::transport {

struct Connection::Impl {
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::dealer};
  HelloReply hello;

  Status send(const Message& m) {
    auto bytes = encode(m);
    if (!bytes.has_value()) return bytes.error();
    socket.send(zmq::buffer(*bytes), zmq::send_flags::none);
    return Status();
  }
  // Receives one multipart message; parts[0] is the envelope.
  Result<std::vector<zmq::message_t>> recv(std::chrono::milliseconds timeout) {
    zmq::pollitem_t item{static_cast<void*>(socket), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, timeout) == 0)
      return Status::unavailable("no answer from the daemon within " + std::to_string(timeout.count()) + " ms");
    std::vector<zmq::message_t> parts;
    if (!zmq::recv_multipart(socket, std::back_inserter(parts))) return Status::unavailable("receive interrupted");
    if (parts.empty()) return Status::corrupt("empty message from the daemon");
    return parts;
  }
  Result<Message> reply(std::chrono::milliseconds timeout) {
    TF_ASSIGN_OR_RETURN(auto parts, recv(timeout));
    TF_ASSIGN_OR_RETURN(Message m, decode({static_cast<const uint8_t*>(parts[0].data()), parts[0].size()}));
    if (const auto* e = std::get_if<ErrorReply>(&m)) return Status(e->code == Code::kOk ? Code::kInternal : e->code, e->message);
    return m;
  }
};

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::~Connection() = default;

Result<std::unique_ptr<Connection>> Connection::connect(const std::string& endpoint, const std::string& name,
                                                        std::chrono::milliseconds timeout) {
  auto impl = std::make_unique<Impl>();
  try {
    impl->socket.set(zmq::sockopt::linger, 0);
    impl->socket.connect(endpoint);
    TF_RETURN_IF_ERROR(impl->send(Hello{kProtocolVersion, name}));
    TF_ASSIGN_OR_RETURN(Message m, impl->reply(timeout));
    const auto* h = std::get_if<HelloReply>(&m);
    if (!h) return Status::corrupt("the daemon did not answer Hello with HelloReply");
    impl->hello = *h;
  } catch (const zmq::error_t& e) {
    return Status::unavailable("cannot connect to " + endpoint + ": " + e.what());
  }
  return std::unique_ptr<Connection>(new Connection(std::move(impl)));
}

const HelloReply& Connection::hello() const { return impl_->hello; }

Result<StreamOpened> Connection::open(const OpenStream& request, std::chrono::milliseconds timeout) {
  TF_RETURN_IF_ERROR(impl_->send(request));
  TF_ASSIGN_OR_RETURN(Message m, impl_->reply(timeout));
  if (auto* s = std::get_if<StreamOpened>(&m)) return *s;
  return Status::corrupt("the daemon did not answer OpenStream with StreamOpened");
}

Status Connection::credit(uint64_t stream_id, uint32_t count) { return impl_->send(Credit{stream_id, {}, count}); }

Status Connection::close(uint64_t stream_id) { return impl_->send(Close{stream_id}); }

Result<BatchHeader> Connection::receive(std::span<uint8_t> slot, std::chrono::milliseconds timeout) {
  while (true) {
    TF_ASSIGN_OR_RETURN(auto parts, impl_->recv(timeout));
    TF_ASSIGN_OR_RETURN(Message m, decode({static_cast<const uint8_t*>(parts[0].data()), parts[0].size()}));
    if (std::holds_alternative<EndOfEpoch>(m)) continue;
    if (const auto* e = std::get_if<ErrorReply>(&m)) return Status(e->code, e->message);
    auto* h = std::get_if<BatchHeader>(&m);
    if (!h) return Status::corrupt("unexpected message while waiting for a batch");
    if (parts.size() != h->tensors.size() + 1)
      return Status::corrupt("batch with " + std::to_string(h->tensors.size()) + " tensors came with " +
                             std::to_string(parts.size() - 1) + " payload frames");
    for (size_t i = 0; i < h->tensors.size(); ++i) {
      const TensorDescriptor& t = h->tensors[i];
      if (parts[i + 1].size() != t.size || t.offset > slot.size() || t.size > slot.size() - t.offset)
        return Status::corrupt("payload of tensor '" + t.name + "' does not fit its descriptor or the slot");
      std::memcpy(slot.data() + t.offset, parts[i + 1].data(), t.size);
    }
    return std::move(*h);
  }
}

Result<Message> Connection::send_raw_for_testing(std::span<const uint8_t> frame, std::chrono::milliseconds timeout) {
  impl_->socket.send(zmq::buffer(frame.data(), frame.size()), zmq::send_flags::none);
  TF_ASSIGN_OR_RETURN(auto parts, impl_->recv(timeout));
  return decode({static_cast<const uint8_t*>(parts[0].data()), parts[0].size()});
}

}  // namespace textfeed::transport
