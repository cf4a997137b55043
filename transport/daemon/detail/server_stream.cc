// ServerStream: options from OpenStream, slot bookkeeping, in-order hand-out of finished batches.
#include "transport/daemon/detail/server_stream.h"

#include <cmath>

#include "augment/profile.h"
#include "base/log.h"
#include "loader/pipeline/compact_expander.h"
#include "transport/daemon/options.h"

namespace textfeed::transport::internal {

namespace {

std::vector<TensorDesc> descriptors(const loader::BatchLayout& l, size_t rows) {
  std::vector<TensorDesc> out;
  for (const TensorDesc& t : l.tensors) out.push_back(t.with_rows(rows));
  return out;
}

}  // namespace

std::vector<std::string> stage_names() {
  return {loader::kStageNames.begin(), loader::kStageNames.end()};
}

std::vector<double> stage_ms_per_sample(const loader::StageTimes& t) {
  const std::array<double, loader::kNumStages> ms = t.ms_per_sample();
  return {ms.begin(), ms.end()};
}

void RateMeter::add(double samples, std::chrono::steady_clock::time_point now) {
  if (!started_) {
    started_ = true;
    last_ = now;
  }
  const double dt = std::chrono::duration<double>(now - last_).count();
  rate_ = rate_ * std::exp(-dt / kTau) + samples / kTau;
  last_ = now;
}

double RateMeter::rate(std::chrono::steady_clock::time_point now) const {
  if (!started_) return 0;
  return rate_ * std::exp(-std::chrono::duration<double>(now - last_).count() / kTau);
}

ServerStream::ServerStream(Config config, std::shared_ptr<loader::BatchPipeline> pipeline,
                           std::unique_ptr<StreamSlots> slots)
    : config_(std::move(config)), pipeline_(std::move(pipeline)), slots_(std::move(slots)) {}

ServerStream::~ServerStream() {
  batches_.reset();  // waits for running fills: they write into the slots
}

Result<std::unique_ptr<ServerStream>> ServerStream::create(
    Config config, std::shared_ptr<const loader::SampleSource> source, loader::WorkerPool& pool,
    std::shared_ptr<Wakeup> wakeup, size_t max_slot_bytes) {
  const OpenStream& o = config.request;
  // The spec as the client asked for it (validated by the server and again by the pipeline), read
  // with this daemon's decode limits.
  loader::PipelineSpec spec = o.spec;
  spec.decode = config.decode;
  TF_RETURN_IF_ERROR(loader::validate(spec));
  TF_ASSIGN_OR_RETURN(std::unique_ptr<loader::BatchPipeline> p,
                      loader::BatchPipeline::create(std::move(source), spec));
  std::shared_ptr<loader::BatchPipeline> pipeline(std::move(p));
  const loader::BatchLayout& layout = pipeline->layout();
  if (layout.slot_bytes > max_slot_bytes)
    return Status::invalid_argument(
        "a batch of " + std::to_string(layout.slot_bytes >> 20) + " MiB exceeds the daemon's " +
        std::to_string(max_slot_bytes >> 20) + " MiB limit (--max-batch-mib)");
  TF_RETURN_IF_ERROR(pipeline->sampler()
                         .epoch_lengths()
                         .check(o.start.epoch, o.start.batch)
                         .with_context("start"));
  const bool compact = o.payload == Payload::kCompact;
  if (compact) {
    if (o.transport != Transport::kFrames)
      return Status::invalid_argument(
          "payload 'compact' travels as frames: a shared-memory stream has the full "
          "batch written in place already");
    TF_RETURN_IF_ERROR(loader::compact_supported(spec));
  }
  const uint64_t buffer_bytes =
      compact ? compact_row_bytes(layout.crop_size) * static_cast<uint64_t>(layout.batch_size)
              : layout.slot_bytes;
  std::unique_ptr<StreamSlots> slots =
      o.transport == Transport::kFrames
          ? make_frame_slots(config.id, buffer_bytes,
                             std::min(config.frame_buffers, config.max_credits),
                             static_cast<uint32_t>(config.max_credits), wakeup)
          : make_shared_memory_slots(config.id, layout.slot_bytes);
  const uint64_t epoch = o.start.epoch, start = o.start.batch;
  std::unique_ptr<ServerStream> s(new ServerStream(std::move(config), pipeline, std::move(slots)));
  s->compact_bytes_ = compact ? buffer_bytes : 0;
  auto notify = [w = std::move(wakeup)] { w->signal(); };
  if (!compact) {
    s->batches_ =
        loader::BatchStream::over(std::move(pipeline), pool, epoch, start, std::move(notify));
    return s;
  }
  const EpochLengths lengths = pipeline->sampler().epoch_lengths();
  loader::WorkerPool* workers = &pool;
  loader::BatchStream::CancellableFill fill =
      [shared = s->pipeline_, workers](uint64_t e, uint64_t b, uint8_t* crops, BatchInfo& info,
                                       const loader::CancelToken& cancel) {
        return shared->fill_compact(e, b, crops, info, *workers, &cancel);
      };
  s->batches_ = std::make_unique<loader::BatchStream>(std::move(fill), lengths, pool, epoch, start,
                                                      std::move(notify));
  return s;
}

StreamOpened ServerStream::opened() const {
  const loader::BatchLayout& l = pipeline_->layout();
  StreamOpened o{config_.id,
                 pipeline_->sampler().batches_per_epoch(),
                 pipeline_->source().size(),
                 l.slot_bytes,
                 descriptors(l, static_cast<size_t>(l.batch_size)),
                 static_cast<uint32_t>(config_.max_credits)};
  if (const MemoryToken* t = slots_->awaiting_memory()) o.memory_token.assign(t->begin(), t->end());
  o.dataset_fingerprint = pipeline_->source().fingerprint();
  o.resumed_batches = pipeline_->sampler().epoch_lengths().resumed_batches;
  for (size_t n : pipeline_->sampler().source_sizes()) o.source_sizes.push_back(n);
  o.assigned = config_.request.assigned;
  o.compact_bytes = compact_bytes_;
  return o;
}

Result<uint32_t> ServerStream::credit(const Credit& c) {
  const std::string stream = "stream " + std::to_string(config_.id);
  if (!config_.request.assigned) {
    if (!c.batches.empty())
      return Status::invalid_argument("a Credit of " + stream +
                                      " names batches, but it was not opened assigned");
    return slots_->credit(c, batches_->in_flight());
  }
  const size_t granted = c.slots.empty() ? c.count : c.slots.size();
  if (c.batches.size() != granted)
    return Status::invalid_argument("a Credit of assigned " + stream + " names " +
                                    std::to_string(c.batches.size()) + " batches for " +
                                    std::to_string(granted) + " slots: one each");
  for (const Position& p : c.batches)
    if (const uint64_t n = batches_->epoch_lengths().of(p.epoch); p.batch >= n)
      return Status::invalid_argument("a Credit of " + stream + " names batch " +
                                      std::to_string(p.batch) + " of epoch " +
                                      std::to_string(p.epoch) + ", which has " + std::to_string(n));
  TF_ASSIGN_OR_RETURN(uint32_t more, slots_->credit(c, batches_->in_flight()));
  assigned_.insert(assigned_.end(), c.batches.begin(), c.batches.end());
  return more;
}

Result<bool> ServerStream::start_one() {
  TF_ASSIGN_OR_RETURN(std::optional<loader::Slot> slot, slots_->acquire());
  if (!slot) return false;  // every buffer is being filled or sent; a freed one wakes the loop
  if (!config_.request.assigned) {
    batches_->start(*slot);
    return true;
  }
  // Every credit came with its batch, in the order acquire() takes them.
  TF_CHECK(!assigned_.empty()) << "an assigned stream acquired a slot no batch was credited for";
  const Position p = assigned_.front();
  assigned_.pop_front();
  batches_->start_at(*slot, p.epoch, p.batch);
  return true;
}

std::optional<Outgoing> ServerStream::next_outgoing(std::chrono::steady_clock::time_point now) {
  std::optional<loader::ReadyBatch> r = batches_->pop();
  if (!r) return std::nullopt;
  Outgoing out;
  if (!r->status.ok()) {
    out.error = r->status;
    slots_->release(r->slot.id);
    return out;
  }
  const size_t rows = r->info.indices.size();
  size_t words = 0;
  for (const CompactRow& row : r->info.compact) words += row.labels.size();
  if (words > kMaxCompactWords) {
    out.error = Status::invalid_argument(
        "epoch " + std::to_string(r->info.epoch) + " batch " + std::to_string(r->info.batch) +
        " has " + std::to_string(words) + " words, more than a compact batch carries (" +
        std::to_string(kMaxCompactWords) + "): use payload 'full'");
    slots_->release(r->slot.id);
    return out;
  }
  BatchHeader& h = out.header;
  static_cast<BatchInfo&>(h) = std::move(r->info);  // the fill's metadata is the message's
  h.stream_id = config_.id;
  h.tensors = compact_bytes_ > 0
                  ? std::vector<TensorDesc>{compact_tensor(rows, pipeline_->layout().crop_size)}
                  : descriptors(pipeline_->layout(), rows);
  out.payload = slots_->deliver(r->slot.id, h);
  // An assigned stream's batches come in the client's order: it knows where its epochs end.
  out.end_of_epoch =
      !config_.request.assigned && h.batch + 1 == batches_->epoch_lengths().of(h.epoch);
  ++batches_sent_;
  samples_sent_ += rows;
  skipped_ += h.errors.size();
  rate_.add(static_cast<double>(rows), now);
  return out;
}

size_t ServerStream::discard_finished() {
  size_t n = 0;
  for (; std::optional<loader::ReadyBatch> r = batches_->pop(); ++n) slots_->release(r->slot.id);
  return n;
}

StreamStats ServerStream::stats(std::chrono::steady_clock::time_point now) const {
  StreamStats s;
  const OpenStream& o = config_.request;
  s.stream_id = config_.id;
  s.dataset = config_.dataset;
  s.rank = static_cast<uint32_t>(o.spec.sampler.rank);
  s.world_size = static_cast<uint32_t>(o.spec.sampler.world_size);
  s.batches = batches_sent_;
  s.samples = samples_sent_;
  s.skipped_samples = skipped_;
  s.samples_per_second = rate_.rate(now);
  s.credits_outstanding = slots_->credits_outstanding();
  s.in_flight = static_cast<uint32_t>(batches_->in_flight());
  s.epoch = batches_->next_epoch();
  s.next_batch = batches_->next_batch();
  s.transport = o.transport;
  s.client = config_.client_name;
  s.stage_ms = stage_ms_per_sample(pipeline_->counters().stages);
  return s;
}

}  // namespace textfeed::transport::internal
