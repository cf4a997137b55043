// Server: the socket loop. Each pass receives and answers messages, hands finished batches to
// their clients in order, starts new fills round-robin while the in-flight budget allows, buries
// closed streams once their fills end, and watches heartbeats. A worker finishing a fill, or
// ZeroMQ releasing a frame buffer, wakes the loop through an eventfd in the same poll.
// Past the 500-line soft cap on purpose: the loop and every message's handling are one state
// machine over the same peer, stream and graveyard tables; the per-stream state and the frame
// buffers already live in detail/.
#include "transport/server.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "base/log.h"
#include "transport/detail/server_stream.h"
#include "transport/detail/wakeup.h"
#include "transport/detail/zap.h"
#include "transport/wire.h"

namespace textfeed::transport {

namespace {

using Clock = std::chrono::steady_clock;
using internal::ServerStream;

int64_t unix_millis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Whether a tcp peer address (ZeroMQ's "Peer-Address" property) is this host's loopback.
bool is_loopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address == "::1" || address.rfind("::ffff:127.", 0) == 0;
}

const char* message_name(const Message& m) {
  static const char* names[] = {"Hello",          "HelloReply", "OpenStream",     "StreamOpened", "Credit",
                                "Batch",          "EndOfEpoch", "Error",          "Close",        "Heartbeat",
                                "AttachMemory",   "MemoryAttached", "Closed",     "StatsRequest", "Stats"};
  return names[m.index()];
}

struct Peer {
  Clock::time_point last_seen, last_sent;
  std::string name;    // Hello.clientName
  uint64_t session = 0;
  bool hello = false;  // said Hello to this daemon (a client of a daemon that restarted has not)
};

struct Grave {
  std::unique_ptr<ServerStream> stream;
  bool send_closed = false;  // the client asked (Close): answer Closed once its fills end
  uint64_t session = 0;      // of the peer whose stream it was
};

// A Hello answered only once the fills of the session's earlier streams have stopped.
struct PendingHello {
  std::string peer;
  uint64_t session = 0;
};

}  // namespace

struct Server::Impl {
  ServerOptions options;
  tbb::task_arena* arena = nullptr;
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::router};
  std::unique_ptr<internal::ZapHandler> zap;
  std::shared_ptr<internal::Wakeup> wakeup = std::make_shared<internal::Wakeup>();
  std::string bound;
  bool tcp = false;
  Clock::time_point started = Clock::now();
  std::map<std::string, Peer> peers;
  std::map<uint64_t, std::unique_ptr<ServerStream>> streams;  // declared after the socket: destroyed
  std::vector<Grave> graveyard;                               // first, waiting for their fills
  std::vector<PendingHello> pending_hellos;
  // Stream ids start at a random point, so that a client's messages for a stream of a daemon that
  // died never name a stream of its restarted successor.
  uint64_t next_id = (uint64_t{std::random_device{}()} << 20) | 1, round_robin = 0;
  // Totals of streams that ended, for Stats.
  loader::StageTimes ended_stages;
  uint64_t ended_samples = 0, ended_skipped = 0;
  internal::RateMeter total_rate;
  bool draining = false;

  ~Impl() {
    streams.clear();
    graveyard.clear();
    socket.close();
    // ZeroMQ unlinks an ipc path from its I/O thread, maybe after we exit: do it here, for sure.
    if (bound.rfind("ipc://", 0) == 0) ::unlink(bound.substr(6).c_str());
  }

  size_t max_in_flight() const {
    return options.max_in_flight > 0 ? static_cast<size_t>(options.max_in_flight)
                                     : static_cast<size_t>(arena->max_concurrency()) + 2;
  }

  // Sends `m` (and its payload frames). False when it cannot be encoded (an envelope over 1 MiB).
  bool send(const std::string& peer, const Message& m, std::vector<zmq::message_t> payload = {}) {
    auto bytes = encode(m);
    if (!bytes.has_value()) {
      TF_LOG(Error) << "serve: cannot encode " << message_name(m) << ": " << bytes.error().to_string();
      return false;
    }
    socket.send(zmq::buffer(peer), zmq::send_flags::sndmore);
    socket.send(zmq::buffer(*bytes), payload.empty() ? zmq::send_flags::none : zmq::send_flags::sndmore);
    for (size_t i = 0; i < payload.size(); ++i)
      socket.send(payload[i], i + 1 < payload.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    auto it = peers.find(peer);
    if (it != peers.end()) it->second.last_sent = Clock::now();
    return true;
  }

  void error(const std::string& peer, const Status& s, uint64_t stream_id = 0) {
    TF_LOG(Warning) << "serve: to " << describe_peer(peer) << ": " << s.to_string();
    send(peer, ErrorReply{s.code(), s.message(), stream_id});
  }

  std::string describe_peer(const std::string& peer) const {
    auto it = peers.find(peer);
    return it != peers.end() && !it->second.name.empty() ? "'" + it->second.name + "'" : "a client";
  }

  ServerStream* find_stream(const std::string& peer, uint64_t id) {
    auto it = streams.find(id);
    return it != streams.end() && it->second->peer() == peer ? it->second.get() : nullptr;
  }

  // Moves a stream to the graveyard: no more fills start for it; it is destroyed (and its memory
  // unmapped) once the running ones end.
  void end_stream(uint64_t id, bool send_closed, bool reclaim_memory) {
    auto it = streams.find(id);
    if (it == streams.end()) return;
    std::unique_ptr<ServerStream> s = std::move(it->second);
    streams.erase(it);
    // The client is gone: unlink its memory, unless a live stream (its reconnected successor) uses it.
    bool shared = false;
    for (const auto& [other_id, other] : streams) shared |= !s->shm_name().empty() && other->shm_name() == s->shm_name();
    if (reclaim_memory && !shared) s->reclaim_memory();
    auto peer = peers.find(s->peer());
    const uint64_t session = peer != peers.end() ? peer->second.session : 0;
    const loader::PipelineCounters c = s->counters();
    ended_stages.add(c.stages);
    const StreamStats st = s->stats(Clock::now());
    ended_samples += st.samples;
    ended_skipped += st.skipped_samples;
    graveyard.push_back({std::move(s), send_closed, session});
  }

  // A client that reconnects (same session, new connection) gets its HelloReply only once the
  // streams of its earlier connection can no longer write into the slots it will lend again.
  void hello(const std::string& peer, const Hello& h) {
    Peer& p = peers[peer];
    p.name = h.client_name;
    p.session = h.session;
    p.hello = true;
    if (h.session != 0) {
      std::vector<std::string> old;
      for (const auto& [other, q] : peers)
        if (other != peer && q.session == h.session) old.push_back(other);
      for (const std::string& other : old) {
        std::vector<uint64_t> ids;
        for (const auto& [id, s] : streams)
          if (s->peer() == other) ids.push_back(id);
        if (!ids.empty())
          TF_LOG(Info) << "serve: '" << h.client_name << "' reconnected: ending the " << ids.size()
                       << " stream(s) of its earlier connection";
        for (uint64_t id : ids) end_stream(id, false, false);
        peers.erase(other);
      }
      for (const Grave& g : graveyard)
        if (g.session == h.session && g.stream->running() > 0) {
          pending_hellos.push_back({peer, h.session});
          return;
        }
    }
    send(peer, hello_reply());
  }

  HelloReply hello_reply() const {
    HelloReply r{kProtocolVersion, options.name, {}};
    for (const auto& [name, src] : options.datasets) r.datasets.push_back(name);
    return r;
  }

  void handle(const std::string& peer, const Message& m, const std::string& peer_address) {
    if (const auto* h = std::get_if<Hello>(&m)) {
      if (h->protocol_version != kProtocolVersion)
        return error(peer, Status::unimplemented("protocol version " + std::to_string(h->protocol_version) +
                                                 " is not this daemon's (" + std::to_string(kProtocolVersion) + ")"));
      return hello(peer, *h);
    }
    if (const auto* o = std::get_if<OpenStream>(&m)) return open(peer, *o, peer_address);
    if (const auto* a = std::get_if<AttachMemory>(&m)) {
      ServerStream* s = find_stream(peer, a->stream_id);
      if (!s) return error(peer, Status::not_found("no stream " + std::to_string(a->stream_id)), a->stream_id);
      if (Status st = s->attach(*a); !st.ok()) return error(peer, st, a->stream_id);
      send(peer, MemoryAttached{a->stream_id});
      return;
    }
    if (const auto* c = std::get_if<Credit>(&m)) {
      ServerStream* s = find_stream(peer, c->stream_id);
      if (!s) return error(peer, Status::not_found("no stream " + std::to_string(c->stream_id)), c->stream_id);
      if (Status st = s->credit(*c); !st.ok()) return error(peer, st, c->stream_id);
      return;
    }
    if (const auto* c = std::get_if<Close>(&m)) {
      if (find_stream(peer, c->stream_id)) {
        TF_LOG(Info) << "serve: stream " << c->stream_id << " closed by " << describe_peer(peer);
        return end_stream(c->stream_id, true, false);
      }
      send(peer, Closed{c->stream_id, 0});  // already ended: nothing of it is in flight
      return;
    }
    if (std::holds_alternative<Heartbeat>(m)) return;
    if (std::holds_alternative<StatsRequest>(m)) {
      send(peer, stats());
      return;
    }
    error(peer, Status::invalid_argument(std::string("unexpected ") + message_name(m) + " from a client"));
  }

  void open(const std::string& peer, const OpenStream& o, const std::string& peer_address) {
    if (draining) return error(peer, Status::unavailable("textfeed serve is shutting down"));
    auto ds = options.datasets.find(o.dataset);
    if (ds == options.datasets.end()) return error(peer, Status::not_found("no dataset named '" + o.dataset + "'"));
    if (o.transport == WireTransport::kSharedMemory && tcp && !is_loopback(peer_address))
      return error(peer, Status::invalid_argument("shared memory needs a client on the daemon's host; " + peer_address +
                                                  " is not loopback: use frames"));
    ServerStream::Config config;
    config.id = next_id;
    config.peer = peer;
    config.client_name = peers[peer].name;
    config.dataset = o.dataset;
    config.request = o;
    config.max_credits = options.max_credits;
    config.frame_buffers = options.frame_buffers;
    auto s = ServerStream::create(std::move(config), ds->second, *arena, wakeup, options.max_batch_bytes);
    if (!s.has_value()) return error(peer, s.error().with_context("OpenStream"));
    ++next_id;
    const StreamOpened reply = (*s)->opened();
    TF_LOG(Info) << "serve: stream " << reply.stream_id << " for " << describe_peer(peer) << " on '" << o.dataset
                 << "' (" << o.profile << ", batch " << o.batch_size << ", rank " << o.rank << "/" << o.world_size
                 << ", " << (o.transport == WireTransport::kSharedMemory ? "shared memory" : "frames")
                 << (o.benchmark ? ", transport benchmark" : "") << ") from epoch " << o.epoch << " batch "
                 << o.start_batch;
    streams.emplace(reply.stream_id, std::move(*s));
    send(peer, reply);
  }

  Stats stats() const {
    const Clock::time_point now = Clock::now();
    Stats s;
    s.stage_names = internal::stage_names();
    loader::StageTimes stages = ended_stages;
    s.samples = ended_samples;
    s.skipped_samples = ended_skipped;
    for (const auto& [id, stream] : streams) {
      StreamStats st = stream->stats(now);
      stages.add(stream->counters().stages);
      s.samples += st.samples;
      s.skipped_samples += st.skipped_samples;
      s.queue_depth += static_cast<uint32_t>(stream->running());
      s.streams.push_back(std::move(st));
    }
    s.stage_ms = internal::stage_ms_per_sample(stages);
    s.samples_per_second = total_rate.rate(now);
    s.uptime_seconds = std::chrono::duration<double>(now - started).count();
    s.threads = static_cast<uint32_t>(arena->max_concurrency());
    s.clients = static_cast<uint32_t>(peers.size());
    return s;
  }

  // Receives and handles pending messages (at most `budget`, so batches keep flowing under a flood).
  void receive(int budget) {
    for (int n = 0; n < budget; ++n) {
      std::vector<zmq::message_t> parts;
      if (!zmq::recv_multipart(socket, std::back_inserter(parts), zmq::recv_flags::dontwait)) return;
      if (parts.size() < 2) continue;
      const std::string peer = parts[0].to_string();
      Peer& p = peers[peer];
      p.last_seen = Clock::now();
      std::string address;
      if (tcp) {
        try {
          address = parts[1].gets("Peer-Address");
        } catch (const zmq::error_t&) {
        }
      }
      if (parts.size() > 2) {
        error(peer, Status::invalid_argument("a client message with " + std::to_string(parts.size() - 1) +
                                             " frames; clients send one"));
        continue;
      }
      auto m = decode(std::span<const uint8_t>(static_cast<const uint8_t*>(parts[1].data()), parts[1].size()));
      if (!m.has_value()) {
        error(peer, m.error());
        continue;
      }
      if (!p.hello && !std::holds_alternative<Hello>(*m) && !std::holds_alternative<StatsRequest>(*m)) {
        // A client whose connection outlived its daemon (this one restarted): it must start over.
        error(peer, Status::unavailable("this daemon does not know this client (it restarted?): connect again"));
        continue;
      }
      handle(peer, *m, address);
    }
  }

  // Sends every finished batch, in order per stream.
  void deliver() {
    const Clock::time_point now = Clock::now();
    std::vector<uint64_t> failed;
    for (auto& [id, s] : streams) {
      while (std::optional<internal::Outgoing> out = s->next_outgoing(now)) {
        if (!out->error.ok()) {
          error(s->peer(), out->error.with_context("stream " + std::to_string(id)), id);
          failed.push_back(id);
          break;
        }
        const uint64_t epoch = out->header.epoch;
        total_rate.add(static_cast<double>(out->header.indices.size()), now);
        if (!send(s->peer(), out->header, std::move(out->payload))) {  // never drop a batch silently
          error(s->peer(), Status::internal("batch " + std::to_string(out->header.batch) + " of stream " +
                                            std::to_string(id) + " has a header over 1 MiB (too many errors?)"),
                id);
          failed.push_back(id);
          break;
        }
        if (out->end_of_epoch) send(s->peer(), EndOfEpoch{id, epoch});
      }
    }
    for (uint64_t id : failed) end_stream(id, false, false);
  }

  // Starts fills round-robin over the streams that can take one, within the in-flight budget.
  void dispatch() {
    if (draining || streams.empty()) return;
    size_t in_flight = 0;
    for (const auto& [id, s] : streams) in_flight += s->in_flight();
    for (const Grave& g : graveyard) in_flight += g.stream->running();
    const size_t cap = max_in_flight();
    bool progress = true;
    while (in_flight < cap && progress) {
      progress = false;
      auto it = streams.upper_bound(round_robin);
      for (size_t n = 0; n < streams.size() && in_flight < cap; ++n, ++it) {
        if (it == streams.end()) it = streams.begin();
        ServerStream& s = *it->second;
        if (!s.can_start()) continue;
        const size_t before = s.in_flight();
        s.start_one();
        if (s.in_flight() == before) continue;
        ++in_flight;
        round_robin = it->first;
        progress = true;
      }
    }
  }

  void bury() {
    for (size_t i = 0; i < graveyard.size();) {
      Grave& g = graveyard[i];
      g.stream->discard_finished();
      if (g.stream->running() > 0) {
        ++i;
        continue;
      }
      g.stream->discard_finished();
      if (g.send_closed) send(g.stream->peer(), Closed{g.stream->id(), g.stream->batches_sent()});
      graveyard.erase(graveyard.begin() + static_cast<ptrdiff_t>(i));
    }
    for (size_t i = 0; i < pending_hellos.size();) {
      bool waiting = false;
      for (const Grave& g : graveyard) waiting |= g.session == pending_hellos[i].session;
      if (waiting) {
        ++i;
        continue;
      }
      send(pending_hellos[i].peer, hello_reply());
      pending_hellos.erase(pending_hellos.begin() + static_cast<ptrdiff_t>(i));
    }
  }

  void check_peers() {
    const Clock::time_point now = Clock::now();
    for (auto it = peers.begin(); it != peers.end();) {
      const std::string& peer = it->first;
      if (now - it->second.last_seen > options.client_timeout) {
        std::vector<uint64_t> ids;
        for (const auto& [id, s] : streams)
          if (s->peer() == peer) ids.push_back(id);
        if (!ids.empty()) {
          TF_LOG(Warning) << "serve: " << describe_peer(peer) << " silent for "
                          << std::chrono::duration_cast<std::chrono::milliseconds>(now - it->second.last_seen).count()
                          << " ms: ending its " << ids.size() << " stream(s) and reclaiming their memory";
        }
        for (uint64_t id : ids) end_stream(id, false, true);
        it = peers.erase(it);
        continue;
      }
      if (now - it->second.last_sent >= options.heartbeat_interval) send(peer, Heartbeat{unix_millis()});
      ++it;
    }
  }

  size_t running() const {
    size_t n = 0;
    for (const auto& [id, s] : streams) n += s->running();
    for (const Grave& g : graveyard) n += g.stream->running();
    return n;
  }

  Status poll(std::chrono::milliseconds timeout) {
    std::vector<zmq::pollitem_t> items = {{static_cast<void*>(socket), 0, ZMQ_POLLIN, 0},
                                          {nullptr, wakeup->fd(), ZMQ_POLLIN, 0}};
    if (zap) items.push_back({static_cast<void*>(zap->socket()), 0, ZMQ_POLLIN, 0});
    zmq::poll(items.data(), items.size(), timeout);
    wakeup->drain();
    if (zap) zap->handle_pending();
    receive(256);
    return Status();
  }

  void pass() {
    deliver();
    dispatch();
    bury();
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

Result<std::unique_ptr<Server>> Server::create(const ServerOptions& options, tbb::task_arena& arena) {
  if (options.datasets.empty()) return Status::invalid_argument("serve: no dataset to serve");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->arena = &arena;
  if (!impl->wakeup->ok()) return Status::from_errno("serve: eventfd", errno);
  impl->tcp = options.endpoint.rfind("tcp://", 0) == 0;
  if (impl->tcp && !options.curve.enabled() && !options.allow_plain_tcp)
    return Status::invalid_argument("serve: tcp needs CurveZMQ keys (--curve-key and --allow; see `textfeed keygen`) "
                                    "or an explicit --insecure-tcp");
  try {
    if (options.curve.enabled()) {
      TF_ASSIGN_OR_RETURN(impl->zap, internal::ZapHandler::create(impl->context, options.curve.allowed_clients));
      impl->socket.set(zmq::sockopt::curve_server, 1);
      impl->socket.set(zmq::sockopt::curve_secretkey, options.curve.server.secret_key);
      impl->socket.set(zmq::sockopt::zap_domain, "textfeed");
    }
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
  Impl& m = *impl_;
  Clock::time_point last_check = Clock::now();
  std::optional<Clock::time_point> drain_deadline;
  while (true) {
    try {
      if (stop.load(std::memory_order_relaxed) && !m.draining) {
        m.draining = true;
        drain_deadline = Clock::now() + m.options.drain_timeout;
        TF_LOG(Info) << "serve: stopping: finishing " << m.running() << " batch(es) in flight";
      }
      if (m.draining && (m.running() == 0 || Clock::now() > *drain_deadline)) break;
      TF_RETURN_IF_ERROR(m.poll(std::chrono::milliseconds(100)));
      m.pass();
      if (Clock::now() - last_check >= std::chrono::milliseconds(100)) {
        m.check_peers();
        last_check = Clock::now();
      }
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;  // a signal: `stop` says whether to go on
      return Status::io(std::string("serve: socket failure: ") + e.what());
    }
  }
  try {
    m.pass();
    std::set<std::string> told;
    for (const auto& [id, s] : m.streams)
      if (told.insert(s->peer()).second)
        m.send(s->peer(), ErrorReply{Code::kUnavailable, "textfeed serve is shutting down", 0});
    m.socket.set(zmq::sockopt::linger, 1000);  // let the last batches and notices go out
  } catch (const zmq::error_t& e) {
    TF_LOG(Warning) << "serve: while stopping: " << e.what();
  }
  TF_LOG(Info) << "serve: stopped; " << m.streams.size() << " stream(s) were open";
  return Status();
}

std::string Server::endpoint() const { return impl_->bound; }

}  // namespace textfeed::transport
