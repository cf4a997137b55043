// EmbeddedFeed: a BatchStream over the ring; released slots are refilled on the next call.
#include "client/embedded_feed.h"

namespace textfeed::client {

FeedLayout feed_layout(const loader::BatchPipeline& pipeline) {
  const loader::BatchLayout& l = pipeline.layout();
  FeedLayout f;
  f.tensors.assign(l.tensors.begin(), l.tensors.end());
  f.slot_bytes = l.slot_bytes;
  f.epochs = pipeline.sampler().epoch_lengths();
  f.dataset_size = pipeline.source().size();
  for (size_t n : pipeline.sampler().source_sizes()) f.source_sizes.push_back(n);
  f.batch_size = l.batch_size;
  f.dataset_fingerprint = pipeline.source().fingerprint();
  return f;
}

Result<std::unique_ptr<EmbeddedFeed>> EmbeddedFeed::open(
    std::shared_ptr<const loader::SampleSource> source, const EmbeddedOptions& options) {
  if (options.prefetch == 0 || options.prefetch > kMaxPrefetch)
    return Status::invalid_argument("prefetch " + std::to_string(options.prefetch) +
                                    " is not in 1.." + std::to_string(kMaxPrefetch));
  TF_RETURN_IF_ERROR(loader::check_worker_threads(options.threads));
  std::unique_ptr<EmbeddedFeed> f(new EmbeddedFeed());
  f->options_ = options;
  TF_ASSIGN_OR_RETURN(std::unique_ptr<loader::BatchPipeline> p,
                      loader::BatchPipeline::create(std::move(source), options.pipeline));
  f->pipeline_ = std::move(p);
  f->layout_ = feed_layout(*f->pipeline_);
  TF_RETURN_IF_ERROR(f->layout_.epochs.check(options.epoch, options.batch).with_context("start"));
  TF_ASSIGN_OR_RETURN(
      f->ring_, SlotRing::anonymous(options.prefetch + options.held_slots, f->layout_.slot_bytes));
  TF_ASSIGN_OR_RETURN(f->pool_, loader::WorkerPool::create(options.threads));
  std::tie(f->epoch_, f->batch_) = f->layout_.epochs.normalize(options.epoch, options.batch);
  f->stream_ =
      loader::BatchStream::over(f->pipeline_, *f->pool_, options.epoch, options.batch, nullptr);
  for (uint32_t i = f->ring_->count(); i-- > 0;) f->free_.push_back(i);
  f->top_up();
  return f;
}

// The stream's destructor cancels its fills: this waits for the sample each worker is on, not for
// whole batches.
EmbeddedFeed::~EmbeddedFeed() { stream_.reset(); }

void EmbeddedFeed::cancel() {
  // The flag first: a top_up() that misses it starts fills under the stream's current token,
  // which the stream's cancel() below then cancels too.
  cancelled_.store(true);
  stream_->cancel();
}

void EmbeddedFeed::top_up() {
  if (cancelled_.load() || layout_.epochs.per_epoch == 0) return;
  std::vector<uint32_t> slots;
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (!free_.empty() && stream_->in_flight() + slots.size() < options_.prefetch) {
      slots.push_back(free_.back());
      free_.pop_back();
    }
  }
  for (uint32_t id : slots) stream_->start({id, ring_->slot(id)});
}

Result<std::optional<FeedBatch>> EmbeddedFeed::take_batch(std::chrono::milliseconds timeout) {
  if (cancelled_.load()) return Status::cancelled("this feed was closed");
  if (layout_.epochs.per_epoch == 0) return empty_rank_error();
  top_up();
  if (stream_->in_flight() == 0)
    return Status::overloaded(
        "all " + std::to_string(ring_->count()) +
        " batch slots are held by earlier batches: drop (or copy) their tensors");
  const Clock::TimePoint t0 = clock_.now();
  std::optional<loader::ReadyBatch> r = stream_->wait_pop_for(timeout);
  wait_seconds_ += std::chrono::duration<double>(clock_.now() - t0).count();
  if (!r) return std::optional<FeedBatch>();
  if (!r->status.ok()) {
    // The batches filled after the failed one are dropped, and the next call tries the failed one
    // again (deterministically: it fails the same way), so the position never skips a batch.
    std::vector<loader::Slot> dropped = stream_->reset(epoch_, batch_);
    dropped.push_back(r->slot);
    std::lock_guard<std::mutex> lock(mu_);
    for (const loader::Slot& s : dropped) free_.push_back(s.id);
    if (cancelled_.load()) return Status::cancelled("this feed was closed");
    return r->status;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++held_;
  }
  advance_past(r->info.epoch, r->info.batch);
  FeedBatch b{std::move(r->info), r->slot.id};
  ++batches_;
  samples_ += b.indices.size();
  skipped_ += b.errors.size();
  top_up();
  return std::optional<FeedBatch>(std::move(b));
}

void EmbeddedFeed::release_slot(uint32_t slot) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(slot);
  if (held_ > 0) --held_;
}

Status EmbeddedFeed::seek(uint64_t epoch, uint64_t batch) {
  TF_RETURN_IF_ERROR(layout_.epochs.check(epoch, batch));
  std::tie(epoch, batch) = layout_.epochs.normalize(epoch, batch);
  if (epoch == epoch_ && batch == batch_) return Status();  // what is in flight is what comes next
  const std::vector<loader::Slot> dropped = stream_->reset(epoch, batch);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const loader::Slot& s : dropped) free_.push_back(s.id);
  }
  epoch_ = epoch;
  batch_ = batch;
  top_up();
  return Status();
}

FeedStats EmbeddedFeed::stats() const {
  FeedStats s;
  s.batches = batches_;
  s.samples = samples_;
  s.skipped_samples = skipped_;
  s.wait_seconds = wait_seconds_;
  s.elapsed_seconds = std::chrono::duration<double>(clock_.now() - started_).count();
  s.in_flight = static_cast<uint32_t>(stream_->in_flight());
  {
    std::lock_guard<std::mutex> lock(mu_);
    s.held_slots = held_;
  }
  const std::array<double, loader::kNumStages> ms = pipeline_->counters().stages.ms_per_sample();
  s.stage_names.assign(loader::kStageNames.begin(), loader::kStageNames.end());
  s.stage_ms.assign(ms.begin(), ms.end());
  s.transport = FeedTransport::kEmbedded;
  return s;
}

}  // namespace textfeed::client
