// ServerStream: options from OpenStream, slot bookkeeping, in-order hand-out of finished batches.
#include "transport/daemon/detail/server_stream.h"

#include <cmath>

#include "augment/profile.h"
#include "base/log.h"
#include "transport/daemon/options.h"

namespace textfeed::transport::internal {

namespace {

std::vector<TensorDescriptor> descriptors(const loader::BatchLayout& l, size_t rows) {
  std::vector<TensorDescriptor> out;
  for (const loader::TensorDesc& t : l.tensors) {
    TensorDescriptor d{std::string(t.name), t.dtype, {}, t.offset_bytes, t.sample_bytes * rows};
    d.shape = {rows, static_cast<uint64_t>(t.shape[1]), static_cast<uint64_t>(t.shape[2]),
               static_cast<uint64_t>(t.shape[3])};
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace

std::vector<std::string> stage_names() { return {loader::kStageNames.begin(), loader::kStageNames.end()}; }

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

Result<loader::PipelineOptions> pipeline_options(const OpenStream& o) {
  if (o.batch_size == 0 || o.batch_size > static_cast<uint32_t>(loader::kMaxBatchSize))
    return Status::invalid_argument("batch_size " + std::to_string(o.batch_size) + " is not in 1.." +
                                    std::to_string(loader::kMaxBatchSize));
  if (o.world_size == 0 || o.world_size > kMaxWorldSize || o.rank >= o.world_size)
    return Status::invalid_argument("rank " + std::to_string(o.rank) + " of world_size " +
                                    std::to_string(o.world_size) + ": need 0 <= rank < world_size <= " +
                                    std::to_string(kMaxWorldSize));
  // The image dtype first, so that an explicit "dtype" override wins as it always did.
  std::vector<std::pair<std::string, std::string>> overrides;
  if (o.dtype == DType::kU8) overrides.emplace_back("dtype", "uint8");
  overrides.insert(overrides.end(), o.overrides.begin(), o.overrides.end());
  return loader::make_pipeline_options(
      o.profile, overrides,
      {o.seed, static_cast<int>(o.batch_size), static_cast<int>(o.rank), static_cast<int>(o.world_size), o.shuffle,
       o.drop_last},
      o.on_bad_sample == WireOnBadSample::kFail ? loader::OnBadSample::kFail : loader::OnBadSample::kSkip);
}

ServerStream::ServerStream(Config config, std::shared_ptr<loader::BatchPipeline> pipeline,
                           std::unique_ptr<StreamSlots> slots)
    : config_(std::move(config)), pipeline_(std::move(pipeline)), slots_(std::move(slots)) {}

ServerStream::~ServerStream() {
  batches_.reset();  // waits for running fills: they write into the slots
}

Result<std::unique_ptr<ServerStream>> ServerStream::create(Config config,
                                                           std::shared_ptr<const loader::SampleSource> source,
                                                           tbb::task_arena& arena, std::shared_ptr<Wakeup> wakeup,
                                                           size_t max_slot_bytes) {
  const OpenStream& o = config.request;
  TF_ASSIGN_OR_RETURN(const loader::PipelineOptions po, pipeline_options(o));
  TF_ASSIGN_OR_RETURN(std::unique_ptr<loader::BatchPipeline> p, loader::BatchPipeline::create(std::move(source), po));
  std::shared_ptr<loader::BatchPipeline> pipeline(std::move(p));
  const loader::BatchLayout& layout = pipeline->layout();
  if (layout.slot_bytes > max_slot_bytes)
    return Status::invalid_argument("a batch of " + std::to_string(layout.slot_bytes >> 20) + " MiB exceeds the daemon's " +
                                    std::to_string(max_slot_bytes >> 20) + " MiB limit (--max-batch-mib)");
  const uint64_t per_epoch = pipeline->sampler().batches_per_epoch();
  if (o.start_batch >= per_epoch)
    return Status::invalid_argument("start batch " + std::to_string(o.start_batch) + " of an epoch of " +
                                    std::to_string(per_epoch) + " batches");
  std::unique_ptr<StreamSlots> slots =
      o.transport == WireTransport::kFrames
          ? make_frame_slots(config.id, layout.slot_bytes, std::min(config.frame_buffers, config.max_credits),
                             static_cast<uint32_t>(config.max_credits), wakeup)
          : make_shared_memory_slots(config.id, layout.slot_bytes);
  const uint64_t epoch = o.epoch, start = o.start_batch;
  std::unique_ptr<ServerStream> s(new ServerStream(std::move(config), pipeline, std::move(slots)));
  s->batches_ = loader::BatchStream::over(std::move(pipeline), arena, epoch, start, [w = std::move(wakeup)] { w->signal(); });
  return s;
}

StreamOpened ServerStream::opened() const {
  const loader::BatchLayout& l = pipeline_->layout();
  StreamOpened o{config_.id,    pipeline_->sampler().batches_per_epoch(),
                 pipeline_->source().size(), l.slot_bytes,
                 descriptors(l, static_cast<size_t>(l.batch_size)), static_cast<uint32_t>(config_.max_credits)};
  if (const MemoryToken* t = slots_->awaiting_memory()) o.memory_token.assign(t->begin(), t->end());
  o.dataset_fingerprint = pipeline_->source().fingerprint();
  return o;
}

Result<bool> ServerStream::start_one() {
  TF_ASSIGN_OR_RETURN(std::optional<loader::Slot> slot, slots_->acquire());
  if (!slot) return false;  // every buffer is being filled or sent; a freed one wakes the loop
  batches_->start(*slot);
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
  BatchHeader& h = out.header;
  h.stream_id = config_.id;
  h.epoch = r->info.epoch;
  h.batch = r->info.batch;
  h.tensors = descriptors(pipeline_->layout(), rows);
  h.indices = std::move(r->info.indices);
  for (auto& e : r->info.errors) h.errors.push_back({e.index, e.replaced_by, e.code, std::move(e.message)});
  out.payload = slots_->deliver(r->slot.id, h);
  out.end_of_epoch = h.batch + 1 == batches_->batches_per_epoch();
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
  s.rank = o.rank;
  s.world_size = o.world_size;
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
