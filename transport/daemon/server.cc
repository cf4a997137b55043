// Server: the socket loop and the translation of messages. Each pass receives and answers
// messages, hands finished batches to their clients in order, starts the fills the Scheduler
// names, buries ended streams once their fills end, and watches heartbeats. A worker finishing a
// fill, or ZeroMQ releasing a frame buffer, wakes the loop through an eventfd in the same poll.
// What the daemon knows of its clients is the SessionTable's; which stream fills next is the
// Scheduler's; a stream's own state is detail/server_stream.
// Past the 500-line soft cap on purpose: every message's handling stays beside the socket that
// carries it; the state it acts on lives in the classes above.
#include "transport/daemon/server.h"

#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "base/clock.h"
#include "base/log.h"
#include "base/wakeup.h"
#include "loader/pipeline/worker_pool.h"
#include "loader/sources/dataset_source.h"
#include "loader/sources/mixture_source.h"
#include "loader/spec/spec_fields.h"
#include "transport/daemon/detail/ipc_claim.h"
#include "transport/daemon/detail/server_stream.h"
#include "transport/daemon/detail/zap.h"
#include "transport/daemon/scheduler.h"
#include "transport/daemon/session_table.h"
#include "transport/endpoint.h"
#include "transport/shm.h"
#include "transport/wire.h"

namespace textfeed::transport {

namespace {

using internal::ServerStream;
using TimePoint = Clock::TimePoint;

size_t default_memory_budget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) / 2
                               : size_t{8} << 30;
}

// Error replies repeat what the client sent: cut to `limit` bytes.
Status clipped(const Status& s, size_t limit) {
  if (s.message().size() <= limit) return s;
  return Status(s.code(), s.message().substr(0, limit) + "... (" +
                              std::to_string(s.message().size() - limit) + " more bytes)");
}

// A text of a request that the daemon would repeat (logs, replies, Stats), checked against its
// bound.
Status check_text(const char* field, const std::string& text, size_t limit) {
  if (text.size() <= limit) return Status();
  return Status::invalid_argument(std::string(field) + " of " + std::to_string(text.size()) +
                                  " bytes; at most " + std::to_string(limit));
}

// The reader options a stream asks for must be those the daemon read the dataset with (a cache
// was read when it was built: they do not apply to it).
// The first row of reader_fields() in which `asked` and `read` differ, as "field: asked X, read
// with Y" (a text list as a set: its order and repeats mean nothing); empty when they agree.
std::string reader_difference(const loader::ReaderOptions& asked,
                              const loader::ReaderOptions& read) {
  const loader::ReaderField* f = first_difference(asked, read, loader::reader_fields());
  if (f == nullptr) return {};
  const auto value = [f](const loader::ReaderOptions& o) {
    const std::string text = field_set_text(o, *f);
    return f->kind == FieldKind::kTextList ? "'" + text + "'" : text;
  };
  return std::string(f->name) + ": the stream asks for " + value(asked) +
         ", the daemon read it with " + value(read);
}

Status check_reader(const std::string& name, const loader::SampleSource& source,
                    const loader::ReaderOptions& asked, const loader::ReaderOptions& read) {
  if (const auto* mixture = dynamic_cast<const loader::MixtureSource*>(&source)) {
    for (const loader::MixtureSource::Member& m : mixture->members())
      TF_RETURN_IF_ERROR(check_reader(name, *m.source, asked, read));
    return Status();
  }
  if (dynamic_cast<const loader::DatasetSource*>(&source) == nullptr) return Status();
  const std::string difference = reader_difference(asked, read);
  if (difference.empty()) return Status();
  return Status::invalid_argument(
      "the stream asks for other reader options than this daemon read '" + name + "' with (" +
      difference + "): start `textfeed serve` with the same reader flags");
}

const char* message_name(const Message& m) {
  static const char* names[] = {"Hello",  "HelloReply",   "OpenStream",   "StreamOpened",
                                "Credit", "Batch",        "EndOfEpoch",   "Error",
                                "Close",  "Heartbeat",    "AttachMemory", "MemoryAttached",
                                "Closed", "StatsRequest", "Stats"};
  return names[m.index()];
}

size_t fill_budget(const ServerOptions& o, const loader::WorkerPool& pool) {
  return o.max_in_flight > 0 ? static_cast<size_t>(o.max_in_flight)
                             : static_cast<size_t>(pool.threads()) + 2;
}

std::shared_ptr<const Clock> clock_of(const ServerOptions& o) {
  return o.clock ? o.clock : std::make_shared<SteadyClock>();
}

}  // namespace

struct Server::Impl {
  Impl(const ServerOptions& o, loader::WorkerPool& p)
      : options(o), clock(clock_of(o)), pool(&p), scheduler(fill_budget(o, p)) {
    if (options.max_memory_bytes == 0) options.max_memory_bytes = default_memory_budget();
    started = last_trim = clock->now();
  }

  std::unique_ptr<internal::IpcClaim> claim;  // ipc: held for the daemon's life, released last
  ServerOptions options;
  std::shared_ptr<const Clock> clock;
  loader::WorkerPool* pool = nullptr;
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::router};
  std::unique_ptr<internal::ZapHandler> zap;
  std::unique_ptr<MemoryInbox> inbox;  // ipc: where clients hand over their shared memory
  std::shared_ptr<Wakeup> wakeup;      // set by create(): its eventfd failure is checked there
  std::string bound;
  ino_t bound_inode = 0;  // of the ipc socket file this daemon bound
  bool tcp = false;
  TimePoint started{}, last_trim{}, last_refusal_log{};
  uint64_t refused_memory = 0;  // memory hand-overs refused since the last log line
  SessionTable sessions;  // declared after the socket: its streams go first, waiting for fills
  Scheduler scheduler;
  // Stream ids start at a random point, so that a client's messages for a stream of a daemon that
  // died never name a stream of its restarted successor.
  uint64_t next_id = (uint64_t{std::random_device{}()} << 20) | 1;
  internal::RateMeter total_rate;
  bool draining = false;
  std::set<std::string> unread;  // peers whose queue was full: their streams end this pass
  bool trim_soon = false;        // streams ended since the last malloc_trim

  ~Impl() {
    sessions.clear();
    socket.close();
    // ZeroMQ unlinks an ipc path from its I/O thread, maybe after we exit: do it here, for sure,
    // but only while the path is still the socket this daemon bound.
    struct stat st {};
    const std::string path = bound.rfind("ipc://", 0) == 0 ? bound.substr(6) : std::string();
    if (!path.empty() && ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) &&
        st.st_ino == bound_inode)
      ::unlink(path.c_str());
  }

  TimePoint now() const { return clock->now(); }
  std::function<void(uint64_t)> fill_over() {
    return [this](uint64_t id) { scheduler.fill_finished(id); };
  }

  // Sends `m` (and its payload frames). False when it cannot be encoded (an envelope over 1 MiB),
  // or cannot be queued: the peer is gone, or its queue is full because it does not read (then
  // it is in `unread`, and its streams end in this pass: never a batch dropped in the middle of a
  // stream, which its client would take for a gap).
  bool send(const std::string& peer, const Message& m, std::vector<zmq::message_t> payload = {}) {
    if (unread.count(peer)) return false;
    auto bytes = encode(m);
    if (!bytes.has_value()) {
      TF_LOG(Error) << "serve: cannot encode " << message_name(m) << ": "
                    << bytes.error().to_string();
      return false;
    }
    if (!send_routing_id(peer)) return false;
    socket.send(zmq::buffer(*bytes),
                payload.empty() ? zmq::send_flags::none : zmq::send_flags::sndmore);
    for (size_t i = 0; i < payload.size(); ++i)
      socket.send(payload[i],
                  i + 1 < payload.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    sessions.sent_to(peer, now());
    return true;
  }

  // The first frame of a message to `peer`; false (and the peer in `unread`) when it cannot go.
  bool send_routing_id(const std::string& peer) {
    try {
      // ROUTER_MANDATORY: a full queue is EAGAIN here, before anything of the message is queued
      // (ZeroMQ counts whole messages against the high-water mark, so the rest then goes too).
      if (socket.send(zmq::buffer(peer), zmq::send_flags::sndmore | zmq::send_flags::dontwait))
        return true;
      unread.insert(peer);
      TF_LOG(Warning) << "serve: " << sessions.describe(peer)
                      << " does not read its messages (its queue is full): "
                      << "ending its streams; it resumes when it reconnects";
      return false;
    } catch (const zmq::error_t& e) {
      if (e.num() != EHOSTUNREACH) throw;
      // The peer disconnected (its process ended, or it closed its socket): an ordinary event. Its
      // streams end this pass, as those of a peer that does not read.
      if (unread.insert(peer).second)
        TF_LOG(Info) << "serve: " << sessions.describe(peer) << " disconnected: ending its streams";
      return false;
    }
  }

  void error(const std::string& peer, const Status& status, uint64_t stream_id = 0) {
    const Status s = clipped(status, options.max_error_message_bytes);
    TF_LOG(Warning) << "serve: to " << sessions.describe(peer) << ": " << s.to_string();
    send(peer, ErrorReply{s.code(), s.message(), stream_id});
  }

  // No more fills start for the stream; it is destroyed once the running ones end.
  void end_stream(uint64_t id, bool send_closed) {
    if (sessions.end_stream(id, send_closed, now())) scheduler.remove_stream(id);
  }

  // Ends the peer's streams and forgets it.
  void forget_peer(const std::string& peer) {
    for (uint64_t id : sessions.forget_peer(peer, now())) scheduler.remove_stream(id);
  }

  // A client that reconnects (same session, new connection) gets its HelloReply only once the
  // streams of its earlier connection can no longer write into the slots it will lend again.
  void hello(const std::string& peer, const Hello& h) {
    Peer& p = *sessions.find_peer(peer);  // receive() made it known
    p.name = h.client_name;
    p.session = h.session;
    p.hello = true;
    if (h.session != 0) {
      for (const std::string& other : sessions.other_connections(peer, h.session)) {
        if (const size_t n = sessions.streams_of(other).size(); n > 0)
          TF_LOG(Info) << "serve: '" << h.client_name << "' reconnected: ending the " << n
                       << " stream(s) of its earlier connection";
        forget_peer(other);
      }
      if (sessions.session_has_running_fills(h.session))
        return sessions.hold_hello(peer, h.session);
    }
    send(peer, hello_reply());
  }

  HelloReply hello_reply() const {
    HelloReply r{kProtocolVersion,
                 options.name,
                 {},
                 inbox ? inbox->path() : std::string(),
                 static_cast<uint32_t>(options.client_heartbeat_interval().count()),
                 static_cast<uint32_t>(
                     std::clamp<int64_t>(options.heartbeat_interval.count(), 1, UINT32_MAX))};
    for (const auto& [name, src] : options.datasets) r.datasets.push_back(name);
    return r;
  }

  void handle(const std::string& peer, const Message& m) {
    if (const auto* h = std::get_if<Hello>(&m)) return handle_hello(peer, *h);
    if (const auto* o = std::get_if<OpenStream>(&m)) return open(peer, *o);
    if (const auto* a = std::get_if<AttachMemory>(&m)) return attach(peer, *a);
    if (const auto* c = std::get_if<Credit>(&m)) return credit(peer, *c);
    if (const auto* c = std::get_if<Close>(&m)) return close(peer, *c);
    if (std::holds_alternative<Heartbeat>(m)) return;
    if (std::holds_alternative<StatsRequest>(m)) return send_stats(peer);
    error(peer, Status::invalid_argument(std::string("unexpected ") + message_name(m) +
                                         " from a client"));
  }

  void handle_hello(const std::string& peer, const Hello& h) {
    if (h.protocol_version != kProtocolVersion)
      return error(peer, Status::unimplemented(
                             "protocol version " + std::to_string(h.protocol_version) +
                             " is not this daemon's (" + std::to_string(kProtocolVersion) + ")"));
    // Before it is kept: every log line, Error and Stats about this client repeats its name.
    if (Status st = check_text("Hello.clientName", h.client_name, kMaxClientNameBytes); !st.ok())
      return error(peer, st);
    hello(peer, h);
  }

  void attach(const std::string& peer, const AttachMemory& a) {
    ServerStream* s = sessions.find_stream(peer, a.stream_id);
    if (!s)
      return error(peer, Status::not_found("no stream " + std::to_string(a.stream_id)),
                   a.stream_id);
    if (s->awaiting_memory()) receive_memory();  // a descriptor queued since this pass began
    if (Status st = s->attach(a); !st.ok()) {
      error(peer, st, a.stream_id);
      // Its one hand-over was refused: the stream can never get memory, so it ends (a stream
      // still waiting for its descriptor may be attached again).
      if (s->memory_refused()) end_stream(a.stream_id, false);
      return;
    }
    send(peer, MemoryAttached{a.stream_id});
  }

  void credit(const std::string& peer, const Credit& c) {
    ServerStream* s = sessions.find_stream(peer, c.stream_id);
    if (!s)
      return error(peer, Status::not_found("no stream " + std::to_string(c.stream_id)),
                   c.stream_id);
    Result<uint32_t> granted = s->credit(c);
    if (!granted.has_value()) return error(peer, granted.error(), c.stream_id);
    scheduler.credit(c.stream_id, *granted);
  }

  void close(const std::string& peer, const Close& c) {
    if (sessions.find_stream(peer, c.stream_id)) {
      TF_LOG(Info) << "serve: stream " << c.stream_id << " closed by " << sessions.describe(peer);
      return end_stream(c.stream_id, true);
    }
    // Ended already (it failed): Closed once its last fill stops, as for an open stream, since
    // Closed gives its slots back to the client.
    if (Grave* g = sessions.find_grave(peer, c.stream_id)) {
      g->send_closed = true;
      return;
    }
    send(peer, Closed{c.stream_id, 0});  // unknown, or gone: nothing of it is in flight
  }

  void send_stats(const std::string& peer) {
    const Stats st = stats();
    if (!send(peer, st) &&
        !unread.count(peer))  // never silence: say why (--max-streams set so high)
      error(peer, Status::overloaded("the Stats of " + std::to_string(st.streams.size()) +
                                     " streams do not fit in one message of " +
                                     std::to_string(kMaxEnvelopeBytes >> 20) + " MiB"));
  }

  // Whether one more stream for `peer` stays within the stream limits; the error names the limit.
  Status stream_limits(const std::string& peer) const {
    const size_t own = sessions.streams_of(peer).size();
    const size_t total = sessions.streams().size() + sessions.graves().size();
    if (own >= static_cast<size_t>(options.max_streams_per_client))
      return Status::overloaded("this client has " + std::to_string(own) +
                                " open streams, the daemon's limit " +
                                "(--max-streams-per-client)");
    if (total >= static_cast<size_t>(options.max_streams))
      return Status::overloaded("the daemon has " + std::to_string(total) +
                                " streams open or ending, its limit " +
                                "(--max-streams); try again later");
    return Status();
  }

  // What an OpenStream must pass before its pipeline is made.
  Status open_checks(const std::string& peer, const OpenStream& o) const {
    if (draining) return Status::unavailable("textfeed serve is shutting down");
    TF_RETURN_IF_ERROR(loader::validate(o.spec).with_context("OpenStream"));
    for (const loader::SourceSpec& source : o.spec.sources) {
      const auto dataset = options.datasets.find(source.path);
      if (dataset == options.datasets.end())
        return Status::not_found("no dataset named '" + source.path + "'");
      TF_RETURN_IF_ERROR(check_reader(source.path, *dataset->second, source.reader, options.reader)
                             .with_context("OpenStream"));
      if (dataset->second->parts().size() > 1 && (o.spec.sources.size() > 1 || source.weight > 0))
        return Status::invalid_argument(
            "OpenStream: dataset '" + source.path + "' is a mixture of " +
            std::to_string(dataset->second->parts().size()) +
            " sources with the daemon's weights: stream it alone and without a weight");
    }
    if (o.transport == Transport::kSharedMemory && !inbox)
      return Status::invalid_argument(
          "shared memory is offered over the daemon's ipc endpoint only; " + bound +
          " takes frames");
    return stream_limits(peer).with_context("OpenStream");
  }

  // The stream's source: the named dataset, or a mixture of the named ones with the client's
  // weights.
  Result<std::shared_ptr<const loader::SampleSource>> stream_source(
      const loader::PipelineSpec& spec) const {
    if (spec.sources.size() == 1 && spec.sources[0].weight == 0)
      return options.datasets.at(spec.sources[0].path);
    std::vector<loader::MixtureSource::Member> members;
    for (const loader::SourceSpec& s : spec.sources)
      members.push_back({options.datasets.at(s.path), s.path, s.weight});
    TF_ASSIGN_OR_RETURN(std::shared_ptr<const loader::MixtureSource> mixture,
                        loader::MixtureSource::create(std::move(members)));
    return std::shared_ptr<const loader::SampleSource>(std::move(mixture));
  }

  Result<std::unique_ptr<ServerStream>> make_stream(const std::string& peer, const OpenStream& o) {
    ServerStream::Config config;
    config.id = next_id;
    config.peer = peer;
    config.client_name = sessions.find_peer(peer)->name;
    config.dataset = o.spec.sources[0].path;
    if (o.spec.sources.size() > 1)
      config.dataset += " and " + std::to_string(o.spec.sources.size() - 1) + " more";
    config.request = o;
    config.decode = options.decode;
    config.max_credits = options.max_credits;
    config.frame_buffers = options.frame_buffers;
    TF_ASSIGN_OR_RETURN(std::shared_ptr<const loader::SampleSource> source, stream_source(o.spec));
    auto s = ServerStream::create(std::move(config), std::move(source), *pool, wakeup,
                                  options.max_batch_bytes);
    if (!s.has_value()) return s.error().with_context("OpenStream");
    if (const size_t in_use = sessions.memory_in_use();
        in_use + (*s)->memory_bytes() > options.max_memory_bytes)
      return Status::overloaded(
          "OpenStream: its " + std::to_string((*s)->memory_bytes() >> 20) +
          " MiB of frame buffers would take the daemon past its memory budget (" +
          std::to_string(in_use >> 20) + " of " + std::to_string(options.max_memory_bytes >> 20) +
          " MiB in use; --max-memory-mib)");
    return s;
  }

  void open(const std::string& peer, const OpenStream& o) {
    if (Status st = open_checks(peer, o); !st.ok()) return error(peer, st);
    auto s = make_stream(peer, o);
    if (!s.has_value()) return error(peer, s.error());
    ++next_id;
    const StreamOpened reply = (*s)->opened();
    const loader::SamplerOptions& sampler = o.spec.sampler;
    TF_LOG(Info) << "serve: stream " << reply.stream_id << " for " << sessions.describe(peer)
                 << " on '" << o.spec.sources[0].path << "' ("
                 << augment::profile_name(o.spec.augment.profile) << ", batch "
                 << sampler.batch_size << ", rank " << sampler.rank << "/" << sampler.world_size
                 << ", " << transport_name(o.transport) << ") from epoch " << o.start.epoch
                 << " batch " << o.start.batch;
    sessions.add_stream(std::move(*s));
    scheduler.add_stream(reply.stream_id);
    send(peer, reply);
  }

  Stats stats() const {
    const TimePoint t = now();
    Stats s;
    s.stage_names = internal::stage_names();
    loader::StageTimes stages = sessions.ended_stages();
    s.samples = sessions.ended_samples();
    s.skipped_samples = sessions.ended_skipped();
    for (const auto& [id, stream] : sessions.streams()) {
      StreamStats st = stream->stats(t);
      stages.add(stream->counters().stages);
      s.samples += st.samples;
      s.skipped_samples += st.skipped_samples;
      s.queue_depth += static_cast<uint32_t>(stream->running());
      s.streams.push_back(std::move(st));
    }
    s.stage_ms = internal::stage_ms_per_sample(stages);
    s.samples_per_second = total_rate.rate(t);
    s.uptime_seconds = std::chrono::duration<double>(t - started).count();
    s.threads = static_cast<uint32_t>(pool->threads());
    s.clients = static_cast<uint32_t>(sessions.clients());
    return s;
  }

  // Takes the shared-memory descriptors clients handed over and gives each to the stream whose
  // token came with it; anything else is closed at once (a descriptor is kept only for a stream
  // that waits for one, so their number is bounded by the stream limits).
  void receive_memory() {
    if (!inbox) return;
    size_t refused = 0;
    for (MemoryInbox::Delivery& d : inbox->receive(options.memory_handovers_per_pass, &refused)) {
      ServerStream* target = nullptr;
      for (const auto& [id, s] : sessions.streams())
        if (const MemoryToken* t = s->awaiting_memory(); t && *t == d.token) target = s.get();
      if (target)
        target->deposit(std::move(d.fd));
      else
        ++refused;
    }
    // Counted, and said at most once an interval: a client of the same user could flood the socket.
    refused_memory += refused;
    if (refused_memory > 0 && now() - last_refusal_log > options.refusal_log_interval) {
      TF_LOG(Warning) << "serve: refused " << refused_memory
                      << " memory hand-over(s) with no matching stream "
                      << "token (or malformed, or from another user)";
      refused_memory = 0;
      last_refusal_log = now();
    }
  }

  // Receives and handles pending messages (at most `budget`, so batches keep flowing under a
  // flood).
  void receive(int budget) {
    for (int n = 0; n < budget; ++n) {
      std::vector<zmq::message_t> parts;
      if (!zmq::recv_multipart(socket, std::back_inserter(parts), zmq::recv_flags::dontwait))
        return;
      if (parts.size() >= 2) receive_one(parts);
    }
  }

  // One client message: [routing id, envelope].
  void receive_one(const std::vector<zmq::message_t>& parts) {
    const std::string peer = parts[0].to_string();
    if (!sessions.find_peer(peer) &&
        sessions.clients() >= static_cast<size_t>(options.max_clients)) {
      send(peer, ErrorReply{Code::kOverloaded,
                            "the daemon has " + std::to_string(sessions.clients()) +
                                " clients, its limit (--max-clients); try again later",
                            0});
      return;
    }
    const Peer& p = sessions.touch(peer, now());
    if (parts.size() > 2)
      return error(peer, Status::invalid_argument("a client message with " +
                                                  std::to_string(parts.size() - 1) +
                                                  " frames; clients send one"));
    auto m = decode(
        std::span<const uint8_t>(static_cast<const uint8_t*>(parts[1].data()), parts[1].size()));
    if (!m.has_value()) return error(peer, m.error());
    if (!p.hello && !std::holds_alternative<Hello>(*m) && !std::holds_alternative<StatsRequest>(*m))
      // A client whose connection outlived its daemon (this one restarted): it must start over.
      return error(peer,
                   Status::unavailable(
                       "this daemon does not know this client (it restarted?): connect again"));
    handle(peer, *m);
  }

  // Sends every finished batch, in order per stream.
  void deliver() {
    const TimePoint t = now();
    std::vector<uint64_t> failed;
    for (const auto& [id, s] : sessions.streams())
      if (!deliver_stream(id, *s, t)) failed.push_back(id);
    for (uint64_t id : failed) end_stream(id, false);
  }

  // False when the stream failed (a fill's error, a batch that could not be sent): it must end.
  bool deliver_stream(uint64_t id, ServerStream& s, TimePoint t) {
    while (std::optional<internal::Outgoing> out = s.next_outgoing(t)) {
      scheduler.fill_finished(id);
      // Cancelled by the drain timeout: not the stream's failure. The client is told the daemon
      // is going away, reconnects and resumes at this batch.
      if (draining && out->error.code() == Code::kCancelled) continue;
      if (!out->error.ok()) {
        error(s.peer(), out->error.with_context("stream " + std::to_string(id)), id);
        return false;
      }
      const uint64_t epoch = out->header.epoch;
      total_rate.add(static_cast<double>(out->header.indices.size()), t);
      if (!send(s.peer(), out->header, std::move(out->payload))) {  // never drop a batch silently
        if (!unread.count(s.peer()))  // the peer reads and is there: the batch could not be encoded
          error(
              s.peer(),
              Status::internal("batch " + std::to_string(out->header.batch) + " of stream " +
                               std::to_string(id) + " could not be encoded (a header over 1 MiB?)"),
              id);
        return false;
      }
      if (out->end_of_epoch) send(s.peer(), EndOfEpoch{id, epoch});
    }
    return true;
  }

  // Starts the fills the Scheduler names, while it names one.
  void dispatch() {
    if (draining || sessions.streams().empty()) return;
    sessions.reap(fill_over());  // ended streams' fills that are over free their share first
    scheduler.begin_round();
    while (std::optional<uint64_t> id = scheduler.next()) {
      ServerStream& s = *sessions.streams().at(*id);
      Result<bool> began = s.start_one();
      if (!began.has_value()) {
        error(s.peer(), began.error().with_context("stream " + std::to_string(*id)), *id);
        end_stream(*id, false);
      } else if (*began) {
        scheduler.fill_started(*id);
      } else {
        scheduler.defer(*id);  // its buffers are all in use
      }
    }
  }

  void bury() {
    for (const Buried& b : sessions.bury(fill_over())) {
      if (b.send_closed) send(b.peer, Closed{b.stream_id, b.batches_delivered});
      trim_soon = true;
    }
    // The heap of `serve` keeps large blocks (tools: keep_large_allocations_in_heap), so what the
    // ended streams' pipelines freed stays in this process until it is handed back here; at most
    // once a trim_interval, and never while anything is being filled (trimming walks the heap
    // under its lock).
    if (trim_soon && sessions.running() == 0 && now() - last_trim > options.trim_interval) {
      ::malloc_trim(0);
      last_trim = now();
      trim_soon = false;
    }
    for (const std::string& peer : sessions.release_hellos()) send(peer, hello_reply());
  }

  // Forgets clients silent past the timeout at `t` (ending their streams), and sends heartbeats
  // due.
  void check_peers(TimePoint t) {
    for (const std::string& peer : sessions.silent_peers(t, options.client_timeout)) {
      if (const size_t n = sessions.streams_of(peer).size(); n > 0) {
        const auto silent = std::chrono::duration_cast<std::chrono::milliseconds>(
            t - sessions.find_peer(peer)->last_seen);
        TF_LOG(Warning) << "serve: " << sessions.describe(peer) << " silent for " << silent.count()
                        << " ms: ending its " << n << " stream(s) and reclaiming their memory";
      }
      forget_peer(peer);
    }
    for (const std::string& peer : sessions.heartbeats_due(t, options.heartbeat_interval))
      send(peer, Heartbeat{unix_millis()});
  }

  // Every fill of every stream (ended ones too) ends after its current sample.
  void cancel_fills() {
    for (const auto& [id, s] : sessions.streams()) s->cancel_fills();
    for (const Grave& g : sessions.graves()) g.stream->cancel_fills();
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
    receive(options.messages_per_pass);
    return Status();
  }

  // Ends the streams of peers that do not read and forgets them: their next message gets "connect
  // again", and they resume at the first batch they did not receive.
  void drop_unread() {
    for (const std::string& peer : unread) forget_peer(peer);
    unread.clear();
  }

  void pass() {
    drop_unread();
    deliver();
    dispatch();
    bury();
    drop_unread();
  }

  // Stopping: the first call after `stop` starts the drain; once drain_timeout has passed,
  // running fills are cancelled. True when the drain is over (nothing runs).
  bool drained(const std::atomic<bool>& stop) {
    if (stop.load(std::memory_order_relaxed) && !draining) {
      draining = true;
      drain_deadline = now() + options.drain_timeout;
      TF_LOG(Info) << "serve: stopping: finishing " << sessions.running() << " batch(es) in flight";
    }
    if (!draining) return false;
    if (sessions.running() > 0 && !cancelled && now() > drain_deadline) {
      // Out of time: the fills still running end after the sample each worker is on.
      TF_LOG(Warning) << "serve: drain timeout: cancelling " << sessions.running()
                      << " batch(es) still being filled";
      cancel_fills();
      cancelled = true;
    }
    return sessions.running() == 0;
  }

  // After the loop: the last batches go out, and every client with a stream is told why no more
  // come.
  void say_goodbye() {
    try {
      pass();
      std::set<std::string> told;
      for (const auto& [id, s] : sessions.streams())
        if (told.insert(s->peer()).second)
          send(s->peer(), ErrorReply{Code::kUnavailable, "textfeed serve is shutting down", 0});
      socket.set(zmq::sockopt::linger, static_cast<int>(options.stop_linger.count()));
    } catch (const zmq::error_t& e) {
      TF_LOG(Warning) << "serve: while stopping: " << e.what();
    }
  }

  // create(): the socket's options, then bind() under umask 077.
  Status bind_socket() {
    try {
      if (options.curve.enabled()) {
        TF_ASSIGN_OR_RETURN(zap,
                            internal::ZapHandler::create(context, options.curve.allowed_clients));
        socket.set(zmq::sockopt::curve_server, 1);
        socket.set(zmq::sockopt::curve_secretkey, options.curve.server.secret_key);
        socket.set(zmq::sockopt::zap_domain, "textfeed");
      }
      socket.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(kMaxEnvelopeBytes));
      socket.set(zmq::sockopt::linger, 0);
      socket.set(zmq::sockopt::router_mandatory, 1);  // a full queue is an error, not a silent drop
      // An ipc socket file is created by bind(): with umask 077 it is never open to others, even
      // before the chmod narrows it to 0600. Start-up only, so the process-wide umask is safe.
      const mode_t previous = ::umask(077);
      try {
        socket.bind(options.endpoint);
      } catch (...) {
        ::umask(previous);
        throw;
      }
      ::umask(previous);
      bound = socket.get(zmq::sockopt::last_endpoint);
    } catch (const zmq::error_t& e) {
      return Status::unavailable("serve: cannot bind " + options.endpoint + ": " + e.what());
    }
    return Status();
  }

  // create(), ipc: the socket file mode 0600, and the memory socket beside it.
  void offer_shared_memory() {
    ::chmod(bound.substr(6).c_str(), 0600);
    struct stat st {};
    if (::lstat(bound.substr(6).c_str(), &st) == 0) bound_inode = st.st_ino;
    // Absolute, so that a client in another working folder finds it.
    std::error_code ec;
    const std::string mem = std::filesystem::absolute(bound.substr(6) + ".mem", ec).string();
    auto memory = MemoryInbox::bind(mem);
    if (!memory.has_value())
      TF_LOG(Warning) << "serve: shared memory is off (clients get frames): "
                      << memory.error().to_string();
    else
      inbox = std::move(*memory);
  }

  TimePoint drain_deadline{};
  bool cancelled = false;  // by the drain timeout
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

Result<std::unique_ptr<Server>> Server::create(const ServerOptions& options,
                                               loader::WorkerPool& pool) {
  if (options.datasets.empty()) return Status::invalid_argument("serve: no dataset to serve");
  auto impl = std::make_unique<Impl>(options, pool);
  Result<Wakeup> wakeup = Wakeup::create();
  if (!wakeup.has_value()) return wakeup.error().with_context("serve");
  impl->wakeup = std::make_shared<Wakeup>(std::move(*wakeup));
  TF_RETURN_IF_ERROR(check_endpoint(options.endpoint, EndpointUse::kBind).with_context("serve"));
  impl->tcp = options.endpoint.rfind("tcp://", 0) == 0;
  const bool ipc = options.endpoint.rfind("ipc://", 0) == 0;
  if (ipc) {
    auto claim = internal::IpcClaim::claim(options.endpoint.substr(6));
    if (!claim.has_value()) return claim.error().with_context("serve: " + options.endpoint);
    impl->claim = std::move(*claim);
  }
  if (impl->tcp && !options.curve.enabled() && !options.allow_plain_tcp)
    return Status::invalid_argument(
        "serve: tcp needs CurveZMQ keys (--curve-key and --allow; see `textfeed keygen`) "
        "or an explicit --insecure-tcp");
  TF_RETURN_IF_ERROR(impl->bind_socket());
  if (ipc) impl->offer_shared_memory();
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Status Server::run(const std::atomic<bool>& stop) {
  Impl& m = *impl_;
  TimePoint last_check = m.now();
  while (true) {
    try {
      if (m.drained(stop)) break;
      TF_RETURN_IF_ERROR(m.poll(m.options.poll_interval));
      m.pass();
      // One reading of the clock for the test and the check: a second reading after the check
      // could be later than the time the check looked at, and a client falling silent in between
      // would then go unnoticed for a whole interval more.
      if (const TimePoint t = m.now(); t - last_check >= m.options.peer_check_interval) {
        m.check_peers(t);
        last_check = t;
      }
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;  // a signal: `stop` says whether to go on
      return Status::io(std::string("serve: socket failure: ") + e.what());
    }
  }
  m.say_goodbye();
  TF_LOG(Info) << "serve: stopped; " << m.sessions.streams().size() << " stream(s) were open";
  return Status();
}

std::string Server::endpoint() const { return impl_->bound; }

}  // namespace textfeed::transport
