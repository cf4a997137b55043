// RemoteFeed: the caller's side (next/release/seek under one mutex) and the I/O thread (credits,
// batches, reconnects) that owns the connection.
#include "client/remote_feed.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <random>

#include "base/log.h"
#include "transport/shm.h"

namespace textfeed::client {

namespace {
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

void signal_fd(int fd) {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(fd, &one, sizeof(one));
}

void drain_fd(int fd) {
  uint64_t v;
  [[maybe_unused]] const ssize_t n = ::read(fd, &v, sizeof(v));
}

FeedLayout layout_of(const transport::StreamOpened& o) {
  FeedLayout f;
  f.tensors = o.tensors;
  f.slot_bytes = o.slot_bytes;
  f.batches_per_epoch = o.batches_per_epoch;
  f.dataset_size = o.dataset_size;
  f.batch_size = o.tensors.empty() ? 0 : static_cast<int>(o.tensors[0].shape[0]);
  if (o.dataset_fingerprint != 0) f.dataset_fingerprint = o.dataset_fingerprint;
  return f;
}
}  // namespace

struct RemoteFeed::Io {
  enum class SlotState : unsigned char { kFree, kCredited, kOut };  // kOut: delivered to the caller
  std::unique_ptr<transport::Connection> conn;
  uint64_t stream_id = 0;
  std::vector<SlotState> state;
  std::deque<uint32_t> reserved;  // frames: credited slots, in the order payloads fill them
  std::optional<uint32_t> payload_slot;
  uint64_t epoch = 0, batch = 0;  // the next batch the daemon is to send
};

Result<std::unique_ptr<RemoteFeed>> RemoteFeed::open(const RemoteOptions& options) {
  if (options.prefetch == 0 || options.prefetch > 64)
    return Status::invalid_argument("prefetch " + std::to_string(options.prefetch) + " is not in 1..64");
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
  auto io = std::make_unique<Io>();
  io->epoch = options.request.start.epoch;
  io->batch = options.request.start.batch;
  TF_ASSIGN_OR_RETURN(io->conn,
                      transport::Connection::connect(options.endpoint, options.client_name, f->options_.connect));
  // Shared memory where the daemon offers it (its ipc endpoint, which only processes of this host
  // reach); "auto" takes frames elsewhere, "shm" insists.
  const bool offered = !io->conn->hello().memory_socket.empty();
  if (options.transport == transport::Transport::kSharedMemory && !offered)
    return Status::invalid_argument("transport 'shm': the daemon at " + options.endpoint +
                                    " offers no shared memory (only its ipc:// endpoint does); use 'frames' or 'auto'");
  f->shm_ = options.transport != transport::Transport::kFrames && offered;
  f->options_.request.transport = f->shm_ ? transport::Transport::kSharedMemory : transport::Transport::kFrames;
  // Each answer is awaited as long as the first one (the caller's `timeout`), not a minute.
  const std::chrono::milliseconds answer = f->options_.connect.timeout;
  f->silence_limit(*io->conn);
  TF_ASSIGN_OR_RETURN(transport::StreamOpened opened, io->conn->open(f->options_.request, answer));
  io->stream_id = opened.stream_id;
  f->layout_ = layout_of(opened);
  f->max_in_flight_ = options.prefetch;
  if (!f->shm_ && opened.max_credits > 0) f->max_in_flight_ = std::min(options.prefetch, opened.max_credits);
  const uint32_t slots = options.prefetch + options.held_slots;
  TF_ASSIGN_OR_RETURN(f->ring_, f->shm_ ? SlotRing::shared(slots, f->layout_.slot_bytes)
                                        : SlotRing::anonymous(slots, f->layout_.slot_bytes));
  if (f->shm_)
    TF_RETURN_IF_ERROR(
        io->conn->attach(opened, f->ring_->memory_fd(), f->ring_->count(), f->ring_->stride(), answer));
  io->state.assign(f->ring_->count(), Io::SlotState::kFree);
  f->wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (f->wake_fd_ < 0) return Status::from_errno("eventfd", errno);
  // The connection moves to the I/O thread; starting a thread is the fence ZeroMQ asks for.
  f->thread_ = std::thread(&RemoteFeed::run, f.get(), std::move(io));
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

void RemoteFeed::run(std::unique_ptr<Io> owned) {
  Io& io = *owned;
  // How long the I/O thread waits for an answer (an open, an attach, a close) before it takes the
  // daemon for gone: its silence limit. The daemon answers these at once; a longer wait only
  // delays a reconnect, and a close() of this feed, which waits for this thread.
  const std::chrono::milliseconds answer = options_.daemon_timeout;
  const transport::Connection::PayloadFor payload_for = [&](const transport::BatchHeader& h) {
    if (h.stream_id != io.stream_id || io.reserved.empty()) return std::span<uint8_t>();
    io.payload_slot = io.reserved.front();
    io.reserved.pop_front();
    return std::span<uint8_t>(ring_->slot(*io.payload_slot), layout_.slot_bytes);
  };
  auto fail = [&](const Status& s) {
    TF_LOG(Error) << "textfeed: " << s.to_string();
    std::lock_guard<std::mutex> lock(mu_);
    error_ = s;
    cv_.notify_all();
  };
  auto forget_credits = [&] {
    for (Io::SlotState& s : io.state)
      if (s == Io::SlotState::kCredited) s = Io::SlotState::kFree;
    io.reserved.clear();
  };
  // Opens a stream at io's position on io.conn and lends it the ring.
  auto open_stream = [&]() -> Status {
    transport::OpenStream request = options_.request;
    request.start = {io.epoch, io.batch};
    TF_ASSIGN_OR_RETURN(transport::StreamOpened opened, io.conn->open(request, answer));
    if (opened.slot_bytes != layout_.slot_bytes || opened.batches_per_epoch != layout_.batches_per_epoch)
      return Status::invalid_argument("the daemon's batches changed shape since the stream was first opened");
    if (layout_.dataset_fingerprint && opened.dataset_fingerprint != *layout_.dataset_fingerprint)
      return Status::invalid_argument("the daemon's dataset '" + options_.request.spec.sources[0].path +
                                      "' is not the one this stream was first opened on (it restarted with another?)");
    io.stream_id = opened.stream_id;
    if (shm_) {
      // A reconnect (after a stall the daemon took for a death, or a restart) hands the same memory
      // over again: the daemon never names it, so nothing it did to the old stream matters.
      if (io.conn->hello().memory_socket.empty())
        return Status::invalid_argument("the daemon at " + options_.endpoint + " no longer offers shared memory");
      TF_RETURN_IF_ERROR(io.conn->attach(opened, ring_->memory_fd(), ring_->count(), ring_->stride(), answer));
    }
    return Status();
  };
  auto stopping = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    return stop_;
  };
  // Reconnects and reopens at the first batch not delivered. Returns false when it gave up.
  auto reconnect = [&](const std::string& why) -> bool {
    TF_LOG(Warning) << "textfeed: lost the daemon at " << options_.endpoint << " (" << why << "); reconnecting to "
                    << "resume at epoch " << io.epoch << " batch " << io.batch;
    io.conn.reset();
    forget_credits();
    const Clock::time_point deadline = Clock::now() + options_.reconnect_timeout;
    transport::ConnectOptions quick = options_.connect;
    quick.timeout = std::min<std::chrono::milliseconds>(quick.timeout, 5000ms);
    while (Clock::now() < deadline && !stopping()) {
      auto c = transport::Connection::connect(options_.endpoint, options_.client_name, quick);
      if (c.has_value()) {
        io.conn = std::move(*c);
        Status s = open_stream();
        if (s.ok()) {
          TF_LOG(Info) << "textfeed: reconnected to " << options_.endpoint;
          std::lock_guard<std::mutex> lock(mu_);
          ++reconnects_;
          return true;
        }
        io.conn.reset();
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
  };
  auto credit_free = [&]() -> Status {
    uint32_t credited = 0;
    for (Io::SlotState s : io.state) credited += s == Io::SlotState::kCredited;
    std::vector<uint32_t> give;
    for (uint32_t i = 0; i < io.state.size() && credited + give.size() < max_in_flight_; ++i)
      if (io.state[i] == Io::SlotState::kFree) give.push_back(i);
    if (give.empty()) return Status();
    for (uint32_t i : give) io.state[i] = Io::SlotState::kCredited;
    {
      std::lock_guard<std::mutex> lock(mu_);
      in_flight_ = credited + static_cast<uint32_t>(give.size());
    }
    if (shm_) return io.conn->credit_slots(io.stream_id, give);
    io.reserved.insert(io.reserved.end(), give.begin(), give.end());
    return io.conn->credit(io.stream_id, static_cast<uint32_t>(give.size()));
  };
  auto do_seek = [&](uint64_t epoch, uint64_t batch) -> Status {
    if (batch >= layout_.batches_per_epoch)
      return Status::invalid_argument("batch " + std::to_string(batch) + " of an epoch of " +
                                      std::to_string(layout_.batches_per_epoch) + " batches");
    if (io.conn) (void)io.conn->close(io.stream_id, answer);  // its batches in flight are dropped
    forget_credits();
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const FeedBatch& b : ready_) io.state[b.slot] = Io::SlotState::kFree;
      ready_.clear();
    }
    io.epoch = epoch;
    io.batch = batch;
    Status s = io.conn ? open_stream() : Status::unavailable("no connection");
    if (s.code() == Code::kUnavailable) return reconnect(s.message()) ? Status() : s;
    return s;
  };

  Status s = credit_free();
  if (!s.ok() && !reconnect(s.message())) return;
  while (true) {
    std::vector<uint32_t> released;
    std::optional<std::pair<uint64_t, uint64_t>> seek;
    bool asked = false;
    drain_fd(wake_fd_);  // before looking: a signal after this is seen by the next poll
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) break;
      released.swap(released_);
      seek.swap(seek_to_);
      std::swap(asked, reconnect_asked_);
    }
    if (asked && !reconnect("asked for testing")) break;
    for (uint32_t slot : released)
      if (slot < io.state.size() && io.state[slot] == Io::SlotState::kOut) io.state[slot] = Io::SlotState::kFree;
    if (seek) {
      Status st = do_seek(seek->first, seek->second);
      std::lock_guard<std::mutex> lock(mu_);
      seek_status_ = st;
      seek_done_ = seek_requested_;
      cv_.notify_all();
      if (!error_.ok()) break;
    }
    if (Status st = credit_free(); !st.ok()) {
      if (!reconnect(st.message())) break;
      continue;
    }
    io.payload_slot.reset();
    auto m = io.conn->poll(200ms, payload_for, wake_fd_);
    if (!m.has_value()) {
      if (m.error().code() == Code::kCancelled) continue;
      if (m.error().code() == Code::kUnavailable) {
        if (!reconnect(m.error().message())) break;
        continue;
      }
      fail(m.error());
      break;
    }
    if (!*m) {
      const std::chrono::milliseconds silence = silence_limit(*io.conn);
      if (Clock::now() - io.conn->last_heard() > silence &&
          !reconnect("nothing heard for " + std::to_string(silence.count()) + " ms"))
        break;
      continue;
    }
    if (auto* h = std::get_if<transport::BatchHeader>(&**m)) {
      if (h->stream_id != io.stream_id) continue;  // of a stream closed meanwhile: dropped
      uint32_t slot = 0;
      if (shm_) {
        slot = h->slot;
        if (slot >= io.state.size() || io.state[slot] != Io::SlotState::kCredited) {
          fail(Status::corrupt("the daemon wrote batch " + std::to_string(h->batch) + " into slot " +
                               std::to_string(slot) + ", which it was not given"));
          break;
        }
      } else {
        if (!io.payload_slot) {
          fail(Status::corrupt("the daemon sent batch " + std::to_string(h->batch) + " beyond its credits"));
          break;
        }
        slot = *io.payload_slot;
      }
      if (h->epoch != io.epoch || h->batch != io.batch) {
        fail(Status::corrupt("expected epoch " + std::to_string(io.epoch) + " batch " + std::to_string(io.batch) +
                             ", the daemon sent epoch " + std::to_string(h->epoch) + " batch " +
                             std::to_string(h->batch)));
        break;
      }
      io.state[slot] = Io::SlotState::kOut;
      if (++io.batch == layout_.batches_per_epoch) {
        io.batch = 0;
        ++io.epoch;
      }
      FeedBatch b;
      b.slot = slot;
      b.epoch = h->epoch;
      b.batch = h->batch;
      b.indices = std::move(h->indices);
      b.errors = std::move(h->errors);
      std::lock_guard<std::mutex> lock(mu_);
      if (in_flight_ > 0) --in_flight_;
      ready_.push_back(std::move(b));
      cv_.notify_all();
      continue;
    }
    if (const auto* e = std::get_if<transport::ErrorReply>(&**m)) {
      if (e->stream_id != 0 && e->stream_id != io.stream_id) continue;  // about a stream closed meanwhile
      if (e->code == Code::kUnavailable) {
        if (!reconnect(e->message)) break;  // shutting down, or restarted and does not know us
        continue;
      }
      fail(Status(e->code, e->message));
      break;
    }
    // EndOfEpoch, Closed, MemoryAttached: nothing to do.
  }
  if (io.conn) (void)io.conn->close(io.stream_id, std::min<std::chrono::milliseconds>(answer, 2s));
}

void RemoteFeed::reconnect_for_testing() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    reconnect_asked_ = true;
  }
  signal_fd(wake_fd_);
}

std::chrono::milliseconds RemoteFeed::silence_limit(const transport::Connection& conn) {
  // A daemon quiet for less than three of its own heartbeats is alive: waiting less would take it
  // for gone between two of them, and reconnect for ever.
  const auto beats = std::chrono::milliseconds(3 * int64_t{conn.hello().server_heartbeat_millis});
  const std::chrono::milliseconds limit = std::max(options_.daemon_timeout, beats);
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

Result<std::optional<FeedBatch>> RemoteFeed::next(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (error_.code() == Code::kCancelled) return error_;
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

void RemoteFeed::release(uint32_t slot) {
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
