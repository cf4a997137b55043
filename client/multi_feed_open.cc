// MultiFeed's opening: the options checked, a session per daemon joined (connect and open), every
// producer's layout agreed, the ring allocated, the streams attached, the producers started.
// open_daemons() is here; open(), which adds the local threads and the compact payload, is
// multi_feed_local.cc (textfeed::client_embedded).
#include <algorithm>
#include <random>

#include "base/log.h"
#include "client/detail/daemon_link.h"
#include "client/detail/daemon_session.h"
#include "client/detail/local_parts.h"
#include "client/multi_feed.h"
#include "transport/shm.h"

namespace textfeed::client {

namespace {

// Whether `endpoint` may offer shared memory (the daemon's ipc endpoint does; tcp never).
bool may_share(const DaemonProducer& d, transport::Payload payload) {
  return payload == transport::Payload::kFull && d.transport != transport::Transport::kFrames &&
         d.endpoint.rfind("ipc://", 0) == 0;
}

}  // namespace

namespace internal {

Status check_multi_options(const MultiOptions& o) {
  const size_t producers = o.daemons.size() + (o.local_threads > 0 ? 1 : 0);
  if (o.daemons.empty())
    return Status::invalid_argument("a feed of daemons needs at least one daemon endpoint");
  if (producers > kMaxProducers)
    return Status::invalid_argument(std::to_string(producers) + " producers; at most " +
                                    std::to_string(kMaxProducers));
  if (o.prefetch == 0 || o.prefetch > kMaxPrefetch)
    return Status::invalid_argument("prefetch " + std::to_string(o.prefetch) + " is not in 1.." +
                                    std::to_string(kMaxPrefetch));
  if (o.local_threads < 0) return Status::invalid_argument("local_threads must be >= 0");
  TF_RETURN_IF_ERROR(validate(o.client));
  if (o.payload == transport::Payload::kCompact) {
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

}  // namespace internal

Result<std::unique_ptr<MultiFeed>> MultiFeed::open_daemons(const MultiOptions& options) {
  if (options.local_threads > 0 || options.payload == transport::Payload::kCompact)
    return Status::invalid_argument(
        "local_threads and payload 'compact' need the pipeline in this process: "
        "MultiFeed::open() of textfeed::client_embedded");
  return open_with(options, internal::LocalParts{});
}

Result<std::unique_ptr<MultiFeed>> MultiFeed::open_with(const MultiOptions& options,
                                                        const internal::LocalParts& parts) {
  TF_RETURN_IF_ERROR(internal::check_multi_options(options));
  if ((options.local_threads > 0) != parts.local_layout.has_value() ||
      (options.payload == transport::Payload::kCompact) != bool(parts.make_finisher))
    return Status::internal("the local parts do not match the options");
  std::unique_ptr<MultiFeed> f(new MultiFeed(options));
  // One session per daemon connection chain: a reconnect to a live daemon ends the earlier
  // connection's streams before its Hello is answered (what frees a lost producer's slots).
  std::random_device rd;
  for (DaemonProducer& d : f->options_.daemons)
    if (d.session == 0) d.session = (uint64_t{rd()} << 32 | rd()) | 1;
  TF_RETURN_IF_ERROR(f->join_daemons(parts));
  TF_RETURN_IF_ERROR(f->layout_.epochs.check(options.epoch, options.batch).with_context("start"));
  std::tie(f->epoch_, f->batch_) = f->layout_.epochs.normalize(options.epoch, options.batch);
  f->next_new_ = {f->epoch_, f->batch_};
  TF_RETURN_IF_ERROR(f->make_ring());
  TF_RETURN_IF_ERROR(f->start_producers(parts));
  return f;
}

// Whether `layout` (of producer `name`) is the feed's: the first one agreed sets it.
Status MultiFeed::agree(const FeedLayout& layout, const std::string& name) {
  if (first_producer_.empty()) {
    first_producer_ = name;
    layout_ = layout;
    return Status();
  }
  if (const std::string why = differs(layout); !why.empty())
    return Status::invalid_argument(
        name + " makes " + why + " than " + first_producer_ +
        ": every producer of one feed must serve the same dataset and spec");
  return Status();
}

// A session per daemon, each joined: those that do not answer are left to reconnect, as long as
// another producer is up.
Status MultiFeed::join_daemons(const internal::LocalParts& parts) {
  std::shared_ptr<internal::DaemonConnector> connector = internal::connection_connector();
  std::vector<std::pair<std::string, Status>> absent;
  for (size_t i = 0; i < options_.daemons.size(); ++i) {
    internal::DaemonSession::Config c{i,
                                      options_.daemons[i],
                                      options_.client_name,
                                      options_.spec,
                                      options_.payload,
                                      Position{options_.epoch, options_.batch},
                                      options_.prefetch,
                                      options_.client};
    std::unique_ptr<internal::CompactFinisher> finisher;
    if (parts.make_finisher) {
      TF_ASSIGN_OR_RETURN(finisher, parts.make_finisher());
    }
    TF_ASSIGN_OR_RETURN(
        std::unique_ptr<internal::DaemonSession> s,
        internal::DaemonSession::create(*host_, std::move(c), connector, std::move(finisher)));
    if (Status joined = s->join(); !joined.ok()) {
      if (joined.code() != Code::kUnavailable)
        return joined.with_context("daemon " + options_.daemons[i].endpoint);
      absent.emplace_back(options_.daemons[i].endpoint, joined);
    } else {
      TF_RETURN_IF_ERROR(agree(s->layout(), s->name()));
    }
    sessions_.push_back(s.get());
    producers_.push_back(std::move(s));
  }
  if (parts.local_layout) TF_RETURN_IF_ERROR(agree(*parts.local_layout, "this process's threads"));
  if (first_producer_.empty()) {
    if (absent.size() == 1) return absent[0].second;  // one daemon: its own words
    return Status::unavailable("no daemon answered (" + absent[0].second.message() +
                               "), and there are no local threads");
  }
  for (const auto& [endpoint, why] : absent)
    TF_LOG(Warning) << "textfeed: the daemon at " << endpoint << " does not answer ("
                    << why.message() << "); starting without it, it joins when it comes";
  return Status();
}

// The ring: prefetch for each producer and the caller's held slots; with several producers, one
// producer's worth to spare for the slots of a lost one (with one, nobody else makes batches
// while it is lost).
Status MultiFeed::make_ring() {
  const size_t producers = options_.daemons.size() + (options_.local_threads > 0 ? 1 : 0);
  const size_t spare = producers > 1 ? 1 : 0;
  const uint64_t slots = uint64_t{options_.prefetch} * (producers + spare) + options_.held_slots;
  const bool shared =
      std::any_of(options_.daemons.begin(), options_.daemons.end(),
                  [&](const DaemonProducer& d) { return may_share(d, options_.payload); });
  if (slots > transport::kMaxSharedMemorySlots)
    return Status::invalid_argument(std::to_string(slots) +
                                    " batch slots (prefetch x producers, one more with several, + "
                                    "held); at most " +
                                    std::to_string(transport::kMaxSharedMemorySlots));
  const auto count = static_cast<uint32_t>(slots);
  TF_ASSIGN_OR_RETURN(ring_, shared ? SlotRing::shared(count, layout_.slot_bytes)
                                    : SlotRing::anonymous(count, layout_.slot_bytes));
  for (uint32_t i = ring_->count(); i-- > 0;) free_.push_back(i);
  return Status();
}

// Lends the joined daemons the ring, adds the local threads, and starts every producer.
Status MultiFeed::start_producers(const internal::LocalParts& parts) {
  for (internal::DaemonSession* s : sessions_)
    if (s->up()) TF_RETURN_IF_ERROR(s->attach().with_context(s->name()));
  if (parts.make_local) {
    TF_ASSIGN_OR_RETURN(std::unique_ptr<internal::Producer> local,
                        parts.make_local(*host_, producers_.size()));
    producers_.push_back(std::move(local));
  }
  counters_.resize(producers_.size());
  for (size_t i = 0; i < sessions_.size(); ++i) {
    if (sessions_[i]->up()) continue;
    counters_[i].state = ProducerState::kLost;
    counters_[i].joined = false;
  }
  for (auto& p : producers_) p->start();
  return Status();
}

}  // namespace textfeed::client
