// DaemonSession: join and reconnect (connect, open, check, attach), the thread's turns (credits,
// messages, silence), the checks of each batch, and what a loss or a refusal tells the feed.
#include "client/detail/daemon_session.h"

#include <poll.h>

#include <algorithm>
#include <random>

#include "base/log.h"

namespace textfeed::client::internal {

namespace {

using namespace std::chrono_literals;

std::string position_text(uint64_t epoch, uint64_t batch) {
  return "epoch " + std::to_string(epoch) + " batch " + std::to_string(batch);
}

// "60 s", or "1500 ms" where seconds would round.
std::string duration_text(std::chrono::milliseconds d) {
  return d.count() % 1000 == 0 ? std::to_string(d.count() / 1000) + " s"
                               : std::to_string(d.count()) + " ms";
}

// Errors of a reconnect after which a daemon is out for good: it disagrees (another protocol, no
// such dataset, a spec it refuses, another layout). Anything else passes: it is tried again.
bool refuses_for_good(Code code) {
  return code == Code::kInvalidArgument || code == Code::kUnimplemented || code == Code::kNotFound;
}

// Whether a batch of a stream of `spec` lacks the per-sample metadata that eval and
// return_polygons streams carry (a daemon that predates them sends plain batches).
bool lacks_sample_meta(const loader::PipelineSpec& spec, const transport::BatchHeader& h) {
  return (spec.mode == loader::Mode::kEval || spec.return_polygons) &&
         h.samples.size() != h.indices.size();
}

// The jitter's seed of producer `id`: the options' mixed with the index (the ranks' and the
// producers' draws differ), or a random one.
uint64_t backoff_seed(const ClientOptions& o, size_t id) {
  constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;  // spreads consecutive indices apart
  const uint64_t seed = o.backoff_seed != 0
                            ? o.backoff_seed
                            : (uint64_t{std::random_device{}()} << 32 | std::random_device{}());
  return seed ^ (kGolden * (uint64_t{id} + 1));
}

FeedTransport transport_of(bool shm, transport::Payload payload) {
  if (shm) return FeedTransport::kSharedMemory;
  return payload == transport::Payload::kCompact ? FeedTransport::kCompactFrames
                                                 : FeedTransport::kFrames;
}

}  // namespace

FeedLayout stream_layout(const transport::StreamOpened& o, const loader::ResumePoint& resume) {
  FeedLayout f;
  f.tensors = o.tensors;
  f.slot_bytes = o.slot_bytes;
  f.epochs.per_epoch = o.batches_per_epoch;
  f.epochs.resumed = !resume.stages.empty();
  f.epochs.resumed_epoch = resume.epoch;
  f.epochs.resumed_batches = f.epochs.resumed ? o.resumed_batches : 0;
  f.dataset_size = o.dataset_size;
  f.source_sizes = o.source_sizes;
  f.batch_size = o.tensors.empty() ? 0 : static_cast<int>(o.tensors[0].shape[0]);
  if (o.dataset_fingerprint != 0) f.dataset_fingerprint = o.dataset_fingerprint;
  return f;
}

// ------------------------------------------------------------------------- life and first contact

DaemonSession::DaemonSession(ProducerHost& host, Config config,
                             std::shared_ptr<DaemonConnector> connector,
                             std::unique_ptr<CompactFinisher> finisher, Wakeup wake)
    : host_(host),
      config_(std::move(config)),
      clock_(clock_of(config_.options)),
      connector_(std::move(connector)),
      finisher_(std::move(finisher)),
      wake_(std::move(wake)),
      backoff_(config_.options.backoff_first, config_.options.backoff_max,
               config_.options.backoff_jitter, backoff_seed(config_.options, config_.id)),
      transport_(transport_of(false, config_.payload)) {
  if (finisher_)
    crops_.resize(compact_row_bytes(finisher_->crop_size()) *
                  static_cast<size_t>(finisher_->batch_size()));
  lost_since_ = next_try_ = clock_->now();
}

Result<std::unique_ptr<DaemonSession>> DaemonSession::create(
    ProducerHost& host, Config config, std::shared_ptr<DaemonConnector> connector,
    std::unique_ptr<CompactFinisher> finisher) {
  TF_ASSIGN_OR_RETURN(Wakeup wake, Wakeup::create());
  return std::unique_ptr<DaemonSession>(new DaemonSession(
      host, std::move(config), std::move(connector), std::move(finisher), std::move(wake)));
}

DaemonSession::~DaemonSession() { stop(); }

void DaemonSession::start() { thread_ = std::thread(&DaemonSession::run, this); }

void DaemonSession::stop() {
  stop_ = true;
  wake();
  if (thread_.joinable()) thread_.join();
}

void DaemonSession::drop() {
  drop_asked_ = true;
  wake();
}

Status DaemonSession::join() {
  Result<Stream> s = open_stream(config_.options.connect_timeout);
  if (!s.has_value()) {
    last_error_ = s.error();
    lost_since_ = next_try_ = clock_->now();
    return s.error();
  }
  adopt(std::move(*s));
  return Status();
}

Status DaemonSession::attach() {
  if (!link_ || !shm_) return Status();
  return link_->attach(opened_, host_.ring(), answer_);
}

// Connects (the session's one Hello session id: a live daemon ends the earlier connection's
// streams, and their fills, before it answers) and opens the assigned stream.
Result<DaemonSession::Stream> DaemonSession::open_stream(std::chrono::milliseconds hello_timeout) {
  const ClientOptions& o = config_.options;
  const DaemonProducer& d = config_.daemon;
  transport::ConnectOptions c;
  c.timeout = hello_timeout;
  c.heartbeat_interval = o.heartbeat_interval;
  c.curve = d.curve;
  c.session = d.session;
  Stream s;
  // The daemon answers requests at once; a longer wait only delays a reconnect.
  s.answer = std::max(hello_timeout, o.daemon_timeout);
  TF_ASSIGN_OR_RETURN(s.link, connector_->connect(d.endpoint, config_.client_name, c));
  const bool offered = !s.link->hello().memory_socket.empty();
  if (d.transport == transport::Transport::kSharedMemory && !offered)
    return Status::invalid_argument(
        "transport 'shm': the daemon at " + d.endpoint +
        " offers no shared memory (only its ipc:// endpoint does); use 'frames' or 'auto'");
  s.shm = d.transport != transport::Transport::kFrames && offered && !finisher_;
  transport::OpenStream request;
  request.payload = config_.payload;
  request.spec = config_.spec;
  request.start = config_.start;
  request.transport = s.shm ? transport::Transport::kSharedMemory : transport::Transport::kFrames;
  request.assigned = true;
  TF_ASSIGN_OR_RETURN(s.opened, s.link->open(request, s.answer));
  TF_RETURN_IF_ERROR(check_opened(s));
  s.layout = stream_layout(s.opened, config_.spec.sampler.resume);
  return s;
}

Status DaemonSession::check_opened(const Stream& s) const {
  const std::string& endpoint = config_.daemon.endpoint;
  if (!s.opened.assigned)
    return Status::invalid_argument(
        "the daemon at " + endpoint +
        " predates assigned streams: a feed of daemons needs a newer one");
  if (!finisher_) return Status();
  if (s.opened.compact_bytes == 0)
    return Status::invalid_argument("the daemon at " + endpoint + " predates the compact payload");
  if (s.opened.compact_bytes != crops_.size())
    return Status::invalid_argument("the daemon at " + endpoint + " sends compact batches of " +
                                    std::to_string(s.opened.compact_bytes) + " bytes, not " +
                                    std::to_string(crops_.size()));
  return Status();
}

void DaemonSession::adopt(Stream s) {
  link_ = std::move(s.link);
  opened_ = std::move(s.opened);
  layout_ = std::move(s.layout);
  shm_ = s.shm;
  answer_ = s.answer;
  const uint32_t prefetch = config_.prefetch;
  limit_ = shm_ || opened_.max_credits == 0 ? prefetch : std::min(prefetch, opened_.max_credits);
  // A daemon quiet for less than three of its own heartbeats is alive: waiting less would take it
  // for gone between two of them, and reconnect for ever.
  const auto beats = std::chrono::milliseconds(3 * int64_t{link_->hello().server_heartbeat_millis});
  silence_ms_ = std::max(config_.options.daemon_timeout, beats).count();
  transport_ = transport_of(shm_, config_.payload);
  up_ = true;
}

// -------------------------------------------------------------------------- the thread's turns

void DaemonSession::run() {
  while (true) {
    const Turn t = step();
    if (t == Turn::kStop) break;
    if (t == Turn::kWait) wait_until(next_try_);
  }
  if (link_) (void)link_->close(opened_.stream_id, config_.options.close_timeout);
}

// Sleeps until `t` or a wake-up (stop() ends it; a freed slot does too, and step() then waits
// again: wake-ups do not shorten the back-off).
void DaemonSession::wait_until(Clock::TimePoint t) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - clock_->now());
  pollfd p{wake_.fd(), POLLIN, 0};
  [[maybe_unused]] const int n =
      ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count() + 1)));
  wake_.drain();
}

DaemonSession::Turn DaemonSession::step() {
  if (stop_ || host_.stopping()) return Turn::kStop;
  if (!link_) return rejoin_turn();
  wake_.drain();  // before looking: a signal after this is seen by the next poll
  if (drop_asked_.exchange(false)) {
    lose("it held the batch the training waits for past the stall timeout, or a test asked");
    return Turn::kGoOn;
  }
  if (Status s = credit(); !s.ok()) {
    lose(s.message());
    return Turn::kGoOn;
  }
  return receive();
}

DaemonSession::Turn DaemonSession::rejoin_turn() {
  if (clock_->now() < next_try_) return Turn::kWait;
  if (reconnect()) {
    backoff_.reset();
    return Turn::kGoOn;
  }
  if (stop_) return Turn::kStop;  // out for good
  const Clock::TimePoint now = clock_->now();
  const std::chrono::milliseconds limit = config_.options.reconnect_timeout;
  if (now - lost_since_ >= limit && !host_.others_up(config_.id)) {
    std::string why = name() + " did not come back within " + duration_text(limit);
    if (!last_error_.ok()) why += " (last attempt: " + last_error_.message() + ")";
    out(Status::unavailable(why), /*keep_slots=*/false);
    return Turn::kStop;
  }
  next_try_ = now + backoff_.next();
  return Turn::kWait;
}

// True once the daemon is back; false while it is not (try again later), or when it came back
// with another dataset or spec (then it is out for good).
bool DaemonSession::reconnect() {
  const ClientOptions& o = config_.options;
  Result<Stream> s = open_stream(std::min(o.connect_timeout, o.reconnect_connect_timeout));
  if (!s.has_value()) {
    if (refuses_for_good(s.error().code())) {
      out(s.error().with_context(name()), /*keep_slots=*/false);
    } else {
      last_error_ = s.error();
    }
    return false;
  }
  if (const std::string why = host_.differs(s->layout); !why.empty()) {
    out(Status::invalid_argument(name() + " came back with " + why), /*keep_slots=*/false);
    return false;
  }
  if (s->shm) {
    // The same memory is handed over again: the daemon never names it, so nothing it did to the
    // old stream matters.
    if (Status a = s->link->attach(s->opened, host_.ring(), s->answer); !a.ok()) {
      last_error_ = a;
      return false;
    }
  }
  adopt(std::move(*s));
  drop_asked_ = false;  // a drop asked while it was lost concerned the old link
  host_.rejoined(config_.id);
  return true;
}

void DaemonSession::lose(const std::string& why) {
  const bool shm = shm_;
  link_.reset();  // closes the socket: nothing more of the stream reaches this process
  up_ = false;
  outstanding_.clear();
  payload_ticket_.reset();
  drop_asked_ = false;
  lost_since_ = next_try_ = clock_->now();  // the first attempt at once
  // A shared-memory daemon may still write into what it was given (a stopped one resumes): those
  // slots wait for its reconnect. A frames daemon's went nowhere but here.
  host_.lost(config_.id, why, shm);
}

void DaemonSession::out(const Status& status, bool keep_slots) {
  link_.reset();
  up_ = false;
  stop_ = true;
  host_.gave_up(config_.id, status, keep_slots);
}

Status DaemonSession::credit() {
  std::vector<Work> work = host_.take_work(config_.id, limit_);
  if (work.empty()) return Status();
  transport::Credit c;
  c.stream_id = opened_.stream_id;
  for (const Work& w : work) {
    if (shm_) c.slots.push_back(w.slot);
    c.batches.push_back(w.position);
    outstanding_.push_back(w);
  }
  if (!shm_) c.count = static_cast<uint32_t>(work.size());
  return link_->credit(c);
}

DaemonSession::Turn DaemonSession::receive() {
  payload_ticket_.reset();
  auto m = link_->poll(
      config_.options.poll_interval,
      [this](const transport::BatchHeader& h) { return payload_for(h); }, &wake_);
  if (!m.has_value()) {
    if (m.error().code() == Code::kCancelled) return Turn::kGoOn;  // woken
    if (m.error().code() == Code::kUnavailable) {
      lose(m.error().message());
      return Turn::kGoOn;
    }
    out(m.error().with_context(name()), shm_);
    return Turn::kStop;
  }
  if (!*m) return check_silence();
  if (auto* h = std::get_if<transport::BatchHeader>(&**m)) return on_batch(*h);
  if (const auto* e = std::get_if<transport::ErrorReply>(&**m)) return on_error(*e);
  return Turn::kGoOn;  // EndOfEpoch, Closed, MemoryAttached: nothing to do
}

// Nothing came: a daemon silent past its limit is taken for gone.
DaemonSession::Turn DaemonSession::check_silence() {
  const std::chrono::milliseconds limit = silence_limit();
  if (clock_->now() - link_->last_heard() > limit)
    lose("nothing heard for " + std::to_string(limit.count()) + " ms");
  return Turn::kGoOn;
}

DaemonSession::Turn DaemonSession::on_error(const transport::ErrorReply& e) {
  if (e.stream_id != 0 && e.stream_id != opened_.stream_id) return Turn::kGoOn;  // an old stream's
  // Not a batch's own failure: the daemon is going (unavailable), out of memory for the stream
  // (overloaded), or the error is about no stream.
  if (e.code == Code::kUnavailable || e.code == Code::kOverloaded || e.stream_id == 0 ||
      outstanding_.empty()) {
    lose(e.message);
    return Turn::kGoOn;
  }
  // A fill failed (on_bad_sample=fail): the batch it was for is the first outstanding. The daemon
  // ended the stream; a reconnect opens another.
  const Work w = outstanding_.front();
  outstanding_.pop_front();
  host_.failed(config_.id, w.ticket, Status(e.code, e.message));
  lose("its stream ended with the error of " + position_text(w.position.epoch, w.position.batch));
  return Turn::kGoOn;
}

// --------------------------------------------------------------------------------- the batches

DaemonSession::Turn DaemonSession::on_batch(transport::BatchHeader& h) {
  if (h.stream_id != opened_.stream_id) return Turn::kGoOn;  // of a stream closed meanwhile
  const Work w = outstanding_.empty() ? Work{} : outstanding_.front();
  std::string why = batch_differs(h, w);
  if (why.empty() && finisher_) {
    if (Status s = finisher_->expand(crops_.data(), h.compact, host_.ring().slot(w.slot)); !s.ok())
      why = "whose compact rows do not expand: " + s.message();
  }
  if (!why.empty()) {
    out(Status::corrupt(name() + " sent " + position_text(h.epoch, h.batch) + ", " + why), shm_);
    return Turn::kStop;
  }
  outstanding_.pop_front();
  h.compact = {};  // expanded into the slot: the feed's batch carries its rows there
  host_.finished(config_.id, w.ticket, FeedBatch{std::move(h), w.slot});
  return Turn::kGoOn;
}

// What is wrong with batch `h` as the answer to the first outstanding credit `w` ("" if nothing).
std::string DaemonSession::batch_differs(const transport::BatchHeader& h, const Work& w) const {
  if (outstanding_.empty()) return "which it was not given";
  if (w.position != Position{h.epoch, h.batch})
    return "where " + position_text(w.position.epoch, w.position.batch) + " was due";
  if (shm_ ? h.slot != w.slot : payload_ticket_ != w.ticket)
    return shm_ ? "into slot " + std::to_string(h.slot) + ", not the one it was given"
                : "without its payload";
  if (lacks_sample_meta(config_.spec, h)) return "without per-sample metadata";
  if (std::string why = tensors_differ(h); !why.empty()) return why;
  if (finisher_ && h.compact.size() != h.indices.size()) return "without its compact rows";
  return {};
}

// What a batch's header must say of its rows and tensors: 1..batch_size rows, and the feed's
// tensors with that many rows (or, compact, the crops of that many rows). "" when it does.
std::string DaemonSession::tensors_differ(const transport::BatchHeader& h) const {
  const FeedLayout& layout = host_.layout();
  const size_t rows = h.indices.size();
  if (rows == 0 || rows > static_cast<size_t>(layout.batch_size))
    return std::to_string(rows) + " rows for batches of " + std::to_string(layout.batch_size);
  std::vector<TensorDesc> want;
  if (finisher_) {
    want.push_back(compact_tensor(rows, finisher_->crop_size()));
  } else {
    for (const TensorDesc& t : layout.tensors) want.push_back(t.with_rows(rows));
  }
  if (h.tensors.size() != want.size())
    return "with " + std::to_string(h.tensors.size()) + " tensors, not " +
           std::to_string(want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const TensorDesc& a = h.tensors[i];
    const TensorDesc& b = want[i];
    if (a.name != b.name || a.dtype != b.dtype || a.shape != b.shape ||
        a.offset_bytes != b.offset_bytes || a.size_bytes != b.size_bytes)
      return "with tensor '" + a.name + "' unlike the stream's '" + b.name +
             "' (name, dtype, shape, offset or size)";
  }
  return {};
}

std::span<uint8_t> DaemonSession::payload_for(const transport::BatchHeader& h) {
  if (!link_ || h.stream_id != opened_.stream_id || outstanding_.empty()) return {};
  const Work& w = outstanding_.front();
  if (w.position != Position{h.epoch, h.batch}) return {};
  payload_ticket_ = w.ticket;
  if (finisher_) return {crops_.data(), crops_.size()};
  return {host_.ring().slot(w.slot), host_.layout().slot_bytes};
}

}  // namespace textfeed::client::internal
