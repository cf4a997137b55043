// RemoteFeed: the caller's side (next/release/seek under one mutex) and the I/O thread (class
// Io: credits, batches, heartbeats, seeks, reconnects) that owns the connection.
#include "client/remote_feed.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <random>

#include "base/log.h"
#include "client/detail/wake_fd.h"
#include "transport/shm.h"

namespace textfeed::client {

namespace {
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

using internal::drain_fd;
using internal::signal_fd;

}  // namespace

FeedLayout feed_layout(const transport::StreamOpened& o, const loader::ResumePoint& resume) {
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

// The I/O thread's side: it owns the connection and the slots' states. Each step of its loop is a
// method, and each reports whether the loop goes on.
class RemoteFeed::Io {
 public:
  Io(RemoteFeed& feed, std::unique_ptr<transport::Connection> conn, uint64_t stream_id)
      : feed_(feed),
        options_(feed.options_),
        conn_(std::move(conn)),
        stream_id_(stream_id),
        state_(feed.ring_->count(), SlotState::kFree),
        next_epoch_(feed.epoch_),  // the start, normalized by open()
        next_batch_(feed.batch_),
        // How long this thread waits for an answer (an open, an attach, a close) before it takes
        // the daemon for gone: its silence limit. The daemon answers these at once; a longer wait
        // only delays a reconnect, and a close() of this feed, which waits for this thread.
        answer_(options_.daemon_timeout),
        payload_for_([this](const transport::BatchHeader& h) { return payload_for(h); }) {}

  // The thread's body: until stop_, a fatal error or a reconnect that gave up.
  void run();

 private:
  enum class SlotState : unsigned char { kFree, kCredited, kOut };  // kOut: delivered to the caller
  enum class Step : unsigned char { kGoOn, kAgain, kStop };  // kAgain: back to the loop's top

  Step take_requests();
  Step grant_credits();
  Step receive();
  Step on_batch(transport::BatchHeader& h);
  Step on_error(const transport::ErrorReply& e);
  Step heartbeat();
  Status credit_free();
  Status open_stream();
  Status seek(uint64_t epoch, uint64_t batch);
  bool reconnect(const std::string& why);
  void forget_credits();
  void fail(const Status& s);
  bool stopping() const;
  void advance();
  std::span<uint8_t> payload_for(const transport::BatchHeader& h);

  RemoteFeed& feed_;
  const RemoteOptions& options_;  // the feed's
  std::unique_ptr<transport::Connection> conn_;
  uint64_t stream_id_ = 0;
  std::vector<SlotState> state_;
  std::deque<uint32_t> reserved_;  // frames: credited slots, in the order payloads fill them
  std::optional<uint32_t> payload_slot_;
  uint64_t next_epoch_ = 0, next_batch_ = 0;  // the next batch the daemon is to send
  const std::chrono::milliseconds answer_;
  const transport::Connection::PayloadFor payload_for_;
};

void RemoteFeed::Io::run() {
  if (Status s = credit_free(); !s.ok() && !reconnect(s.message())) return;
  while (true) {
    if (take_requests() == Step::kStop) break;
    const Step credits = grant_credits();
    if (credits == Step::kStop) break;
    if (credits == Step::kAgain) continue;
    if (receive() == Step::kStop) break;
  }
  if (conn_) (void)conn_->close(stream_id_, std::min<std::chrono::milliseconds>(answer_, 2s));
}

// What the caller asked for since the last look: slots given back, a seek, a reconnect.
RemoteFeed::Io::Step RemoteFeed::Io::take_requests() {
  std::vector<uint32_t> released;
  std::optional<std::pair<uint64_t, uint64_t>> seek_to;
  bool asked = false;
  drain_fd(feed_.wake_fd_);  // before looking: a signal after this is seen by the next poll
  {
    std::lock_guard<std::mutex> lock(feed_.mu_);
    if (feed_.stop_) return Step::kStop;
    released.swap(feed_.released_);
    seek_to.swap(feed_.seek_to_);
    std::swap(asked, feed_.reconnect_asked_);
  }
  if (asked && !reconnect("asked for testing")) return Step::kStop;
  for (uint32_t slot : released)
    if (slot < state_.size() && state_[slot] == SlotState::kOut) state_[slot] = SlotState::kFree;
  if (seek_to) {
    Status st = seek(seek_to->first, seek_to->second);
    std::lock_guard<std::mutex> lock(feed_.mu_);
    feed_.seek_status_ = st;
    feed_.seek_done_ = feed_.seek_requested_;
    feed_.cv_.notify_all();
    if (!feed_.error_.ok()) return Step::kStop;
  }
  return Step::kGoOn;
}

RemoteFeed::Io::Step RemoteFeed::Io::grant_credits() {
  const Status st = credit_free();
  if (st.ok()) return Step::kGoOn;
  return reconnect(st.message()) ? Step::kAgain : Step::kStop;
}

// Waits up to 200 ms for one message (or a wake-up from the caller) and handles it.
RemoteFeed::Io::Step RemoteFeed::Io::receive() {
  payload_slot_.reset();
  auto m = conn_->poll(200ms, payload_for_, feed_.wake_fd_);
  if (!m.has_value()) {
    if (m.error().code() == Code::kCancelled) return Step::kGoOn;  // woken by the caller
    if (m.error().code() == Code::kUnavailable) return reconnect(m.error().message()) ? Step::kGoOn : Step::kStop;
    fail(m.error());
    return Step::kStop;
  }
  if (!*m) return heartbeat();
  if (auto* h = std::get_if<transport::BatchHeader>(&**m)) return on_batch(*h);
  if (const auto* e = std::get_if<transport::ErrorReply>(&**m)) return on_error(*e);
  return Step::kGoOn;  // EndOfEpoch, Closed, MemoryAttached: nothing to do
}

// Nothing came: a daemon silent past its limit is taken for gone.
RemoteFeed::Io::Step RemoteFeed::Io::heartbeat() {
  const std::chrono::milliseconds silence = feed_.silence_limit(*conn_);
  if (Clock::now() - conn_->last_heard() > silence &&
      !reconnect("nothing heard for " + std::to_string(silence.count()) + " ms"))
    return Step::kStop;
  return Step::kGoOn;
}

RemoteFeed::Io::Step RemoteFeed::Io::on_batch(transport::BatchHeader& h) {
  if (h.stream_id != stream_id_) return Step::kGoOn;  // of a stream closed meanwhile: dropped
  uint32_t slot = 0;
  if (feed_.shm_) {
    slot = h.slot;
    if (slot >= state_.size() || state_[slot] != SlotState::kCredited) {
      fail(Status::corrupt("the daemon wrote batch " + std::to_string(h.batch) + " into slot " +
                           std::to_string(slot) + ", which it was not given"));
      return Step::kStop;
    }
  } else {
    if (!payload_slot_) {
      fail(Status::corrupt("the daemon sent batch " + std::to_string(h.batch) + " beyond its credits"));
      return Step::kStop;
    }
    slot = *payload_slot_;
  }
  if (h.epoch != next_epoch_ || h.batch != next_batch_) {
    fail(Status::corrupt("expected epoch " + std::to_string(next_epoch_) + " batch " + std::to_string(next_batch_) +
                         ", the daemon sent epoch " + std::to_string(h.epoch) + " batch " + std::to_string(h.batch)));
    return Step::kStop;
  }
  if (lacks_sample_meta(options_.request.spec, h)) {
    fail(Status::unimplemented("the daemon sent batch " + std::to_string(h.batch) +
                               " without per-sample metadata: it predates mode=eval and return_polygons"));
    return Step::kStop;
  }
  state_[slot] = SlotState::kOut;
  advance();
  FeedBatch b = feed_batch(h, slot);
  std::lock_guard<std::mutex> lock(feed_.mu_);
  if (feed_.in_flight_ > 0) --feed_.in_flight_;
  feed_.ready_.push_back(std::move(b));
  feed_.cv_.notify_all();
  return Step::kGoOn;
}

RemoteFeed::Io::Step RemoteFeed::Io::on_error(const transport::ErrorReply& e) {
  if (e.stream_id != 0 && e.stream_id != stream_id_) return Step::kGoOn;  // about a stream closed meanwhile
  if (e.code == Code::kUnavailable)  // shutting down, or restarted and does not know us
    return reconnect(e.message) ? Step::kGoOn : Step::kStop;
  fail(Status(e.code, e.message));
  return Step::kStop;
}

void RemoteFeed::Io::advance() {
  std::tie(next_epoch_, next_batch_) = feed_.layout_.epochs.after(next_epoch_, next_batch_);
}

std::span<uint8_t> RemoteFeed::Io::payload_for(const transport::BatchHeader& h) {
  if (h.stream_id != stream_id_ || reserved_.empty()) return {};
  payload_slot_ = reserved_.front();
  reserved_.pop_front();
  return {feed_.ring_->slot(*payload_slot_), feed_.layout_.slot_bytes};
}

void RemoteFeed::Io::fail(const Status& s) {
  TF_LOG(Error) << "textfeed: " << s.to_string();
  std::lock_guard<std::mutex> lock(feed_.mu_);
  feed_.error_ = s;
  feed_.cv_.notify_all();
}

void RemoteFeed::Io::forget_credits() {
  for (SlotState& s : state_)
    if (s == SlotState::kCredited) s = SlotState::kFree;
  reserved_.clear();
}

bool RemoteFeed::Io::stopping() const {
  std::lock_guard<std::mutex> lock(feed_.mu_);
  return feed_.stop_;
}

// Opens a stream at the next batch on conn_ and lends it the ring.
Status RemoteFeed::Io::open_stream() {
  transport::OpenStream request = options_.request;
  request.start = {next_epoch_, next_batch_};
  TF_ASSIGN_OR_RETURN(transport::StreamOpened opened, conn_->open(request, answer_));
  const FeedLayout& layout = feed_.layout_;
  if (opened.slot_bytes != layout.slot_bytes || opened.batches_per_epoch != layout.epochs.per_epoch ||
      opened.resumed_batches != layout.epochs.resumed_batches)
    return Status::invalid_argument("the daemon's batches changed shape since the stream was first opened");
  if (layout.dataset_fingerprint && opened.dataset_fingerprint != *layout.dataset_fingerprint)
    return Status::invalid_argument("the daemon's dataset '" + options_.request.spec.sources[0].path +
                                    "' is not the one this stream was first opened on (it restarted with another?)");
  stream_id_ = opened.stream_id;
  if (feed_.shm_) {
    // A reconnect (after a stall the daemon took for a death, or a restart) hands the same memory
    // over again: the daemon never names it, so nothing it did to the old stream matters.
    if (conn_->hello().memory_socket.empty())
      return Status::invalid_argument("the daemon at " + options_.endpoint + " no longer offers shared memory");
    const SlotRing& ring = *feed_.ring_;
    TF_RETURN_IF_ERROR(conn_->attach(opened, ring.memory_fd(), ring.count(), ring.stride(), answer_));
  }
  return Status();
}

// Reconnects and reopens at the first batch not delivered. Returns false when it gave up.
bool RemoteFeed::Io::reconnect(const std::string& why) {
  TF_LOG(Warning) << "textfeed: lost the daemon at " << options_.endpoint << " (" << why << "); reconnecting to "
                  << "resume at epoch " << next_epoch_ << " batch " << next_batch_;
  conn_.reset();
  forget_credits();
  const Clock::time_point deadline = Clock::now() + options_.reconnect_timeout;
  transport::ConnectOptions quick = options_.connect;
  quick.timeout = std::min<std::chrono::milliseconds>(quick.timeout, 5000ms);
  while (Clock::now() < deadline && !stopping()) {
    auto c = transport::Connection::connect(options_.endpoint, options_.client_name, quick);
    if (c.has_value()) {
      conn_ = std::move(*c);
      Status s = open_stream();
      if (s.ok()) {
        TF_LOG(Info) << "textfeed: reconnected to " << options_.endpoint;
        std::lock_guard<std::mutex> lock(feed_.mu_);
        ++feed_.reconnects_;
        return true;
      }
      conn_.reset();
      if (s.code() != Code::kUnavailable) {
        fail(s.with_context("reopening the stream after a reconnect"));
        return false;
      }
    }
    std::this_thread::sleep_for(200ms);
  }
  if (!stopping())
    fail(Status::unavailable("the daemon at " + options_.endpoint + " did not come back within " +
                             std::to_string(options_.reconnect_timeout.count() / 1000) + " s"));
  return false;
}

// Credits free slots up to the in-flight bound.
Status RemoteFeed::Io::credit_free() {
  uint32_t credited = 0;
  for (SlotState s : state_) credited += s == SlotState::kCredited;
  // A rank with no sample (eval, more ranks than images) asks for nothing: the stream is open and
  // empty, and a credit would only have the daemon fail a fill of a batch that does not exist.
  if (feed_.layout_.epochs.per_epoch == 0) return Status();
  std::vector<uint32_t> give;
  for (uint32_t i = 0; i < state_.size() && credited + give.size() < feed_.max_in_flight_; ++i)
    if (state_[i] == SlotState::kFree) give.push_back(i);
  if (give.empty()) return Status();
  for (uint32_t i : give) state_[i] = SlotState::kCredited;
  {
    std::lock_guard<std::mutex> lock(feed_.mu_);
    feed_.in_flight_ = credited + static_cast<uint32_t>(give.size());
  }
  if (feed_.shm_) return conn_->credit_slots(stream_id_, give);
  reserved_.insert(reserved_.end(), give.begin(), give.end());
  return conn_->credit(stream_id_, static_cast<uint32_t>(give.size()));
}

// Closes the stream (its batches in flight and ready are dropped) and reopens it at `batch`.
Status RemoteFeed::Io::seek(uint64_t epoch, uint64_t batch) {
  TF_RETURN_IF_ERROR(feed_.layout_.epochs.check(epoch, batch));
  std::tie(epoch, batch) = feed_.layout_.epochs.normalize(epoch, batch);
  if (conn_) (void)conn_->close(stream_id_, answer_);
  forget_credits();
  {
    std::lock_guard<std::mutex> lock(feed_.mu_);
    for (const FeedBatch& b : feed_.ready_) state_[b.slot] = SlotState::kFree;
    feed_.ready_.clear();
  }
  next_epoch_ = epoch;
  next_batch_ = batch;
  Status s = conn_ ? open_stream() : Status::unavailable("no connection");
  if (s.code() == Code::kUnavailable) return reconnect(s.message()) ? Status() : s;
  return s;
}

Result<std::unique_ptr<RemoteFeed>> RemoteFeed::open(const RemoteOptions& options) {
  if (options.prefetch == 0 || options.prefetch > kMaxPrefetch)
    return Status::invalid_argument("prefetch " + std::to_string(options.prefetch) + " is not in 1.." +
                                    std::to_string(kMaxPrefetch));
  std::unique_ptr<RemoteFeed> f(new RemoteFeed());
  f->options_ = options;
  f->epoch_ = options.request.start.epoch;
  f->batch_ = options.request.start.batch;
  // One session for every connection this feed makes: a reconnect to a daemon that is still alive
  // ends the earlier connection's streams before they could write into slots lent again.
  if (f->options_.connect.session == 0) {
    std::random_device rd;
    f->options_.connect.session = (uint64_t{rd()} << 32 | rd()) | 1;
  }
  TF_ASSIGN_OR_RETURN(std::unique_ptr<transport::Connection> conn,
                      transport::Connection::connect(options.endpoint, options.client_name, f->options_.connect));
  // Shared memory where the daemon offers it (its ipc endpoint, which only processes of this host
  // reach); "auto" takes frames elsewhere, "shm" insists.
  const bool offered = !conn->hello().memory_socket.empty();
  if (options.transport == transport::Transport::kSharedMemory && !offered)
    return Status::invalid_argument("transport 'shm': the daemon at " + options.endpoint +
                                    " offers no shared memory (only its ipc:// endpoint does); use 'frames' or 'auto'");
  f->shm_ = options.transport != transport::Transport::kFrames && offered;
  f->options_.request.transport = f->shm_ ? transport::Transport::kSharedMemory : transport::Transport::kFrames;
  // Each answer is awaited as long as the first one (the caller's `timeout`), not a minute.
  const std::chrono::milliseconds answer = f->options_.connect.timeout;
  f->silence_limit(*conn);
  TF_ASSIGN_OR_RETURN(transport::StreamOpened opened, conn->open(f->options_.request, answer));
  f->layout_ = feed_layout(opened, options.request.spec.sampler.resume);
  // The daemon starts at the first batch there is from the position asked (a resumed epoch may have none).
  std::tie(f->epoch_, f->batch_) = f->layout_.epochs.normalize(f->epoch_, f->batch_);
  f->max_in_flight_ = options.prefetch;
  if (!f->shm_ && opened.max_credits > 0) f->max_in_flight_ = std::min(options.prefetch, opened.max_credits);
  const uint32_t slots = options.prefetch + options.held_slots;
  TF_ASSIGN_OR_RETURN(f->ring_, f->shm_ ? SlotRing::shared(slots, f->layout_.slot_bytes)
                                        : SlotRing::anonymous(slots, f->layout_.slot_bytes));
  if (f->shm_)
    TF_RETURN_IF_ERROR(
        conn->attach(opened, f->ring_->memory_fd(), f->ring_->count(), f->ring_->stride(), answer));
  f->wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (f->wake_fd_ < 0) return Status::from_errno("eventfd", errno);
  // The connection moves to the I/O thread; starting a thread is the fence ZeroMQ asks for.
  f->thread_ = std::thread(&RemoteFeed::run, f.get(), std::make_unique<Io>(*f, std::move(conn), opened.stream_id));
  return f;
}

RemoteFeed::~RemoteFeed() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  if (thread_.joinable()) {
    signal_fd(wake_fd_);
    thread_.join();
  }
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void RemoteFeed::run(std::unique_ptr<Io> io) { io->run(); }

void RemoteFeed::reconnect_for_testing() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    reconnect_asked_ = true;
  }
  signal_fd(wake_fd_);
}

std::chrono::milliseconds silence_limit(std::chrono::milliseconds daemon_timeout,
                                        const transport::Connection& conn) {
  // A daemon quiet for less than three of its own heartbeats is alive: waiting less would take it
  // for gone between two of them, and reconnect for ever.
  const auto beats = std::chrono::milliseconds(3 * int64_t{conn.hello().server_heartbeat_millis});
  return std::max(daemon_timeout, beats);
}

bool lacks_sample_meta(const loader::PipelineSpec& spec, const transport::BatchHeader& h) {
  return (spec.mode == loader::Mode::kEval || spec.return_polygons) && h.samples.size() != h.indices.size();
}

std::chrono::milliseconds RemoteFeed::silence_limit(const transport::Connection& conn) {
  const std::chrono::milliseconds limit = client::silence_limit(options_.daemon_timeout, conn);
  std::lock_guard<std::mutex> lock(mu_);
  silence_ms_ = limit;
  return limit;
}

void RemoteFeed::cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = Status::cancelled("this feed was closed");
    stop_ = true;
    cv_.notify_all();
  }
  signal_fd(wake_fd_);
}

Result<std::optional<FeedBatch>> RemoteFeed::take_batch(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (error_.code() == Code::kCancelled) return error_;
  if (layout_.epochs.per_epoch == 0)
    return empty_rank_error();
  if (ready_.empty() && error_.ok() && held_ >= ring_->count())
    return Status::overloaded("all " + std::to_string(ring_->count()) +
                              " batch slots are held by earlier batches: drop (or copy) their tensors");
  const auto t0 = Clock::now();
  cv_.wait_for(lock, timeout, [&] { return !ready_.empty() || !error_.ok(); });
  wait_seconds_ += std::chrono::duration<double>(Clock::now() - t0).count();
  if (ready_.empty()) {
    if (!error_.ok()) return error_;
    return std::optional<FeedBatch>();
  }
  FeedBatch b = std::move(ready_.front());
  ready_.pop_front();
  ++held_;
  ++batches_;
  samples_ += b.indices.size();
  skipped_ += b.errors.size();
  advance_past(b.epoch, b.batch);
  return std::optional<FeedBatch>(std::move(b));
}

void RemoteFeed::release_slot(uint32_t slot) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    released_.push_back(slot);
    if (held_ > 0) --held_;
  }
  signal_fd(wake_fd_);
}

Status RemoteFeed::seek(uint64_t epoch, uint64_t batch) { return seek(epoch, batch, nullptr); }

Status RemoteFeed::seek(uint64_t epoch, uint64_t batch, const std::function<bool()>& interrupted) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!error_.ok()) return error_;
  // What is in flight is what comes next (unless an abandoned seek moved the stream elsewhere).
  if (epoch == epoch_ && batch == batch_ && !seek_abandoned_) return Status();
  seek_to_ = {epoch, batch};
  const uint64_t ticket = ++seek_requested_;
  signal_fd(wake_fd_);
  // The I/O thread always answers: the reopened stream, or an error (after its own timeouts, which
  // a reconnect makes as long as reconnect_timeout: hence `interrupted`).
  const auto answered = [&] { return seek_done_ >= ticket || !error_.ok(); };
  while (!cv_.wait_for(lock, 100ms, answered)) {
    if (!interrupted) continue;
    lock.unlock();
    const bool stop = interrupted();
    lock.lock();
    if (stop && !answered()) {
      seek_abandoned_ = true;
      return Status::cancelled("interrupted while the feed moved to epoch " + std::to_string(epoch) + " batch " +
                               std::to_string(batch));
    }
  }
  if (seek_done_ < ticket) return error_;
  if (seek_status_.ok()) {
    epoch_ = epoch;
    batch_ = batch;
    seek_abandoned_ = false;
  }
  return seek_status_;
}

FeedStats RemoteFeed::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  FeedStats s;
  s.batches = batches_;
  s.samples = samples_;
  s.skipped_samples = skipped_;
  s.wait_seconds = wait_seconds_;
  s.elapsed_seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  s.in_flight = in_flight_ + static_cast<uint32_t>(ready_.size());
  s.held_slots = held_;
  s.reconnects = reconnects_;
  s.daemon_timeout_seconds = std::chrono::duration<double>(silence_ms_).count();
  s.transport = transport::transport_name(shm_ ? transport::Transport::kSharedMemory : transport::Transport::kFrames);
  return s;
}

}  // namespace textfeed::client
