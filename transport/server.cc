// Server: Hello / OpenStream / Credit / Close handling, round-robin batch production, payloads
// in frames. Every malformed or refused request gets an Error reply and a log line.
#include "transport/server.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <chrono>
#include <cstring>
#include <vector>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "base/log.h"
#include "loader/pipeline.h"
#include "transport/wire.h"

namespace textfeed::transport {
namespace {

struct Stream {
  uint64_t id = 0;
  std::string peer;  // ROUTER identity of the client
  std::unique_ptr<loader::BatchPipeline> pipeline;
  std::vector<uint8_t> slot;  // one batch, allocated once per stream
  uint64_t epoch = 0, next_batch = 0;
  uint32_t credits = 0;
};

std::vector<TensorDescriptor> descriptors(const loader::BatchLayout& l, size_t rows) {
  std::vector<TensorDescriptor> out;
  for (const loader::TensorDesc& t : l.tensors) {
    TensorDescriptor d{std::string(t.name), t.dtype, {}, t.offset_bytes, t.sample_bytes * rows};
    d.shape = {rows, static_cast<uint64_t>(t.shape[1]), static_cast<uint64_t>(t.shape[2]), static_cast<uint64_t>(t.shape[3])};
    out.push_back(std::move(d));
  }
  return out;
}

Status apply_overrides(augment::AugmentOptions& o, const std::vector<std::pair<std::string, std::string>>& ov) {
  for (const auto& [name, value] : ov) {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0')
      return Status::invalid_argument("override " + name + " = '" + value + "' is not a number");
    if (name == "image_size") o.image_size = static_cast<int>(v);
    else if (name == "crop_size") o.crop_size = static_cast<int>(v);
    else if (name == "map_scale") o.map_scale = v;
    else if (name == "height_jitter") o.height_jitter = v;
    else if (name == "rotate_deg") o.rotate_deg = v;
    else if (name == "color_jitter_p") o.color_jitter_p = v;
    else return Status::invalid_argument("unknown override '" + name + "'");
  }
  return augment::validate(o);
}

}  // namespace

struct Server::Impl {
  ServerOptions options;
  tbb::task_arena* arena = nullptr;
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::router};
  std::string bound;
  std::map<uint64_t, Stream> streams;
  uint64_t next_id = 1;
  uint64_t round_robin = 0;

  ~Impl() {
    // ZeroMQ unlinks an ipc path from its I/O thread, maybe after we exit: do it here, for sure.
    socket.close();
    if (bound.rfind("ipc://", 0) == 0) ::unlink(bound.substr(6).c_str());
  }

  void send(const std::string& peer, const Message& m, std::vector<zmq::message_t> payload = {}) {
    auto bytes = encode(m);
    if (!bytes.has_value()) {
      TF_LOG(Error) << "serve: cannot encode a reply: " << bytes.error().to_string();
      return;
    }
    socket.send(zmq::buffer(peer), zmq::send_flags::sndmore);
    const bool more = !payload.empty();
    socket.send(zmq::buffer(*bytes), more ? zmq::send_flags::sndmore : zmq::send_flags::none);
    for (size_t i = 0; i < payload.size(); ++i)
      socket.send(payload[i], i + 1 < payload.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
  void error(const std::string& peer, const Status& s, uint64_t stream_id = 0) {
    TF_LOG(Warning) << "serve: " << s.to_string();
    send(peer, ErrorReply{s.code(), s.message(), stream_id});
  }

  void handle(const std::string& peer, const Message& m) {
    if (const auto* h = std::get_if<Hello>(&m)) {
      if (h->protocol_version != kProtocolVersion)
        return error(peer, Status::unimplemented("protocol version " + std::to_string(h->protocol_version) +
                                                 " is not this daemon's (" + std::to_string(kProtocolVersion) + ")"));
      HelloReply r{kProtocolVersion, options.name, {}};
      for (const auto& [name, src] : options.datasets) r.datasets.push_back(name);
      return send(peer, r);
    }
    if (const auto* o = std::get_if<OpenStream>(&m)) return open(peer, *o);
    if (const auto* c = std::get_if<Credit>(&m)) {
      auto it = streams.find(c->stream_id);
      if (it == streams.end() || it->second.peer != peer)
        return error(peer, Status::not_found("no stream " + std::to_string(c->stream_id)), c->stream_id);
      const uint64_t total = uint64_t{it->second.credits} + c->count + c->slots.size();
      if (total > static_cast<uint64_t>(options.max_credits))
        return error(peer, Status::overloaded("more than " + std::to_string(options.max_credits) +
                                              " batches in flight requested"), c->stream_id);
      it->second.credits = static_cast<uint32_t>(total);
      return;
    }
    if (const auto* c = std::get_if<Close>(&m)) {
      auto it = streams.find(c->stream_id);
      if (it != streams.end() && it->second.peer == peer) streams.erase(it);
      return;
    }
    if (std::holds_alternative<Heartbeat>(m)) return;
    error(peer, Status::invalid_argument("unexpected message from a client"));
  }

  void open(const std::string& peer, const OpenStream& o) {
    auto ds = options.datasets.find(o.dataset);
    if (ds == options.datasets.end()) return error(peer, Status::not_found("no dataset named '" + o.dataset + "'"));
    if (o.transport != WireTransport::kFrames)
      return error(peer, Status::unimplemented("shared-memory transport is not available yet; use frames"));
    auto profile = augment::parse_profile(o.profile);
    if (!profile.has_value()) return error(peer, profile.error());
    loader::PipelineOptions po;
    po.augment = augment::profile_defaults(*profile);
    if (o.dtype == DType::kU8) po.augment.dtype = augment::OutputDType::kU8;
    if (Status s = apply_overrides(po.augment, o.overrides); !s.ok()) return error(peer, s);
    if (o.batch_size == 0 || o.batch_size > 4096)
      return error(peer, Status::invalid_argument("batch_size " + std::to_string(o.batch_size) + " is not in 1..4096"));
    po.sampler = {o.seed, static_cast<int>(o.batch_size), static_cast<int>(o.rank), static_cast<int>(o.world_size),
                  o.shuffle, o.drop_last};
    auto pipeline = loader::BatchPipeline::create(ds->second, po);
    if (!pipeline.has_value()) return error(peer, pipeline.error());
    const loader::BatchLayout& layout = (*pipeline)->layout();
    const uint64_t per_epoch = (*pipeline)->sampler().batches_per_epoch();
    if (o.start_batch >= per_epoch)
      return error(peer, Status::invalid_argument("start batch " + std::to_string(o.start_batch) + " of an epoch of " +
                                                  std::to_string(per_epoch) + " batches"));
    Stream s;
    s.id = next_id++;
    s.peer = peer;
    s.slot.resize(layout.slot_bytes);
    s.epoch = o.epoch;
    s.next_batch = o.start_batch;
    StreamOpened reply{s.id, per_epoch, ds->second->size(), layout.slot_bytes, descriptors(layout, layout.batch_size)};
    s.pipeline = std::move(*pipeline);
    TF_LOG(Info) << "serve: stream " << s.id << " on '" << o.dataset << "' rank " << o.rank << "/" << o.world_size
                 << " from epoch " << o.epoch << " batch " << o.start_batch;
    streams.emplace(s.id, std::move(s));
    send(peer, reply);
  }

  // Produces and sends one batch for the next stream (round-robin) that holds a credit.
  bool produce_one() {
    if (streams.empty()) return false;
    auto it = streams.upper_bound(round_robin);
    for (size_t n = 0; n < streams.size(); ++n, ++it) {
      if (it == streams.end()) it = streams.begin();
      if (it->second.credits > 0) break;
    }
    if (it == streams.end()) it = streams.begin();
    Stream& s = it->second;
    if (s.credits == 0) return false;
    round_robin = s.id;
    loader::BatchInfo info;
    Status st = s.pipeline->fill(s.epoch, s.next_batch, s.slot.data(), info, *arena);
    if (!st.ok()) {
      error(s.peer, st, s.id);
      streams.erase(it);
      return true;
    }
    const loader::BatchLayout& l = s.pipeline->layout();
    BatchHeader h{s.id, s.epoch, s.next_batch, 0, descriptors(l, info.indices.size()), info.indices, {}};
    for (const auto& e : info.errors) h.errors.push_back({e.index, e.replaced_by, e.code, e.message});
    std::vector<zmq::message_t> payload;
    for (const TensorDescriptor& t : h.tensors)  // TODO(perf): zero-copy sends from a slot ring
      payload.emplace_back(s.slot.data() + t.offset, t.size);
    --s.credits;
    const std::string peer = s.peer;
    const uint64_t id = s.id, epoch = s.epoch;
    if (++s.next_batch == s.pipeline->sampler().batches_per_epoch()) {
      s.next_batch = 0;
      ++s.epoch;
    }
    send(peer, h, std::move(payload));
    if (s.next_batch == 0) send(peer, EndOfEpoch{id, epoch});
    return true;
  }

  // Receives and handles every pending message; waits up to `timeout_ms` for the first.
  Status poll(int timeout_ms) {
    zmq::pollitem_t item{static_cast<void*>(socket), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms));
    while (true) {
      std::vector<zmq::message_t> parts;
      auto got = zmq::recv_multipart(socket, std::back_inserter(parts), zmq::recv_flags::dontwait);
      if (!got) return Status();
      if (parts.size() < 2) continue;
      const std::string peer = parts[0].to_string();
      auto m = decode(std::span<const uint8_t>(static_cast<const uint8_t*>(parts[1].data()), parts[1].size()));
      if (!m.has_value()) {
        error(peer, m.error());
        continue;
      }
      handle(peer, *m);
    }
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

Result<std::unique_ptr<Server>> Server::create(const ServerOptions& options, tbb::task_arena& arena) {
  if (options.datasets.empty()) return Status::invalid_argument("serve: no dataset to serve");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->arena = &arena;
  try {
    impl->socket.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(kMaxEnvelopeBytes));
    impl->socket.set(zmq::sockopt::linger, 0);
    impl->socket.set(zmq::sockopt::router_mandatory, 0);
    // An ipc socket file is created by bind(): with umask 077 it is never open to others, even
    // before the chmod below narrows it to 0600. Start-up only, so the process-wide umask is safe.
    const mode_t previous = ::umask(077);
    try {
      impl->socket.bind(options.endpoint);
    } catch (...) {
      ::umask(previous);
      throw;
    }
    ::umask(previous);
    impl->bound = impl->socket.get(zmq::sockopt::last_endpoint);
  } catch (const zmq::error_t& e) {
    return Status::unavailable("serve: cannot bind " + options.endpoint + ": " + e.what());
  }
  if (impl->bound.rfind("ipc://", 0) == 0) ::chmod(impl->bound.substr(6).c_str(), 0600);
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Status Server::run(const std::atomic<bool>& stop) {
  while (!stop.load(std::memory_order_relaxed)) {
    try {
      TF_RETURN_IF_ERROR(impl_->poll(0));
      if (!impl_->produce_one()) TF_RETURN_IF_ERROR(impl_->poll(100));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;  // a signal: `stop` says whether to go on
      return Status::io(std::string("serve: socket failure: ") + e.what());
    }
  }
  TF_LOG(Info) << "serve: stopping; " << impl_->streams.size() << " stream(s) open";
  return Status();
}

std::string Server::endpoint() const { return impl_->bound; }

}  // namespace textfeed::transport
