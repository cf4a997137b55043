// Server: the socket loop. Each pass receives and answers messages, hands finished batches to
// their clients in order, starts new fills round-robin while the in-flight budget allows, buries
// closed streams once their fills end, and watches heartbeats. A worker finishing a fill, or
// ZeroMQ releasing a frame buffer, wakes the loop through an eventfd in the same poll.
// Past the 500-line soft cap on purpose: the loop and every message's handling are one state
// machine over the same peer, stream and graveyard tables; the per-stream state and the frame
// buffers already live in detail/.
#include "transport/server.h"

#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <set>
#include <vector>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "base/log.h"
// Server takes a tbb::task_arena& (server.h) while its streams run on a loader::WorkerPool: the
// one exemption of scripts/check_includes.py, until Server takes a WorkerPool.
#include "loader/detail/worker_pool_tbb.h"
#include "transport/detail/ipc_claim.h"
#include "transport/detail/server_stream.h"
#include "transport/detail/wakeup.h"
#include "transport/detail/zap.h"
#include "transport/endpoint.h"
#include "transport/wire.h"

namespace textfeed::transport {

namespace {

using Clock = std::chrono::steady_clock;
using internal::ServerStream;

int64_t unix_millis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

size_t default_memory_budget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) / 2 : size_t{8} << 30;
}

// Error replies repeat what the client sent (a dataset name, an option): cut, so that the reply
// always fits in one envelope and a log line stays a line.
constexpr size_t kMaxErrorMessageBytes = 16 << 10;

Status clipped(const Status& s) {
  if (s.message().size() <= kMaxErrorMessageBytes) return s;
  return Status(s.code(), s.message().substr(0, kMaxErrorMessageBytes) + "... (" +
                              std::to_string(s.message().size() - kMaxErrorMessageBytes) + " more bytes)");
}

// A text of a request that the daemon would repeat (logs, replies, Stats), checked against its bound.
Status check_text(const char* field, const std::string& text, size_t limit) {
  if (text.size() <= limit) return Status();
  return Status::invalid_argument(std::string(field) + " of " + std::to_string(text.size()) + " bytes; at most " +
                                  std::to_string(limit));
}

Status check_texts(const OpenStream& o) {
  TF_RETURN_IF_ERROR(check_text("OpenStream.dataset", o.dataset, kMaxRequestTextBytes));
  TF_RETURN_IF_ERROR(check_text("OpenStream.profile", o.profile, kMaxRequestTextBytes));
  for (const auto& [name, value] : o.overrides) {
    TF_RETURN_IF_ERROR(check_text("an override's name", name, kMaxRequestTextBytes));
    TF_RETURN_IF_ERROR(check_text("an override's value", value, kMaxRequestTextBytes));
  }
  return Status();
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
  std::unique_ptr<internal::IpcClaim> claim;  // ipc: held for the daemon's life, released last
  ServerOptions options;
  tbb::task_arena* arena = nullptr;
  std::unique_ptr<loader::WorkerPool> workers;  // over *arena, for the streams
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::router};
  std::unique_ptr<internal::ZapHandler> zap;
  std::unique_ptr<MemoryInbox> inbox;  // ipc: where clients hand over their shared memory
  std::shared_ptr<internal::Wakeup> wakeup = std::make_shared<internal::Wakeup>();
  std::string bound;
  ino_t bound_inode = 0;  // of the ipc socket file this daemon bound
  bool tcp = false;
  Clock::time_point started = Clock::now();
  Clock::time_point last_trim = Clock::now();
  Clock::time_point last_refusal_log{};
  uint64_t refused_memory = 0;  // memory hand-overs refused since the last log line
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
  std::set<std::string> unread;  // peers whose queue was full: their streams end this pass
  bool trim_soon = false;  // streams ended since the last malloc_trim

  ~Impl() {
    streams.clear();
    graveyard.clear();
    socket.close();
    // ZeroMQ unlinks an ipc path from its I/O thread, maybe after we exit: do it here, for sure,
    // but only while the path is still the socket this daemon bound.
    struct stat st {};
    const std::string path = bound.rfind("ipc://", 0) == 0 ? bound.substr(6) : std::string();
    if (!path.empty() && ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == bound_inode)
      ::unlink(path.c_str());
  }

  size_t max_in_flight() const {
    return options.max_in_flight > 0 ? static_cast<size_t>(options.max_in_flight)
                                     : static_cast<size_t>(arena->max_concurrency()) + 2;
  }

  // Sends `m` (and its payload frames). False when it cannot be encoded (an envelope over 1 MiB).
  // Sends `m` (and its payload frames). False when it cannot be encoded (an envelope over 1 MiB),
  // or cannot be queued: the peer is gone, or its queue is full because it does not read (then
  // it is in `unread`, and its streams end in this pass: never a batch dropped in the middle of a
  // stream, which its client would take for a gap).
  bool send(const std::string& peer, const Message& m, std::vector<zmq::message_t> payload = {}) {
    if (unread.count(peer)) return false;
    auto bytes = encode(m);
    if (!bytes.has_value()) {
      TF_LOG(Error) << "serve: cannot encode " << message_name(m) << ": " << bytes.error().to_string();
      return false;
    }
    try {
      // ROUTER_MANDATORY: a full queue is EAGAIN here, before anything of the message is queued
      // (ZeroMQ counts whole messages against the high-water mark, so the rest then goes too).
      if (!socket.send(zmq::buffer(peer), zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
        unread.insert(peer);
        TF_LOG(Warning) << "serve: " << describe_peer(peer) << " does not read its messages (its queue is full): "
                        << "ending its streams; it resumes when it reconnects";
        return false;
      }
    } catch (const zmq::error_t& e) {
      if (e.num() != EHOSTUNREACH) throw;
      // The peer disconnected (its process ended, or it closed its socket): an ordinary event. Its
      // streams end this pass, as those of a peer that does not read.
      if (unread.insert(peer).second)
        TF_LOG(Info) << "serve: " << describe_peer(peer) << " disconnected: ending its streams";
      return false;
    }
    socket.send(zmq::buffer(*bytes), payload.empty() ? zmq::send_flags::none : zmq::send_flags::sndmore);
    for (size_t i = 0; i < payload.size(); ++i)
      socket.send(payload[i], i + 1 < payload.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    auto it = peers.find(peer);
    if (it != peers.end()) it->second.last_sent = Clock::now();
    return true;
  }

  void error(const std::string& peer, const Status& status, uint64_t stream_id = 0) {
    const Status s = clipped(status);
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

  // Moves a stream to the graveyard: no more fills start for it; it is destroyed (and the client's
  // memory unmapped, its frame buffers freed) once the running ones end.
  void end_stream(uint64_t id, bool send_closed) {
    auto it = streams.find(id);
    if (it == streams.end()) return;
    std::unique_ptr<ServerStream> s = std::move(it->second);
    streams.erase(it);
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
        for (uint64_t id : ids) end_stream(id, false);
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
    const auto beat = std::min<std::chrono::milliseconds>(std::chrono::milliseconds(1000), options.client_timeout / 4);
    HelloReply r{kProtocolVersion, options.name, {}, inbox ? inbox->path() : std::string(),
                 static_cast<uint32_t>(std::max<int64_t>(1, beat.count())),
                 static_cast<uint32_t>(std::clamp<int64_t>(options.heartbeat_interval.count(), 1, UINT32_MAX))};
    for (const auto& [name, src] : options.datasets) r.datasets.push_back(name);
    return r;
  }

  void handle(const std::string& peer, const Message& m) {
    if (const auto* h = std::get_if<Hello>(&m)) {
      if (h->protocol_version != kProtocolVersion)
        return error(peer, Status::unimplemented("protocol version " + std::to_string(h->protocol_version) +
                                                 " is not this daemon's (" + std::to_string(kProtocolVersion) + ")"));
      // Before it is kept: every log line, Error and Stats about this client repeats its name.
      if (Status st = check_text("Hello.clientName", h->client_name, kMaxClientNameBytes); !st.ok())
        return error(peer, st);
      return hello(peer, *h);
    }
    if (const auto* o = std::get_if<OpenStream>(&m)) return open(peer, *o);
    if (const auto* a = std::get_if<AttachMemory>(&m)) {
      ServerStream* s = find_stream(peer, a->stream_id);
      if (!s) return error(peer, Status::not_found("no stream " + std::to_string(a->stream_id)), a->stream_id);
      if (s->awaiting_memory()) receive_memory();  // a descriptor queued since this pass began
      if (Status st = s->attach(*a); !st.ok()) {
        error(peer, st, a->stream_id);
        // Its one hand-over was refused: the stream can never get memory, so it ends (a stream
        // still waiting for its descriptor may be attached again).
        if (s->memory_refused()) end_stream(a->stream_id, false);
        return;
      }
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
        return end_stream(c->stream_id, true);
      }
      // Ended already (it failed): Closed once its last fill stops, as for an open stream, since
      // Closed gives its slots back to the client.
      for (Grave& g : graveyard)
        if (g.stream->id() == c->stream_id && g.stream->peer() == peer) {
          g.send_closed = true;
          return;
        }
      send(peer, Closed{c->stream_id, 0});  // unknown, or gone: nothing of it is in flight
      return;
    }
    if (std::holds_alternative<Heartbeat>(m)) return;
    if (std::holds_alternative<StatsRequest>(m)) {
      const Stats st = stats();
      if (!send(peer, st) && !unread.count(peer))  // never silence: say why (--max-streams set so high)
        error(peer, Status::overloaded("the Stats of " + std::to_string(st.streams.size()) +
                                       " streams do not fit in one message of " +
                                       std::to_string(kMaxEnvelopeBytes >> 20) + " MiB"));
      return;
    }
    error(peer, Status::invalid_argument(std::string("unexpected ") + message_name(m) + " from a client"));
  }

  // Whether one more stream for `peer` stays within the stream limits; the error names the limit.
  Status stream_limits(const std::string& peer) const {
    size_t own = 0, total = streams.size() + graveyard.size();
    for (const auto& [id, s] : streams) own += s->peer() == peer;
    if (own >= static_cast<size_t>(options.max_streams_per_client))
      return Status::overloaded("this client has " + std::to_string(own) + " open streams, the daemon's limit " +
                                "(--max-streams-per-client)");
    if (total >= static_cast<size_t>(options.max_streams))
      return Status::overloaded("the daemon has " + std::to_string(total) + " streams open or ending, its limit " +
                                "(--max-streams); try again later");
    return Status();
  }

  size_t memory_in_use() const {
    size_t bytes = 0;
    for (const auto& [id, s] : streams) bytes += s->memory_bytes();
    for (const Grave& g : graveyard) bytes += g.stream->memory_bytes();
    return bytes;
  }

  void open(const std::string& peer, const OpenStream& o) {
    if (draining) return error(peer, Status::unavailable("textfeed serve is shutting down"));
    if (Status st = check_texts(o); !st.ok()) return error(peer, st.with_context("OpenStream"));
    auto ds = options.datasets.find(o.dataset);
    if (ds == options.datasets.end()) return error(peer, Status::not_found("no dataset named '" + o.dataset + "'"));
    if (o.transport == WireTransport::kSharedMemory && !inbox)
      return error(peer, Status::invalid_argument("shared memory is offered over the daemon's ipc endpoint only; " +
                                                  bound + " takes frames"));
    if (Status st = stream_limits(peer); !st.ok()) return error(peer, st.with_context("OpenStream"));
    ServerStream::Config config;
    config.id = next_id;
    config.peer = peer;
    config.client_name = peers[peer].name;
    config.dataset = o.dataset;
    config.request = o;
    config.max_credits = options.max_credits;
    config.frame_buffers = options.frame_buffers;
    auto s = ServerStream::create(std::move(config), ds->second, *workers, wakeup, options.max_batch_bytes);
    if (!s.has_value()) return error(peer, s.error().with_context("OpenStream"));
    if (const size_t in_use = memory_in_use(); in_use + (*s)->memory_bytes() > options.max_memory_bytes)
      return error(peer, Status::overloaded("OpenStream: its " + std::to_string((*s)->memory_bytes() >> 20) +
                                            " MiB of frame buffers would take the daemon past its memory budget (" +
                                            std::to_string(in_use >> 20) + " of " +
                                            std::to_string(options.max_memory_bytes >> 20) +
                                            " MiB in use; --max-memory-mib)"));
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

  // Takes the shared-memory descriptors clients handed over and gives each to the stream whose
  // token came with it; anything else is closed at once (a descriptor is kept only for a stream
  // that waits for one, so their number is bounded by the stream limits).
  void receive_memory() {
    if (!inbox) return;
    size_t refused = 0;
    for (MemoryInbox::Delivery& d : inbox->receive(64, &refused)) {
      ServerStream* target = nullptr;
      for (const auto& [id, s] : streams)
        if (const MemoryToken* t = s->awaiting_memory(); t && *t == d.token) target = s.get();
      if (target) target->deposit(std::move(d.fd));
      else ++refused;
    }
    // Counted, and said at most once a second: a client of the same user could flood the socket.
    refused_memory += refused;
    if (refused_memory > 0 && Clock::now() - last_refusal_log > std::chrono::seconds(1)) {
      TF_LOG(Warning) << "serve: refused " << refused_memory << " memory hand-over(s) with no matching stream "
                      << "token (or malformed, or from another user)";
      refused_memory = 0;
      last_refusal_log = Clock::now();
    }
  }

  // Receives and handles pending messages (at most `budget`, so batches keep flowing under a flood).
  void receive(int budget) {
    for (int n = 0; n < budget; ++n) {
      std::vector<zmq::message_t> parts;
      if (!zmq::recv_multipart(socket, std::back_inserter(parts), zmq::recv_flags::dontwait)) return;
      if (parts.size() < 2) continue;
      const std::string peer = parts[0].to_string();
      if (!peers.count(peer) && peers.size() >= static_cast<size_t>(options.max_clients)) {
        send(peer, ErrorReply{Code::kOverloaded, "the daemon has " + std::to_string(peers.size()) +
                                                     " clients, its limit (--max-clients); try again later", 0});
        continue;
      }
      Peer& p = peers[peer];
      p.last_seen = Clock::now();
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
      handle(peer, *m);
    }
  }

  // Sends every finished batch, in order per stream.
  void deliver() {
    const Clock::time_point now = Clock::now();
    std::vector<uint64_t> failed;
    for (auto& [id, s] : streams) {
      while (std::optional<internal::Outgoing> out = s->next_outgoing(now)) {
        // Cancelled by the drain timeout: not the stream's failure. The client is told the daemon
        // is going away, reconnects and resumes at this batch.
        if (draining && out->error.code() == Code::kCancelled) continue;
        if (!out->error.ok()) {
          error(s->peer(), out->error.with_context("stream " + std::to_string(id)), id);
          failed.push_back(id);
          break;
        }
        const uint64_t epoch = out->header.epoch;
        total_rate.add(static_cast<double>(out->header.indices.size()), now);
        if (!send(s->peer(), out->header, std::move(out->payload))) {  // never drop a batch silently
          if (!unread.count(s->peer()))  // the peer reads and is there: the batch could not be encoded
            error(s->peer(), Status::internal("batch " + std::to_string(out->header.batch) + " of stream " +
                                              std::to_string(id) + " could not be encoded (a header over 1 MiB?)"),
                  id);
          failed.push_back(id);
          break;
        }
        if (out->end_of_epoch) send(s->peer(), EndOfEpoch{id, epoch});
      }
    }
    for (uint64_t id : failed) end_stream(id, false);
  }

  // Starts fills round-robin over the streams that can take one, within the in-flight budget.
  void dispatch() {
    if (draining || streams.empty()) return;
    size_t in_flight = 0;
    for (const auto& [id, s] : streams) in_flight += s->in_flight();
    for (const Grave& g : graveyard) in_flight += g.stream->running();
    const size_t cap = max_in_flight();
    std::vector<uint64_t> failed;
    bool progress = true;
    while (in_flight < cap && progress) {
      progress = false;
      auto it = streams.upper_bound(round_robin);
      for (size_t n = 0; n < streams.size() && in_flight < cap; ++n, ++it) {
        if (it == streams.end()) it = streams.begin();
        ServerStream& s = *it->second;
        if (!s.can_start() || std::find(failed.begin(), failed.end(), it->first) != failed.end()) continue;
        const size_t before = s.in_flight();
        if (Status st = s.start_one(); !st.ok()) {
          error(s.peer(), st.with_context("stream " + std::to_string(it->first)), it->first);
          failed.push_back(it->first);
          continue;
        }
        if (s.in_flight() == before) continue;
        ++in_flight;
        round_robin = it->first;
        progress = true;
      }
    }
    for (uint64_t id : failed) end_stream(id, false);
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
      trim_soon = true;
    }
    // The heap of `serve` keeps large blocks (tools: keep_large_allocations_in_heap), so what the
    // ended streams' pipelines freed stays in this process until it is handed back here; at most
    // once a second, and never while anything is being filled (trimming walks the heap under its
    // lock).
    if (trim_soon && running() == 0 && Clock::now() - last_trim > std::chrono::seconds(1)) {
      ::malloc_trim(0);
      last_trim = Clock::now();
      trim_soon = false;
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
        for (uint64_t id : ids) end_stream(id, false);
        it = peers.erase(it);
        continue;
      }
      if (now - it->second.last_sent >= options.heartbeat_interval) send(peer, Heartbeat{unix_millis()});
      ++it;
    }
  }

  // Every fill of every stream (ended ones too) ends after its current sample.
  void cancel_fills() {
    for (const auto& [id, s] : streams) s->cancel_fills();
    for (const Grave& g : graveyard) g.stream->cancel_fills();
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
    if (inbox) items.push_back({nullptr, inbox->fd(), ZMQ_POLLIN, 0});
    zmq::poll(items.data(), items.size(), timeout);
    wakeup->drain();
    if (zap) zap->handle_pending();
    receive_memory();  // before the messages: an AttachMemory finds the descriptor sent ahead of it
    receive(256);
    return Status();
  }

  // Ends the streams of peers that do not read and forgets them: their next message gets "connect
  // again", and they resume at the first batch they did not receive.
  void drop_unread() {
    for (const std::string& peer : unread) {
      std::vector<uint64_t> ids;
      for (const auto& [id, s] : streams)
        if (s->peer() == peer) ids.push_back(id);
      for (uint64_t id : ids) end_stream(id, false);
      peers.erase(peer);
    }
    unread.clear();
  }

  void pass() {
    drop_unread();
    deliver();
    dispatch();
    bury();
    drop_unread();
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

Result<std::unique_ptr<Server>> Server::create(const ServerOptions& options, tbb::task_arena& arena) {
  if (options.datasets.empty()) return Status::invalid_argument("serve: no dataset to serve");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (impl->options.max_memory_bytes == 0) impl->options.max_memory_bytes = default_memory_budget();
  impl->arena = &arena;
  impl->workers = loader::internal::borrow_arena(arena);
  if (!impl->wakeup->ok()) return Status::from_errno("serve: eventfd", errno);
  TF_RETURN_IF_ERROR(check_endpoint(options.endpoint, EndpointUse::kBind).with_context("serve"));
  impl->tcp = options.endpoint.rfind("tcp://", 0) == 0;
  const bool ipc = options.endpoint.rfind("ipc://", 0) == 0;
  if (ipc) {
    auto claim = internal::IpcClaim::claim(options.endpoint.substr(6));
    if (!claim.has_value()) return claim.error().with_context("serve: " + options.endpoint);
    impl->claim = std::move(*claim);
  }
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
    impl->socket.set(zmq::sockopt::router_mandatory, 1);  // a full queue is an error, not a silent drop
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
  if (ipc) {
    ::chmod(impl->bound.substr(6).c_str(), 0600);
    struct stat st {};
    if (::lstat(impl->bound.substr(6).c_str(), &st) == 0) impl->bound_inode = st.st_ino;
    // Absolute, so that a client in another working folder finds it.
    std::error_code ec;
    const std::string mem = std::filesystem::absolute(impl->bound.substr(6) + ".mem", ec).string();
    auto inbox = MemoryInbox::bind(mem);
    if (!inbox.has_value())
      TF_LOG(Warning) << "serve: shared memory is off (clients get frames): " << inbox.error().to_string();
    else
      impl->inbox = std::move(*inbox);
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Status Server::run(const std::atomic<bool>& stop) {
  Impl& m = *impl_;
  Clock::time_point last_check = Clock::now();
  std::optional<Clock::time_point> drain_deadline;
  bool cancelled = false;
  while (true) {
    try {
      if (stop.load(std::memory_order_relaxed) && !m.draining) {
        m.draining = true;
        drain_deadline = Clock::now() + m.options.drain_timeout;
        TF_LOG(Info) << "serve: stopping: finishing " << m.running() << " batch(es) in flight";
      }
      if (m.draining && m.running() > 0 && !cancelled && Clock::now() > *drain_deadline) {
        // Out of time: the fills still running end after the sample each worker is on.
        TF_LOG(Warning) << "serve: drain timeout: cancelling " << m.running() << " batch(es) still being filled";
        m.cancel_fills();
        cancelled = true;
      }
      if (m.draining && m.running() == 0) break;
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
