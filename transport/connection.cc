// Connection: DEALER socket, heartbeats while waiting, payload frames copied into the caller's
// slot.
#include "transport/connection.h"

#include <algorithm>
#include <cstring>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "base/clock.h"
#include "transport/endpoint.h"

namespace textfeed::transport {

namespace {
using Clock = std::chrono::steady_clock;

Status daemon_error(const ErrorReply& e) {
  return Status(e.code == Code::kOk ? Code::kInternal : e.code, e.message);
}

// Copies the payload frames parts[1..] of `h` into `dest` at the tensors' offsets.
Status copy_payload(const BatchHeader& h, std::vector<zmq::message_t>& parts,
                    std::span<uint8_t> dest) {
  size_t frame = 1;
  for (const TensorDesc& t : h.tensors) {
    if (!dest.empty() &&
        (t.offset_bytes > dest.size_bytes() || t.size_bytes > dest.size_bytes() - t.offset_bytes))
      return Status::corrupt("tensor '" + t.name + "' (" + std::to_string(t.size_bytes) +
                             " bytes at " + std::to_string(t.offset_bytes) +
                             ") does not fit a slot of " + std::to_string(dest.size_bytes()));
    for (uint64_t at = 0; at < t.size_bytes; at += kMaxPayloadFrameBytes, ++frame) {
      const size_t n =
          static_cast<size_t>(std::min<uint64_t>(kMaxPayloadFrameBytes, t.size_bytes - at));
      if (frame >= parts.size() || parts[frame].size() != n)
        return Status::corrupt("batch " + std::to_string(h.batch) + ": payload frames of tensor '" +
                               t.name + "' do not match its descriptor");
      if (!dest.empty()) std::memcpy(dest.data() + t.offset_bytes + at, parts[frame].data(), n);
    }
  }
  if (frame != parts.size())
    return Status::corrupt("batch " + std::to_string(h.batch) + " came with " +
                           std::to_string(parts.size() - frame) + " payload frames too many");
  return Status();
}
}  // namespace

struct Connection::Impl {
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::dealer};
  HelloReply hello;
  std::string endpoint;
  ConnectOptions options;
  Clock::time_point last_sent = Clock::now();
  Clock::time_point last_heard = Clock::now();

  Status send(const Message& m) {
    auto bytes = encode(m);
    if (!bytes.has_value()) return bytes.error();
    try {
      // Never block: a DEALER with no usable connection (refused handshake, peer gone) would.
      if (!socket.send(zmq::buffer(*bytes), zmq::send_flags::dontwait))
        return Status::unavailable("the daemon at " + endpoint +
                                   " takes no messages (not connected)");
    } catch (const zmq::error_t& e) {
      return Status::unavailable(std::string("sending to ") + endpoint + ": " + e.what());
    }
    last_sent = Clock::now();
    return Status();
  }

  // One multipart message of any kind, or nullopt when `timeout` passes or `wake_fd` becomes
  // readable; heartbeats go out while waiting.
  Result<std::optional<std::vector<zmq::message_t>>> wait(std::chrono::milliseconds timeout,
                                                          int wake_fd) {
    const Clock::time_point deadline = Clock::now() + timeout;
    try {
      while (true) {
        Clock::time_point now = Clock::now();
        if (now - last_sent >= options.heartbeat_interval && !send(Heartbeat{unix_millis()}).ok())
          last_sent = now;  // not connected now: silence is what the timeouts are for
        std::vector<zmq::message_t> parts;
        if (zmq::recv_multipart(socket, std::back_inserter(parts), zmq::recv_flags::dontwait)) {
          last_heard = Clock::now();
          if (parts.empty()) return Status::corrupt("empty message from the daemon");
          return std::optional<std::vector<zmq::message_t>>(std::move(parts));
        }
        now = Clock::now();
        if (now >= deadline) return std::optional<std::vector<zmq::message_t>>();
        const auto until_beat = last_sent + options.heartbeat_interval - now;
        const auto wait = std::max(Clock::duration::zero(), std::min(deadline - now, until_beat));
        zmq::pollitem_t items[2] = {{static_cast<void*>(socket), 0, ZMQ_POLLIN, 0},
                                    {nullptr, wake_fd, ZMQ_POLLIN, 0}};
        zmq::poll(items, wake_fd >= 0 ? 2 : 1,
                  std::chrono::duration_cast<std::chrono::milliseconds>(wait) +
                      std::chrono::milliseconds(1));
        if (wake_fd >= 0 && (items[1].revents & ZMQ_POLLIN) && !(items[0].revents & ZMQ_POLLIN))
          return std::optional<std::vector<zmq::message_t>>();
      }
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) return Status::cancelled("interrupted while waiting for the daemon");
      return Status::unavailable(std::string("receiving from ") + endpoint + ": " + e.what());
    }
  }

  Result<std::vector<zmq::message_t>> recv(std::chrono::milliseconds timeout) {
    TF_ASSIGN_OR_RETURN(auto parts, wait(timeout, -1));
    if (!parts)
      return Status::unavailable("no message from the daemon at " + endpoint + " within " +
                                 std::to_string(timeout.count()) + " ms");
    return std::move(*parts);
  }

  // Decodes a message and places a frames Batch's payload; nullopt for a Heartbeat.
  Result<std::optional<Message>> unpack(std::vector<zmq::message_t>& parts,
                                        const PayloadFor& payload_for) {
    auto decoded = decode({static_cast<const uint8_t*>(parts[0].data()), parts[0].size()});
    // Named: the peer at the endpoint may be no textfeed daemon at all.
    if (!decoded.has_value()) return decoded.error().with_context("a message from " + endpoint);
    Message m = std::move(*decoded);
    if (std::holds_alternative<Heartbeat>(m)) return std::optional<Message>();
    if (const auto* h = std::get_if<BatchHeader>(&m)) {
      if (parts.size() > 1) {
        const std::span<uint8_t> dest = payload_for ? payload_for(*h) : std::span<uint8_t>();
        TF_RETURN_IF_ERROR(copy_payload(*h, parts, dest));
      }
    } else if (parts.size() > 1) {
      return Status::corrupt("payload frames after a message that has none");
    }
    return std::optional<Message>(std::move(m));
  }

  Result<Message> next(std::chrono::milliseconds timeout, const PayloadFor& payload_for) {
    const Clock::time_point deadline = Clock::now() + timeout;
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      TF_ASSIGN_OR_RETURN(auto parts, recv(std::max(left, std::chrono::milliseconds(0))));
      TF_ASSIGN_OR_RETURN(std::optional<Message> m, unpack(parts, payload_for));
      if (m) return std::move(*m);
    }
  }

  // The reply to a request about stream `stream` (0: about none): the next message that is not a
  // Batch, EndOfEpoch or Closed (which belong to streams; payloads are dropped here), nor an
  // Error about another stream.
  Result<Message> reply(std::chrono::milliseconds timeout, uint64_t stream = 0) {
    const Clock::time_point deadline = Clock::now() + timeout;
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      TF_ASSIGN_OR_RETURN(Message m, next(std::max(left, std::chrono::milliseconds(0)), nullptr));
      if (std::holds_alternative<BatchHeader>(m) || std::holds_alternative<EndOfEpoch>(m) ||
          std::holds_alternative<Closed>(m))
        continue;
      if (const auto* e = std::get_if<ErrorReply>(&m)) {
        if (e->stream_id != 0 && e->stream_id != stream) continue;
        return daemon_error(*e);
      }
      return m;
    }
  }
};

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::~Connection() = default;

Result<std::unique_ptr<Connection>> Connection::connect(const std::string& endpoint,
                                                        const std::string& name,
                                                        const ConnectOptions& options) {
  TF_RETURN_IF_ERROR(check_endpoint(endpoint, EndpointUse::kConnect));
  auto impl = std::make_unique<Impl>();
  impl->endpoint = endpoint;
  impl->options = options;
  try {
    impl->socket.set(zmq::sockopt::linger, 0);
    impl->socket.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(kMaxReceiveFrameBytes));
    if (options.curve.enabled()) {
      if (!is_z85_key(options.curve.server_public_key) ||
          !is_z85_key(options.curve.client.public_key) ||
          !is_z85_key(options.curve.client.secret_key))
        return Status::invalid_argument("CURVE keys must be 40 Z85 characters each");
      impl->socket.set(zmq::sockopt::curve_serverkey, options.curve.server_public_key);
      impl->socket.set(zmq::sockopt::curve_publickey, options.curve.client.public_key);
      impl->socket.set(zmq::sockopt::curve_secretkey, options.curve.client.secret_key);
    }
    impl->socket.connect(endpoint);
  } catch (const zmq::error_t& e) {
    return Status::unavailable("cannot connect to " + endpoint + ": " + e.what());
  }
  TF_RETURN_IF_ERROR(impl->send(Hello{kProtocolVersion, name, options.session}));
  auto m = impl->reply(options.timeout);
  if (!m.has_value())
    return m.error().code() == Code::kUnavailable
               ? Status::unavailable(
                     "no textfeed daemon answered at " + endpoint + " within " +
                     std::to_string(options.timeout.count()) + " ms (is `textfeed serve` running" +
                     (options.curve.enabled() ? ", and is this client's key allowed?)" : "?)"))
               : m.error();
  const auto* h = std::get_if<HelloReply>(&*m);
  if (!h) return Status::corrupt("the daemon did not answer Hello with HelloReply");
  impl->hello = *h;
  // Beat at least as often as the daemon asks, so that it never takes this client for gone.
  if (h->heartbeat_millis > 0)
    impl->options.heartbeat_interval =
        std::min(impl->options.heartbeat_interval, std::chrono::milliseconds(h->heartbeat_millis));
  return std::unique_ptr<Connection>(new Connection(std::move(impl)));
}

const HelloReply& Connection::hello() const { return impl_->hello; }
const std::string& Connection::endpoint() const { return impl_->endpoint; }
std::chrono::steady_clock::time_point Connection::last_heard() const { return impl_->last_heard; }

Result<StreamOpened> Connection::open(const OpenStream& request,
                                      std::chrono::milliseconds timeout) {
  TF_RETURN_IF_ERROR(impl_->send(request));
  TF_ASSIGN_OR_RETURN(Message m, impl_->reply(timeout));
  if (auto* s = std::get_if<StreamOpened>(&m)) return *s;
  return Status::corrupt("the daemon did not answer OpenStream with StreamOpened");
}

Status Connection::attach(const StreamOpened& stream, int memory_fd, uint32_t slots,
                          uint64_t slot_stride, std::chrono::milliseconds timeout) {
  const uint64_t stream_id = stream.stream_id;
  if (impl_->hello.memory_socket.empty())
    return Status::invalid_argument("the daemon at " + impl_->endpoint +
                                    " offers no shared memory (it serves tcp): use frames");
  MemoryToken token{};
  if (stream.memory_token.size() != token.size())
    return Status::invalid_argument("stream " + std::to_string(stream_id) +
                                    " came without a memory token");
  std::copy(stream.memory_token.begin(), stream.memory_token.end(), token.begin());
  // The datagram is queued at the daemon before AttachMemory is sent: the daemon reads its memory
  // socket before its ZeroMQ socket, so the descriptor is there when AttachMemory is handled.
  TF_RETURN_IF_ERROR(send_memory(impl_->hello.memory_socket, token, memory_fd));
  TF_RETURN_IF_ERROR(impl_->send(AttachMemory{stream_id, slots, slot_stride}));
  TF_ASSIGN_OR_RETURN(Message m, impl_->reply(timeout, stream_id));
  if (const auto* a = std::get_if<MemoryAttached>(&m); a && a->stream_id == stream_id)
    return Status();
  return Status::corrupt("the daemon did not answer AttachMemory with MemoryAttached");
}

Status Connection::credit(uint64_t stream_id, uint32_t count) {
  return impl_->send(Credit{stream_id, {}, count});
}

Status Connection::credit_slots(uint64_t stream_id, std::span<const uint32_t> slots) {
  return impl_->send(Credit{stream_id, std::vector<uint32_t>(slots.begin(), slots.end()), 0});
}

Status Connection::credit(const Credit& credit) { return impl_->send(credit); }

Result<std::optional<Message>> Connection::poll(std::chrono::milliseconds timeout,
                                                const PayloadFor& payload_for, const Wakeup* wake) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    TF_ASSIGN_OR_RETURN(auto parts, impl_->wait(std::max(left, std::chrono::milliseconds(0)),
                                                wake ? wake->fd() : -1));
    if (!parts) return std::optional<Message>();
    TF_ASSIGN_OR_RETURN(std::optional<Message> m, impl_->unpack(*parts, payload_for));
    if (m) return m;
  }
}

Result<BatchHeader> Connection::receive(std::span<uint8_t> slot,
                                        std::chrono::milliseconds timeout) {
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    TF_ASSIGN_OR_RETURN(Message m, impl_->next(std::max(left, std::chrono::milliseconds(0)),
                                               [slot](const BatchHeader&) { return slot; }));
    if (auto* h = std::get_if<BatchHeader>(&m)) return std::move(*h);
    if (const auto* e = std::get_if<ErrorReply>(&m)) return daemon_error(*e);
  }
}

Status Connection::close(uint64_t stream_id, std::chrono::milliseconds timeout) {
  TF_RETURN_IF_ERROR(impl_->send(Close{stream_id}));
  const Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    TF_ASSIGN_OR_RETURN(Message m,
                        impl_->next(std::max(left, std::chrono::milliseconds(0)), nullptr));
    if (const auto* c = std::get_if<Closed>(&m); c && c->stream_id == stream_id) return Status();
    if (const auto* e = std::get_if<ErrorReply>(&m);
        e && e->stream_id == 0 && e->code == Code::kUnavailable)
      return Status();  // the daemon is going away: nothing of the stream is in flight any more
  }
}

Result<Stats> Connection::stats(std::chrono::milliseconds timeout) {
  TF_RETURN_IF_ERROR(impl_->send(StatsRequest{}));
  TF_ASSIGN_OR_RETURN(Message m, impl_->reply(timeout));
  if (auto* s = std::get_if<Stats>(&m)) return std::move(*s);
  return Status::corrupt("the daemon did not answer StatsRequest with Stats");
}

Status Connection::send_only_for_testing(std::span<const uint8_t> frame) {
  try {
    if (!impl_->socket.send(zmq::buffer(frame.data(), frame.size()), zmq::send_flags::dontwait))
      return Status::unavailable("queue full");
  } catch (const zmq::error_t& e) {
    return Status::unavailable(e.what());
  }
  return Status();
}

Result<Message> Connection::send_raw_for_testing(std::span<const uint8_t> frame,
                                                 std::chrono::milliseconds timeout) {
  try {
    if (!impl_->socket.send(zmq::buffer(frame.data(), frame.size()), zmq::send_flags::dontwait))
      return Status::unavailable("not connected");
  } catch (const zmq::error_t& e) {
    return Status::unavailable(e.what());
  }
  TF_ASSIGN_OR_RETURN(auto parts, impl_->recv(timeout));
  return decode({static_cast<const uint8_t*>(parts[0].data()), parts[0].size()});
}

}  // namespace textfeed::transport
