// MultiFeed's producers: a daemon's thread (credits naming batches, batches checked against what
// was credited, silence, loss, reconnects with a backoff) and the local threads' (a BatchStream
// filling the batches the feed names).
#include "client/detail/multi_producers.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <random>

#include "base/log.h"
#include "client/detail/wake_fd.h"
#include "client/embedded_feed.h"
#include "client/remote_feed.h"

namespace textfeed::client::internal {

namespace {
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

using internal::drain_fd;
using internal::signal_fd;

std::string position_text(uint64_t epoch, uint64_t batch) {
  return "epoch " + std::to_string(epoch) + " batch " + std::to_string(batch);
}
}  // namespace

// ------------------------------------------------------------------------------------ DaemonLink

Result<std::unique_ptr<DaemonLink>> DaemonLink::connect(const MultiFeed& feed,
                                                        const DaemonProducer& daemon,
                                                        std::chrono::milliseconds timeout) {
  const MultiOptions& o = feed.options();
  transport::ConnectOptions c = daemon.connect;
  c.timeout = timeout;
  std::unique_ptr<DaemonLink> link(new DaemonLink());
  link->answer_ = std::max(timeout, std::chrono::milliseconds(o.daemon_timeout));
  TF_ASSIGN_OR_RETURN(link->conn_,
                      transport::Connection::connect(daemon.endpoint, o.client_name, c));
  const bool offered = !link->conn_->hello().memory_socket.empty();
  if (daemon.transport == transport::Transport::kSharedMemory && !offered)
    return Status::invalid_argument("transport 'shm': the daemon at " + daemon.endpoint +
                                    " offers no shared memory (only its ipc:// endpoint does)");
  const bool compact = o.payload == transport::Payload::kCompact;
  link->shm_ = daemon.transport != transport::Transport::kFrames && offered && !compact;
  transport::OpenStream request;
  request.payload = o.payload;
  request.spec = o.spec;
  request.start = {o.epoch, o.batch};
  request.transport =
      link->shm_ ? transport::Transport::kSharedMemory : transport::Transport::kFrames;
  request.assigned = true;
  TF_ASSIGN_OR_RETURN(link->opened_, link->conn_->open(request, link->answer_));
  if (!link->opened_.assigned)
    return Status::invalid_argument(
        "the daemon at " + daemon.endpoint +
        " predates assigned streams: a rank fed by several daemons needs a newer one");
  link->layout_ = feed_layout(link->opened_, o.spec.sampler.resume);
  if (compact && link->opened_.compact_bytes == 0)
    return Status::invalid_argument("the daemon at " + daemon.endpoint +
                                    " predates the compact payload");
  return link;
}

Status DaemonLink::attach(const SlotRing& ring) {
  if (!shm_) return Status();
  return conn_->attach(opened_, ring.memory_fd(), ring.count(), ring.stride(), answer_);
}

// -------------------------------------------------------------------------------- RemoteProducer

RemoteProducer::RemoteProducer(MultiFeed& feed, size_t id, DaemonProducer daemon,
                               std::unique_ptr<DaemonLink> link)
    : feed_(feed), id_(id), daemon_(std::move(daemon)), link_(std::move(link)) {
  shm_ = link_ && link_->shared_memory();
  if (link_) limit_ = link_->credit_limit(feed_.options().prefetch);
  if (feed_.options().payload == transport::Payload::kCompact) {
    // The spec passed compact_supported() in MultiFeed::open; its layout is the feed's.
    if (auto e = loader::CompactExpander::create(feed_.options().spec); e.has_value()) {
      expander_ = std::move(*e);
      crops_.resize(loader::compact_row_bytes(expander_->layout().crop_size) *
                    static_cast<size_t>(expander_->layout().batch_size));
    }
  }
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

RemoteProducer::~RemoteProducer() {
  stop();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void RemoteProducer::start() { thread_ = std::thread(&RemoteProducer::run, this); }

void RemoteProducer::wake() {
  if (wake_fd_ >= 0) signal_fd(wake_fd_);
}

void RemoteProducer::stop() {
  stop_ = true;
  wake();
  if (thread_.joinable()) thread_.join();
}

void RemoteProducer::drop() {
  drop_asked_ = true;
  wake();
}

void RemoteProducer::sleep_or_wake(std::chrono::milliseconds d) {
  pollfd p{wake_fd_, POLLIN, 0};
  [[maybe_unused]] const int n = ::poll(&p, 1, static_cast<int>(d.count()));
  drain_fd(wake_fd_);
}

void RemoteProducer::run() {
  // The wait for a lost daemon: 200 ms, doubling to 5 s, each jittered by up to +-25 %, so that
  // the ranks of a job do not knock on a restarted daemon all at once. Wake-ups (a slot freed)
  // do not shorten it.
  std::mt19937_64 jitter(std::random_device{}() ^ id_);
  std::chrono::milliseconds backoff = 200ms;
  Clock::time_point next_try = Clock::now();
  while (!stop_ && !feed_.stopping()) {
    if (!link_) {
      if (const Clock::time_point now = Clock::now(); now < next_try) {
        sleep_or_wake(std::chrono::duration_cast<std::chrono::milliseconds>(next_try - now) + 1ms);
        continue;
      }
      if (reconnect()) {
        backoff = 200ms;
        continue;
      }
      const double f = std::uniform_real_distribution<double>(0.75, 1.25)(jitter);
      next_try = Clock::now() + std::chrono::milliseconds(
                                    static_cast<int64_t>(static_cast<double>(backoff.count()) * f));
      backoff = std::min<std::chrono::milliseconds>(backoff * 2, 5000ms);
      continue;
    }
    drain_fd(wake_fd_);
    if (drop_asked_.exchange(false)) {
      lose("it held the batch the training waits for past the stall timeout, or a test asked");
      continue;
    }
    if (Status s = credit(); !s.ok()) {
      lose(s.message());
      continue;
    }
    if (!receive()) break;
  }
  if (link_) (void)link_->connection().close(link_->stream_id(), 2s);
}

// Reconnects (the same session: a live daemon ends the old connection's streams, and their fills,
// before it answers) and reopens. True once the daemon is back; false while it is not (try again
// later), or when it came back with another dataset or spec (then it is out for good).
// A compact stream's crops fill exactly this producer's buffer (the daemon's layout is the feed's).
bool RemoteProducer::compact_fits(const DaemonLink& link) const {
  return !expander_ || link.compact_bytes() == crops_.size();
}

bool RemoteProducer::reconnect() {
  const std::chrono::milliseconds timeout =
      std::min<std::chrono::milliseconds>(daemon_.connect.timeout, 2000ms);
  auto link = DaemonLink::connect(feed_, daemon_, timeout);
  if (!link.has_value()) {
    // A daemon that disagrees (another protocol, no such dataset, a spec it refuses) is out for
    // good; anything else (not there yet, too many clients, shutting down) is tried again later.
    const Code code = link.error().code();
    if (code == Code::kInvalidArgument || code == Code::kUnimplemented || code == Code::kNotFound) {
      feed_.gave_up(id_, link.error().with_context(name()), /*keep_slots=*/false);
      stop_ = true;
    }
    return false;
  }
  if (const std::string why = feed_.differs((*link)->layout());
      !why.empty() || !compact_fits(**link)) {
    feed_.gave_up(id_,
                  Status::invalid_argument(
                      name() + " came back with " +
                      (why.empty() ? std::string("compact batches of another size") : why)),
                  /*keep_slots=*/false);
    stop_ = true;
    return false;
  }
  if (Status s = (*link)->attach(feed_.ring()); !s.ok()) return false;
  link_ = std::move(*link);
  shm_ = link_->shared_memory();
  limit_ = link_->credit_limit(feed_.options().prefetch);
  drop_asked_ = false;  // a drop asked while it was lost concerned the old link
  feed_.rejoined(id_);
  return true;
}

void RemoteProducer::lose(const std::string& why) {
  const bool shm = link_ && link_->shared_memory();
  link_.reset();  // closes the socket: nothing more of the stream reaches this process
  outstanding_.clear();
  payload_ticket_.reset();
  drop_asked_ = false;
  // A shared-memory daemon may still write into what it was given (a stopped one resumes): those
  // slots wait for its reconnect. A frames daemon's went nowhere but here.
  feed_.lost(id_, why, shm);
}

Status RemoteProducer::credit() {
  std::vector<MultiFeed::Work> work = feed_.take_work(id_, limit_);
  if (work.empty()) return Status();
  transport::Credit c;
  c.stream_id = link_->stream_id();
  for (const MultiFeed::Work& w : work) {
    if (link_->shared_memory()) c.slots.push_back(w.slot);
    c.batches.push_back(w.position);
    outstanding_.push_back(w);
  }
  if (!link_->shared_memory()) c.count = static_cast<uint32_t>(work.size());
  return link_->connection().credit(c);
}

bool RemoteProducer::receive() {
  payload_ticket_.reset();
  auto m = link_->connection().poll(
      200ms, [this](const transport::BatchHeader& h) { return payload_for(h); }, wake_fd_);
  if (!m.has_value()) {
    if (m.error().code() == Code::kCancelled) return true;  // woken
    if (m.error().code() == Code::kUnavailable) {
      lose(m.error().message());
      return true;
    }
    feed_.gave_up(id_, m.error().with_context(name()), link_->shared_memory());
    link_.reset();
    return false;
  }
  if (!*m) {
    const std::chrono::milliseconds limit =
        silence_limit(feed_.options().daemon_timeout, link_->connection());
    if (Clock::now() - link_->connection().last_heard() > limit)
      lose("nothing heard for " + std::to_string(limit.count()) + " ms");
    return true;
  }
  if (auto* h = std::get_if<transport::BatchHeader>(&**m)) return on_batch(*h);
  if (const auto* e = std::get_if<transport::ErrorReply>(&**m)) {
    if (e->stream_id != 0 && e->stream_id != link_->stream_id()) return true;
    // Not a batch's own failure: the daemon is going (unavailable), out of memory for the stream
    // (overloaded), or the error is about no stream.
    if (e->code == Code::kUnavailable || e->code == Code::kOverloaded || e->stream_id == 0 ||
        outstanding_.empty()) {
      lose(e->message);
      return true;
    }
    // A fill failed (on_bad_sample=fail): the batch it was for is the first outstanding. The
    // daemon ended the stream; a reconnect opens another.
    const MultiFeed::Work w = outstanding_.front();
    outstanding_.pop_front();
    feed_.failed(id_, w.ticket, Status(e->code, e->message));
    lose("its stream ended with the error of " + position_text(w.position.epoch, w.position.batch));
  }
  return true;
}

// What a batch's header must say of its rows and tensors: 1..batch_size rows, and the feed's
// tensors with that many rows (or, compact, the crops of that many rows). "" when it does.
std::string RemoteProducer::tensors_differ(const transport::BatchHeader& h) const {
  const FeedLayout& layout = feed_.layout();
  const size_t rows = h.indices.size();
  if (rows == 0 || rows > static_cast<size_t>(layout.batch_size))
    return std::to_string(rows) + " rows for batches of " + std::to_string(layout.batch_size);
  std::vector<TensorDesc> want;
  if (expander_) {
    want.push_back(loader::compact_tensor(rows, expander_->layout().crop_size));
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

std::span<uint8_t> RemoteProducer::payload_for(const transport::BatchHeader& h) {
  if (!link_ || h.stream_id != link_->stream_id() || outstanding_.empty()) return {};
  const MultiFeed::Work& w = outstanding_.front();
  if (w.position != Position{h.epoch, h.batch}) return {};
  payload_ticket_ = w.ticket;
  if (expander_) return {crops_.data(), crops_.size()};
  return {feed_.ring().slot(w.slot), feed_.layout().slot_bytes};
}

bool RemoteProducer::on_batch(transport::BatchHeader& h) {
  if (h.stream_id != link_->stream_id()) return true;  // of a stream closed meanwhile
  const auto bad = [&](const std::string& why) {
    feed_.gave_up(id_,
                  Status::corrupt(name() + " sent " + position_text(h.epoch, h.batch) + ", " + why),
                  link_->shared_memory());
    link_.reset();
    return false;
  };
  if (outstanding_.empty()) return bad("which it was not given");
  const MultiFeed::Work w = outstanding_.front();
  if (w.position != Position{h.epoch, h.batch})
    return bad("where " + position_text(w.position.epoch, w.position.batch) + " was due");
  if (link_->shared_memory() ? h.slot != w.slot : payload_ticket_ != w.ticket)
    return bad(link_->shared_memory()
                   ? "into slot " + std::to_string(h.slot) + ", not the one it was given"
                   : "without its payload");
  if (lacks_sample_meta(feed_.options().spec, h)) return bad("without per-sample metadata");
  if (const std::string why = tensors_differ(h); !why.empty()) return bad(why);
  if (expander_) {
    if (h.compact.size() != h.indices.size()) return bad("without its compact rows");
    if (Status s = expander_->expand(crops_.data(), h.compact, feed_.ring().slot(w.slot)); !s.ok())
      return bad("whose compact rows do not expand: " + s.message());
  }
  outstanding_.pop_front();
  feed_.finished(id_, w.ticket, feed_batch(h, w.slot));
  return true;
}

// --------------------------------------------------------------------------------- LocalProducer

void LocalProducer::Signal::raise() {
  {
    std::lock_guard<std::mutex> lock(mu);
    raised = true;
  }
  cv.notify_all();
}

LocalProducer::LocalProducer(MultiFeed& feed, size_t id, std::unique_ptr<loader::WorkerPool> pool,
                             std::shared_ptr<loader::BatchPipeline> pipeline)
    : feed_(feed), id_(id), pool_(std::move(pool)), pipeline_(std::move(pipeline)) {
  stream_ = loader::BatchStream::over(pipeline_, *pool_, 0, 0, [s = signal_] { s->raise(); });
}

LocalProducer::~LocalProducer() { stop(); }

void LocalProducer::start() { thread_ = std::thread(&LocalProducer::run, this); }

void LocalProducer::wake() { signal_->raise(); }

void LocalProducer::stop() {
  stop_ = true;
  if (stream_) stream_->cancel();
  wake();
  if (thread_.joinable()) thread_.join();
  stream_.reset();  // waits for the sample each worker is on
}

void LocalProducer::cancel() {
  stop_ = true;
  if (stream_) stream_->cancel();
  wake();
}

void LocalProducer::run() {
  while (!stop_ && !feed_.stopping()) {
    while (std::optional<loader::ReadyBatch> r = stream_->pop()) {
      const MultiFeed::Work w = outstanding_.front();
      outstanding_.pop_front();
      if (!r->status.ok()) {
        feed_.failed(id_, w.ticket, r->status);
        continue;
      }
      feed_.finished(id_, w.ticket, feed_batch(r->info, w.slot));
    }
    for (const MultiFeed::Work& w : feed_.take_work(id_, feed_.options().prefetch)) {
      stream_->start_at({w.slot, feed_.ring().slot(w.slot)}, w.position.epoch, w.position.batch);
      outstanding_.push_back(w);
    }
    std::unique_lock<std::mutex> lock(signal_->mu);
    signal_->cv.wait_for(lock, 100ms, [&] { return signal_->raised; });
    signal_->raised = false;
  }
}

}  // namespace textfeed::client::internal
