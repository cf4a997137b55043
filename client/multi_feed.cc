// MultiFeed: the hand-out of batch numbers and slots, in-order delivery, what a lost producer's
// batches become, and the producers' side of it (Host). Opening is multi_feed_open.cc; the
// producers are client/detail/daemon_session (a daemon) and local_producer (this process's
// threads).
#include "client/multi_feed.h"

#include <algorithm>

#include "base/log.h"
#include "client/detail/daemon_session.h"
#include "client/detail/producer.h"

namespace textfeed::client {

namespace {

std::string position_text(const Position& p) {
  return "epoch " + std::to_string(p.epoch) + " batch " + std::to_string(p.batch);
}

}  // namespace

// The producers' view of the feed: each call forwards to the feed's own.
class MultiFeed::Host final : public internal::ProducerHost {
 public:
  explicit Host(MultiFeed& feed) : f_(feed) {}
  std::vector<internal::Work> take_work(size_t p, uint32_t limit) override {
    return f_.take_work(p, limit);
  }
  void finished(size_t p, uint64_t ticket, FeedBatch batch) override {
    f_.land(p, ticket, std::move(batch), Status());
  }
  void failed(size_t p, uint64_t ticket, const Status& status) override {
    f_.land(p, ticket, FeedBatch(), status);
  }
  void lost(size_t p, const std::string& why, bool keep) override { f_.lost(p, why, keep); }
  void rejoined(size_t p) override { f_.rejoined(p); }
  void gave_up(size_t p, const Status& s, bool keep) override { f_.gave_up(p, s, keep); }
  bool others_up(size_t p) const override { return f_.others_up(p); }
  std::string differs(const FeedLayout& layout) const override { return f_.differs(layout); }
  bool stopping() const override { return f_.stopping(); }
  const FeedLayout& layout() const override { return f_.layout(); }
  const SlotRing& ring() const override { return f_.ring(); }

 private:
  MultiFeed& f_;
};

MultiFeed::MultiFeed(const MultiOptions& options)
    : options_(options), clock_(clock_of(options.client)), host_(std::make_unique<Host>(*this)) {
  started_ = clock_->now();
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

size_t MultiFeed::usable_slots() const {
  // A lost producer's kept slots come back when it rejoins (or its feed fails when it gives up);
  // an out one's never do (its daemon may still write into them).
  size_t kept = 0;
  for (const Counters& c : counters_)
    if (c.state == ProducerState::kOut) kept += c.quarantined.size();
  return ring_->count() - kept;
}

bool MultiFeed::others_up(size_t producer) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < counters_.size(); ++i)
    if (i != producer && counters_[i].state == ProducerState::kUp) return true;
  return false;
}

// ---------------------------------------------------------------------------- the hand-out

std::vector<internal::Work> MultiFeed::take_work(size_t producer, uint32_t limit) {
  std::vector<internal::Work> out;
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_ || counters_[producer].state != ProducerState::kUp || layout_.epochs.per_epoch == 0)
    return out;
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
    tickets_[ticket] = Assignment{producer, slot, position, false, clock_->now()};
    ticket_of_[position] = ticket;
    out.push_back({ticket, slot, position});
    ++in_flight;
  }
  return out;
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
    if (c.state != ProducerState::kOut) c.state = ProducerState::kLost;
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
  bool again = false;  // back after a loss, not joining late
  {
    std::lock_guard<std::mutex> lock(mu_);
    Counters& c = counters_[producer];
    if (c.state == ProducerState::kUp) return;
    c.state = ProducerState::kUp;
    again = c.joined;
    if (again) ++c.reconnects;
    c.joined = true;
    free_.insert(free_.end(), c.quarantined.begin(), c.quarantined.end());
    c.quarantined.clear();
  }
  if (again)
    TF_LOG(Info) << "textfeed: reconnected to " << producers_[producer]->name() << ": it is back";
  else
    TF_LOG(Info) << "textfeed: " << producers_[producer]->name() << " joined";
  wake_all();
}

void MultiFeed::gave_up(size_t producer, const Status& status, bool keep_slots) {
  lost(producer, status.message(), keep_slots);
  TF_LOG(Error) << "textfeed: " << producers_[producer]->name()
                << " is out for good: " << status.to_string();
  std::lock_guard<std::mutex> lock(mu_);
  counters_[producer].state = ProducerState::kOut;
  const bool any = std::any_of(counters_.begin(), counters_.end(),
                               [](const Counters& c) { return c.state != ProducerState::kOut; });
  if (!any && error_.ok()) error_ = status;
  cv_.notify_all();
}

// ---------------------------------------------------------------------------- delivery

void MultiFeed::drop_stalled(const Position& want, Clock::TimePoint now) {
  // With one producer nobody else could make the batch: dropping it would only make it again.
  if (producers_.size() < 2) return;
  if (waiting_for_ != want) {
    waiting_for_ = want;
    waiting_since_ = now;
  }
  const std::chrono::milliseconds limit = options_.client.stall_timeout;
  const auto drop = [&](size_t p, Clock::TimePoint since, const std::string& what) {
    TF_LOG(Warning) << "textfeed: " << producers_[p]->name() << " has held " << what << " for "
                    << std::chrono::duration_cast<std::chrono::seconds>(now - since).count()
                    << " s while the training waits for " << position_text(want)
                    << ": taking it for lost";
    for (auto& [ticket, a] : tickets_)
      if (a.producer == p) a.since = now;  // asked once per stall
    producers_[p]->drop();
  };
  const auto stalls = [&](size_t p) {
    return producers_[p]->droppable() && counters_[p].state == ProducerState::kUp;
  };
  // A daemon that answers but does not make the batch the training waits for.
  if (auto t = ticket_of_.find(want); t != ticket_of_.end()) {
    const Assignment& a = tickets_.at(t->second);
    if (now - a.since > limit && stalls(a.producer)) drop(a.producer, a.since, "it");
    return;
  }
  // Nobody holds it: every producer that is up is full, so those whose batches do not come stall
  // it.
  if (now - waiting_since_ <= limit) return;
  std::vector<Clock::TimePoint> oldest(producers_.size(), now);
  for (const auto& [ticket, a] : tickets_)
    if (!a.stale) oldest[a.producer] = std::min(oldest[a.producer], a.since);
  for (size_t p = 0; p < producers_.size(); ++p)
    if (stalls(p) && now - oldest[p] > limit) drop(p, oldest[p], "its batches");
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
  const Clock::TimePoint t0 = clock_->now(), deadline = t0 + timeout;
  while (!ready()) {
    const Clock::TimePoint now = clock_->now();
    if (now >= deadline) break;
    drop_stalled(want, now);
    cv_.wait_for(lock,
                 std::min<Clock::TimePoint::duration>(deadline - now, options_.client.wait_slice));
  }
  count_wait(want, std::chrono::duration<double>(clock_->now() - t0).count());
  return deliver(lock, want);
}

// The wait is the producer's that made the batch, or that holds it still.
void MultiFeed::count_wait(const Position& want, double waited) {
  wait_seconds_ += waited;
  if (auto it = done_.find(want); it != done_.end())
    counters_[it->second.producer].wait_seconds += waited;
  else if (auto t = ticket_of_.find(want); t != ticket_of_.end())
    counters_[tickets_.at(t->second).producer].wait_seconds += waited;
}

// Batch `want` if it is done (its error if it failed), else the feed's error or nothing yet.
Result<std::optional<FeedBatch>> MultiFeed::deliver(std::unique_lock<std::mutex>& lock,
                                                    const Position& want) {
  auto it = done_.find(want);
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
  s.elapsed_seconds = std::chrono::duration<double>(clock_->now() - started_).count();
  s.in_flight = static_cast<uint32_t>(tickets_.size() + done_.size());
  s.held_slots = held_;
  s.transport = producers_.size() == 1 ? producers_[0]->transport() : FeedTransport::kMulti;
  s.remade = evicted_;
  std::chrono::milliseconds silence = options_.client.daemon_timeout;
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
    silence = std::max(silence, producers_[i]->silence_limit());
    s.producers.push_back(std::move(p));
  }
  s.daemon_timeout_seconds = std::chrono::duration<double>(silence).count();
  return s;
}

}  // namespace textfeed::client
