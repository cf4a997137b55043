// MultiFeed: opening (every producer's stream checked against one layout), the hand-out of batch
// numbers and slots, in-order delivery, and what a lost producer's batches become. The producers'
// threads are client/detail/multi_producers.
#include "client/multi_feed.h"

#include <algorithm>
#include <random>

#include "base/log.h"
#include "client/detail/multi_producers.h"
#include "client/embedded_feed.h"
#include "client/remote_feed.h"
#include "loader/compact_expander.h"
#include "loader/worker_pool.h"
#include "transport/shm.h"

namespace textfeed::client {

namespace {
using Clock = std::chrono::steady_clock;

std::string position_text(const Position& p) {
  return "epoch " + std::to_string(p.epoch) + " batch " + std::to_string(p.batch);
}

// Whether `endpoint` may offer shared memory (the daemon's ipc endpoint does; tcp never).
bool may_share(const DaemonProducer& d, transport::Payload payload) {
  return payload == transport::Payload::kFull && d.transport != transport::Transport::kFrames &&
         d.endpoint.rfind("ipc://", 0) == 0;
}

Status check_options(const MultiOptions& o) {
  const size_t producers = o.daemons.size() + (o.local_threads > 0 ? 1 : 0);
  if (o.daemons.empty())
    return Status::invalid_argument(
        "a feed of several producers needs at least one daemon endpoint");
  if (producers > kMaxProducers)
    return Status::invalid_argument(std::to_string(producers) + " producers; at most " +
                                    std::to_string(kMaxProducers));
  if (o.prefetch == 0 || o.prefetch > kMaxPrefetch)
    return Status::invalid_argument("prefetch " + std::to_string(o.prefetch) + " is not in 1.." +
                                    std::to_string(kMaxPrefetch));
  if (o.local_threads < 0) return Status::invalid_argument("local_threads must be >= 0");
  if (o.local_threads > 0) {
    TF_RETURN_IF_ERROR(loader::check_worker_threads(o.local_threads).with_context("local_threads"));
    if (!o.local_source) return Status::invalid_argument("local_threads without a local dataset");
  }
  if (o.payload == transport::Payload::kCompact) {
    TF_RETURN_IF_ERROR(loader::compact_supported(o.spec).with_context("payload 'compact'"));
    for (const DaemonProducer& d : o.daemons)
      if (d.transport == transport::Transport::kSharedMemory)
        return Status::invalid_argument(
            "payload 'compact' travels as frames, not transport 'shm' (" + d.endpoint + ")");
  }
  for (size_t i = 0; i < o.daemons.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (o.daemons[i].endpoint == o.daemons[j].endpoint)
        return Status::invalid_argument("endpoint " + o.daemons[i].endpoint + " is named twice");
  return Status();
}
}  // namespace

std::string MultiFeed::differs(const FeedLayout& o) const {
  const FeedLayout& l = layout_;
  if (o.slot_bytes != l.slot_bytes || o.tensors.size() != l.tensors.size())
    return "another batch layout";
  for (size_t i = 0; i < l.tensors.size(); ++i)
    if (o.tensors[i].name != l.tensors[i].name || o.tensors[i].shape != l.tensors[i].shape ||
        o.tensors[i].dtype != l.tensors[i].dtype ||
        o.tensors[i].offset_bytes != l.tensors[i].offset_bytes)
      return "another layout of tensor '" + l.tensors[i].name + "'";
  if (o.epochs != l.epochs)
    return std::to_string(o.epochs.per_epoch) + " batches per epoch, not " +
           std::to_string(l.epochs.per_epoch);
  if (o.dataset_size != l.dataset_size || o.source_sizes != l.source_sizes)
    return "a dataset of " + std::to_string(o.dataset_size) + " samples, not " +
           std::to_string(l.dataset_size);
  if (o.dataset_fingerprint != l.dataset_fingerprint)
    return "another dataset (its fingerprint differs)";
  return {};
}

Result<std::unique_ptr<MultiFeed>> MultiFeed::open(const MultiOptions& options) {
  TF_RETURN_IF_ERROR(check_options(options));
  std::unique_ptr<MultiFeed> f(new MultiFeed());
  f->options_ = options;
  // One session per daemon connection chain: a reconnect to a live daemon ends the earlier
  // connection's streams before its Hello is answered (what frees a lost producer's slots).
  std::random_device rd;
  for (DaemonProducer& d : f->options_.daemons)
    if (d.connect.session == 0) d.connect.session = (uint64_t{rd()} << 32 | rd()) | 1;

  // The compact batches' size this process expects (the crops of a full batch).
  uint64_t compact_bytes = 0;
  if (options.payload == transport::Payload::kCompact) {
    TF_ASSIGN_OR_RETURN(std::unique_ptr<loader::CompactExpander> e,
                        loader::CompactExpander::create(options.spec));
    compact_bytes = loader::compact_row_bytes(e->layout().crop_size) *
                    static_cast<uint64_t>(e->layout().batch_size);
  }
  // Connect and open every daemon's stream; those that do not answer are left to reconnect.
  std::vector<std::unique_ptr<internal::DaemonLink>> links(f->options_.daemons.size());
  std::optional<FeedLayout> first;
  std::string first_name;
  const auto agree = [&](const FeedLayout& layout, const std::string& name) -> Status {
    if (!first) {
      first = layout;
      first_name = name;
      f->layout_ = layout;
      return Status();
    }
    if (const std::string why = f->differs(layout); !why.empty())
      return Status::invalid_argument(
          name + " makes " + why + " than " + first_name +
          ": every producer of one feed must serve the same dataset and spec");
    return Status();
  };
  for (size_t i = 0; i < links.size(); ++i) {
    const DaemonProducer& d = f->options_.daemons[i];
    auto link = internal::DaemonLink::connect(*f, d, d.connect.timeout);
    if (!link.has_value()) {
      if (link.error().code() != Code::kUnavailable)
        return link.error().with_context("daemon " + d.endpoint);
      TF_LOG(Warning) << "textfeed: the daemon at " << d.endpoint << " does not answer ("
                      << link.error().message() << "); starting without it, it joins when it comes";
      continue;
    }
    TF_RETURN_IF_ERROR(agree((*link)->layout(), "the daemon at " + d.endpoint));
    if (compact_bytes > 0 && (*link)->compact_bytes() != compact_bytes)
      return Status::invalid_argument("the daemon at " + d.endpoint + " sends compact batches of " +
                                      std::to_string((*link)->compact_bytes()) + " bytes, not " +
                                      std::to_string(compact_bytes));
    links[i] = std::move(*link);
  }
  std::shared_ptr<loader::BatchPipeline> local;
  if (options.local_threads > 0) {
    TF_ASSIGN_OR_RETURN(std::unique_ptr<loader::BatchPipeline> p,
                        loader::BatchPipeline::create(options.local_source, options.local_spec));
    local = std::move(p);
    TF_RETURN_IF_ERROR(agree(feed_layout(*local), "this process's threads"));
  }
  if (!first) return Status::unavailable("no daemon answered, and there are no local threads");
  TF_RETURN_IF_ERROR(f->layout_.epochs.check(options.epoch, options.batch).with_context("start"));
  std::tie(f->epoch_, f->batch_) = f->layout_.epochs.normalize(options.epoch, options.batch);
  f->next_new_ = {f->epoch_, f->batch_};

  // The ring: prefetch for each producer, the caller's held slots, and one producer's worth to
  // spare for the slots of a lost one.
  const size_t producers = links.size() + (local ? 1 : 0);
  const uint64_t slots = uint64_t{options.prefetch} * (producers + 1) + options.held_slots;
  const bool shared =
      std::any_of(f->options_.daemons.begin(), f->options_.daemons.end(),
                  [&](const DaemonProducer& d) { return may_share(d, options.payload); });
  if (slots > transport::kMaxSharedMemorySlots)
    return Status::invalid_argument(std::to_string(slots) +
                                    " batch slots (prefetch x (producers + 1) + held); at most " +
                                    std::to_string(transport::kMaxSharedMemorySlots));
  TF_ASSIGN_OR_RETURN(
      f->ring_, shared ? SlotRing::shared(static_cast<uint32_t>(slots), f->layout_.slot_bytes)
                       : SlotRing::anonymous(static_cast<uint32_t>(slots), f->layout_.slot_bytes));
  for (uint32_t i = f->ring_->count(); i-- > 0;) f->free_.push_back(i);

  f->counters_.resize(producers);
  for (size_t i = 0; i < links.size(); ++i) {
    if (links[i])
      TF_RETURN_IF_ERROR(
          links[i]->attach(*f->ring_).with_context("daemon " + f->options_.daemons[i].endpoint));
    if (!links[i]) {
      f->counters_[i].state = "lost";
      f->counters_[i].joined = false;
    }
    f->up_ += links[i] != nullptr;
    f->producers_.push_back(std::make_unique<internal::RemoteProducer>(
        *f, i, f->options_.daemons[i], std::move(links[i])));
  }
  if (local) {
    TF_ASSIGN_OR_RETURN(std::unique_ptr<loader::WorkerPool> pool,
                        loader::WorkerPool::create(options.local_threads));
    f->producers_.push_back(std::make_unique<internal::LocalProducer>(
        *f, f->producers_.size(), std::move(pool), std::move(local)));
    ++f->up_;
  }
  if (f->up_ == 0) f->all_lost_since_ = Clock::now();
  for (auto& p : f->producers_) p->start();
  return f;
}

MultiFeed::~MultiFeed() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  for (auto& p : producers_) p->stop();
}

void MultiFeed::cancel() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.ok()) error_ = Status::cancelled("this feed was closed");
    stop_ = true;
    cv_.notify_all();
  }
  for (auto& p : producers_) p->cancel();
}

bool MultiFeed::stopping() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

void MultiFeed::wake_all() {
  for (auto& p : producers_) p->wake();
}

void MultiFeed::lose_for_testing(size_t i) {
  if (i < producers_.size()) producers_[i]->drop();
}

size_t MultiFeed::usable_slots() const {
  size_t quarantined = 0;
  for (const Counters& c : counters_) quarantined += c.quarantined.size();
  return ring_->count() - quarantined;
}

std::vector<MultiFeed::Work> MultiFeed::take_work(size_t producer, uint32_t limit) {
  std::vector<Work> out;
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_ || counters_[producer].state != "up" || layout_.epochs.per_epoch == 0) return out;
  size_t in_flight = 0;
  for (const auto& [ticket, a] : tickets_) in_flight += a.producer == producer;
  while (in_flight < limit) {
    const bool again = !redo_.empty();
    const Position position = again ? *redo_.begin() : next_new_;
    uint32_t slot = 0;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else if (!done_.empty() && position < done_.rbegin()->first) {
      // No slot, and a later batch holds one while it waits its turn: it gives its slot to the
      // earlier one (and is made again later), so that the batch next() needs always gets made.
      auto latest = std::prev(done_.end());
      slot = latest->second.batch.slot;
      redo_.insert(latest->first);
      done_.erase(latest);
      ++evicted_;
    } else {
      break;
    }
    if (again) {
      redo_.erase(redo_.begin());
    } else {
      const auto [e, b] = layout_.epochs.after(next_new_.epoch, next_new_.batch);
      next_new_ = {e, b};
    }
    const uint64_t ticket = next_ticket_++;
    tickets_[ticket] = Assignment{producer, slot, position, false, Clock::now()};
    ticket_of_[position] = ticket;
    out.push_back({ticket, slot, position});
    ++in_flight;
  }
  return out;
}

void MultiFeed::finished(size_t producer, uint64_t ticket, FeedBatch batch) {
  land(producer, ticket, std::move(batch), Status());
}

void MultiFeed::failed(size_t producer, uint64_t ticket, const Status& status) {
  land(producer, ticket, FeedBatch(), status);
}

void MultiFeed::land(size_t producer, uint64_t ticket, FeedBatch batch, const Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = tickets_.find(ticket);
    if (it == tickets_.end() || it->second.producer != producer) return;
    const Assignment a = it->second;
    tickets_.erase(it);
    if (!a.stale) {
      ticket_of_.erase(a.position);
      batch.slot = a.slot;
      batch.epoch = a.position.epoch;
      batch.batch = a.position.batch;
      done_[a.position] = Done{std::move(batch), status, producer};
      cv_.notify_all();
      return;
    }
    free_.push_back(a.slot);
  }
  wake_all();  // a stale batch's slot came free
}

void MultiFeed::lost(size_t producer, const std::string& why, bool keep_slots) {
  size_t handed = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Counters& c = counters_[producer];
    c.why = why;
    if (c.state == "up" && --up_ == 0) all_lost_since_ = Clock::now();
    if (c.state != "out") c.state = "lost";
    for (auto it = tickets_.begin(); it != tickets_.end();) {
      const Assignment& a = it->second;
      if (a.producer != producer) {
        ++it;
        continue;
      }
      if (!a.stale) {
        redo_.insert(a.position);
        ticket_of_.erase(a.position);
        ++handed;
      }
      (keep_slots ? c.quarantined : free_).push_back(a.slot);
      it = tickets_.erase(it);
    }
    c.reissued += handed;
    cv_.notify_all();
  }
  TF_LOG(Warning) << "textfeed: lost " << producers_[producer]->name() << " (" << why << "): its "
                  << handed << " batch(es) in flight go to the other producers";
  wake_all();
}

void MultiFeed::rejoined(size_t producer) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Counters& c = counters_[producer];
    if (c.state == "up") return;
    c.state = "up";
    ++up_;
    if (c.joined) ++c.reconnects;
    c.joined = true;
    free_.insert(free_.end(), c.quarantined.begin(), c.quarantined.end());
    c.quarantined.clear();
  }
  TF_LOG(Info) << "textfeed: " << producers_[producer]->name() << " is back";
  wake_all();
}

void MultiFeed::gave_up(size_t producer, const Status& status, bool keep_slots) {
  lost(producer, status.message(), keep_slots);
  TF_LOG(Error) << "textfeed: " << producers_[producer]->name()
                << " is out for good: " << status.to_string();
  std::lock_guard<std::mutex> lock(mu_);
  counters_[producer].state = "out";
  const bool any = std::any_of(counters_.begin(), counters_.end(),
                               [](const Counters& c) { return c.state != "out"; });
  if (!any && error_.ok()) error_ = status;
  cv_.notify_all();
}

void MultiFeed::drop_stalled(const Position& want, Clock::time_point now) {
  if (waiting_for_ != want) {
    waiting_for_ = want;
    waiting_since_ = now;
  }
  const auto drop = [&](size_t p, Clock::time_point since, const std::string& what) {
    TF_LOG(Warning) << "textfeed: " << producers_[p]->name() << " has held " << what << " for "
                    << std::chrono::duration_cast<std::chrono::seconds>(now - since).count()
                    << " s while the training waits for " << position_text(want)
                    << ": taking it for lost";
    for (auto& [ticket, a] : tickets_)
      if (a.producer == p) a.since = now;  // asked once per stall
    producers_[p]->drop();
  };
  const auto stalls = [&](size_t p) {
    return producers_[p]->droppable() && counters_[p].state == "up";
  };
  // A daemon that answers but does not make the batch the training waits for.
  if (auto t = ticket_of_.find(want); t != ticket_of_.end()) {
    const Assignment& a = tickets_.at(t->second);
    if (now - a.since > options_.stall_timeout && stalls(a.producer))
      drop(a.producer, a.since, "it");
    return;
  }
  // Nobody holds it: every producer that is up is full, so those whose batches do not come stall
  // it.
  if (now - waiting_since_ <= options_.stall_timeout) return;
  std::vector<Clock::time_point> oldest(producers_.size(), now);
  for (const auto& [ticket, a] : tickets_)
    if (!a.stale) oldest[a.producer] = std::min(oldest[a.producer], a.since);
  for (size_t p = 0; p < producers_.size(); ++p)
    if (stalls(p) && now - oldest[p] > options_.stall_timeout) drop(p, oldest[p], "its batches");
}

Result<std::optional<FeedBatch>> MultiFeed::take_batch(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (error_.code() == Code::kCancelled) return error_;
  if (layout_.epochs.per_epoch == 0) return empty_rank_error();
  const Position want{epoch_, batch_};
  const auto ready = [&] { return done_.count(want) > 0 || !error_.ok(); };
  if (!ready() && held_ >= usable_slots())
    return Status::overloaded(
        "all " + std::to_string(usable_slots()) +
        " usable batch slots are held by earlier batches: drop (or copy) their tensors");
  const Clock::time_point t0 = Clock::now(), deadline = t0 + timeout;
  while (!ready()) {
    const Clock::time_point now = Clock::now();
    if (up_ == 0 && now - all_lost_since_ > options_.reconnect_timeout) {
      error_ = Status::unavailable("every producer has been lost for " +
                                   std::to_string(options_.reconnect_timeout.count() / 1000) +
                                   " s (none came back): waiting for " + position_text(want));
      break;
    }
    if (now >= deadline) break;
    drop_stalled(want, now);
    cv_.wait_for(lock, std::min<Clock::duration>(deadline - now, std::chrono::milliseconds(100)));
  }
  const double waited = std::chrono::duration<double>(Clock::now() - t0).count();
  wait_seconds_ += waited;
  auto it = done_.find(want);
  // The wait is the producer's that made the batch, or that holds it still.
  if (it != done_.end())
    counters_[it->second.producer].wait_seconds += waited;
  else if (auto t = ticket_of_.find(want); t != ticket_of_.end())
    counters_[tickets_.at(t->second).producer].wait_seconds += waited;
  if (it == done_.end()) {
    if (!error_.ok()) return error_;
    return std::optional<FeedBatch>();
  }
  Done d = std::move(it->second);
  done_.erase(it);
  if (!d.status.ok()) {
    // As an embedded feed: the position stays, and the next call makes the batch again (it fails
    // the same way).
    free_.push_back(d.batch.slot);
    redo_.insert(want);
    lock.unlock();
    wake_all();
    return d.status;
  }
  ++held_;
  ++batches_;
  ++counters_[d.producer].delivered;
  samples_ += d.batch.indices.size();
  skipped_ += d.batch.errors.size();
  advance_past(want.epoch, want.batch);
  return std::optional<FeedBatch>(std::move(d.batch));
}

void MultiFeed::release_slot(uint32_t slot) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(slot);
    if (held_ > 0) --held_;
  }
  wake_all();
}

Status MultiFeed::seek(uint64_t epoch, uint64_t batch) {
  TF_RETURN_IF_ERROR(layout_.epochs.check(epoch, batch));
  std::tie(epoch, batch) = layout_.epochs.normalize(epoch, batch);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_.ok()) return error_;
    if (epoch == epoch_ && batch == batch_)
      return Status();  // what is in flight is what comes next
    // Batches in flight are still written into their slots: those come free when they arrive.
    for (auto& [ticket, a] : tickets_) a.stale = true;
    ticket_of_.clear();
    for (const auto& [position, d] : done_) free_.push_back(d.batch.slot);
    done_.clear();
    redo_.clear();
    next_new_ = {epoch, batch};
    epoch_ = epoch;
    batch_ = batch;
  }
  wake_all();
  return Status();
}

FeedStats MultiFeed::stats() const {
  FeedStats s;
  std::lock_guard<std::mutex> lock(mu_);
  s.batches = batches_;
  s.samples = samples_;
  s.skipped_samples = skipped_;
  s.wait_seconds = wait_seconds_;
  s.elapsed_seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  s.in_flight = static_cast<uint32_t>(tickets_.size() + done_.size());
  s.held_slots = held_;
  s.daemon_timeout_seconds = std::chrono::duration<double>(options_.daemon_timeout).count();
  s.transport = "multi";
  s.remade = evicted_;
  for (size_t i = 0; i < producers_.size(); ++i) {
    const Counters& c = counters_[i];
    ProducerStats p;
    p.name = producers_[i]->name();
    p.state = c.state;
    p.transport = producers_[i]->transport();
    p.delivered = c.delivered;
    p.reissued = c.reissued;
    for (const auto& [ticket, a] : tickets_) p.in_flight += a.producer == i && !a.stale;
    p.wait_seconds = c.wait_seconds;
    p.reconnects = c.reconnects;
    p.last_error = c.why;
    s.reconnects += c.reconnects;
    s.producers.push_back(std::move(p));
  }
  return s;
}

}  // namespace textfeed::client
