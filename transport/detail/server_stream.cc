// ServerStream: options from OpenStream, slot bookkeeping, in-order hand-out of finished batches.
#include "transport/detail/server_stream.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>

#include "augment/profile.h"
#include "base/log.h"

namespace textfeed::transport::internal {

namespace {

constexpr uint32_t kMaxShmSlots = 1024;
constexpr uint64_t kPageBytes = 4096;

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

ServerStream::ServerStream(Config config, std::shared_ptr<loader::BatchPipeline> pipeline, loader::WorkerPool& workers,
                           std::shared_ptr<Wakeup> wakeup)
    : config_(std::move(config)), pipeline_(std::move(pipeline)), workers_(workers), wakeup_(std::move(wakeup)) {}

ServerStream::~ServerStream() {
  batches_.reset();  // waits for running fills: they write into shm_ / pool_ memory
}

Result<std::unique_ptr<ServerStream>> ServerStream::create(Config config,
                                                           std::shared_ptr<const loader::SampleSource> source,
                                                           loader::WorkerPool& workers, std::shared_ptr<Wakeup> wakeup,
                                                           size_t max_slot_bytes) {
  const OpenStream& o = config.request;
  if (o.batch_size == 0 || o.batch_size > static_cast<uint32_t>(loader::kMaxBatchSize))
    return Status::invalid_argument("batch_size " + std::to_string(o.batch_size) + " is not in 1.." +
                                    std::to_string(loader::kMaxBatchSize));
  if (o.world_size == 0 || o.world_size > 65536 || o.rank >= o.world_size)
    return Status::invalid_argument("rank " + std::to_string(o.rank) + " of world_size " +
                                    std::to_string(o.world_size) + ": need 0 <= rank < world_size <= 65536");
  // The image dtype first, so that an explicit "dtype" override wins as it always did.
  std::vector<std::pair<std::string, std::string>> overrides;
  if (o.dtype == DType::kU8) overrides.emplace_back("dtype", "uint8");
  overrides.insert(overrides.end(), o.overrides.begin(), o.overrides.end());
  TF_ASSIGN_OR_RETURN(
      const loader::PipelineOptions po,
      loader::make_pipeline_options(
          o.profile, overrides,
          {o.seed, static_cast<int>(o.batch_size), static_cast<int>(o.rank), static_cast<int>(o.world_size),
           o.shuffle, o.drop_last},
          o.on_bad_sample == WireOnBadSample::kFail ? loader::OnBadSample::kFail : loader::OnBadSample::kSkip));
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
  std::unique_ptr<ServerStream> s(new ServerStream(std::move(config), std::move(pipeline), workers, std::move(wakeup)));
  if (o.transport == WireTransport::kFrames) {
    const int buffers = o.benchmark ? 1 : std::min(s->config_.frame_buffers, s->config_.max_credits);
    s->pool_ = std::make_shared<FramePool>(layout.slot_bytes, buffers, s->wakeup_);
    s->memory_bytes_ = layout.slot_bytes * static_cast<size_t>(buffers);
  } else {
    s->token_ = new_memory_token();
  }
  if (o.benchmark && !s->pool_) s->memory_bytes_ = layout.slot_bytes;  // its template batch
  if (o.benchmark) {
    TF_RETURN_IF_ERROR(s->make_benchmark_batch());
  } else {
    s->batches_ = loader::BatchStream::over(s->pipeline_, workers, o.epoch, o.start_batch, [w = s->wakeup_] { w->signal(); });
  }
  return s;
}

// The transport benchmark's batch: filled once, by the stream's first fill (on a worker: a big
// batch would hold the socket thread, and every client with it, for seconds), then copied by every
// fill. can_start() lets no second fill begin before it is made.
struct ServerStream::BenchmarkBatch {
  std::once_flag once;
  std::atomic<bool> made{false};
  Status status;                // of the first fill; a failure fails every batch of the stream
  loader::BatchInfo info;
  uint8_t* source = nullptr;    // frames: the pool's fixed buffer; shared memory: `bytes`
  std::vector<uint8_t> bytes;   // allocated by the first fill, after the daemon's memory budget check
};

Status ServerStream::make_benchmark_batch() {
  const OpenStream& o = config_.request;
  const size_t bytes = pipeline_->layout().slot_bytes;
  bench_ = std::make_shared<BenchmarkBatch>();
  if (pool_) {  // an untouched mapping until the first fill writes it
    TF_ASSIGN_OR_RETURN(std::optional<loader::Slot> slot, pool_->acquire());
    bench_->source = slot->data;
    pool_->fix_first_buffer();
  }
  loader::BatchStream::CancellableFill fill = [bench = bench_, pipeline = pipeline_, workers = &workers_, bytes,
                                               first = std::pair(o.epoch, o.start_batch)](
                                                  uint64_t e, uint64_t b, uint8_t* slot, loader::BatchInfo& out,
                                                  const loader::CancelToken& cancel) {
    std::call_once(bench->once, [&] {
      if (!bench->source) {
        bench->bytes.resize(bytes);
        bench->source = bench->bytes.data();
      }
      bench->status = pipeline->fill(first.first, first.second, bench->source, bench->info, *workers, &cancel);
      bench->made = true;
    });
    if (!bench->status.ok()) return bench->status;
    if (slot != bench->source) std::memcpy(slot, bench->source, bytes);
    out = bench->info;
    out.epoch = e;
    out.batch = b;
    return Status();
  };
  batches_ = std::make_unique<loader::BatchStream>(std::move(fill), pipeline_->sampler().batches_per_epoch(), workers_,
                                                   o.epoch, o.start_batch, [w = wakeup_] { w->signal(); });
  return Status();
}

StreamOpened ServerStream::opened() const {
  const loader::BatchLayout& l = pipeline_->layout();
  StreamOpened o{config_.id,    pipeline_->sampler().batches_per_epoch(),
                 pipeline_->source().size(), l.slot_bytes,
                 descriptors(l, static_cast<size_t>(l.batch_size)), static_cast<uint32_t>(config_.max_credits)};
  if (token_) o.memory_token.assign(token_->begin(), token_->end());
  o.dataset_fingerprint = pipeline_->source().fingerprint();
  return o;
}

const MemoryToken* ServerStream::awaiting_memory() const {
  return token_ && !deposited_.valid() && !shm_ ? &*token_ : nullptr;
}

void ServerStream::deposit(FileDescriptor fd) { deposited_ = std::move(fd); }

Status ServerStream::attach(const AttachMemory& m) {
  if (config_.request.transport != WireTransport::kSharedMemory)
    return Status::invalid_argument("stream " + std::to_string(config_.id) + " was opened for frames, not shared memory");
  if (shm_) return Status::invalid_argument("stream " + std::to_string(config_.id) + " already has its memory");
  const uint64_t slot_bytes = pipeline_->layout().slot_bytes;
  if (m.slots == 0 || m.slots > kMaxShmSlots)
    return Status::invalid_argument("AttachMemory: " + std::to_string(m.slots) + " slots is not in 1.." +
                                    std::to_string(kMaxShmSlots));
  if (m.slot_stride < slot_bytes || m.slot_stride % kPageBytes != 0 || m.slot_stride > (uint64_t{1} << 40))
    return Status::invalid_argument("AttachMemory: slot stride " + std::to_string(m.slot_stride) +
                                    " must be a multiple of 4096 and at least the slot size " +
                                    std::to_string(slot_bytes));
  if (!deposited_.valid())
    return Status::invalid_argument("AttachMemory: no memory descriptor came for stream " + std::to_string(config_.id) +
                                    " (send it to HelloReply.memorySocket with the stream's token first)");
  // One try per token: a descriptor that is refused is gone, and the stream ends with the error.
  token_.reset();
  TF_ASSIGN_OR_RETURN(shm_, ShmRegion::map_received(std::move(deposited_), static_cast<size_t>(m.slots * m.slot_stride)));
  slot_stride_ = m.slot_stride;
  owner_.assign(m.slots, SlotOwner::kClient);
  return Status();
}

Status ServerStream::credit(const Credit& c) {
  if (config_.request.transport == WireTransport::kSharedMemory) {
    if (!shm_) return Status::invalid_argument("Credit before AttachMemory on a shared-memory stream");
    if (c.count != 0) return Status::invalid_argument("a shared-memory stream is credited with slots, not a count");
    // All or nothing: every slot is checked (a slot named twice in this Credit included) before any
    // is taken, so that two fills can never be given the same slot.
    std::vector<bool> named(owner_.size(), false);
    for (uint32_t id : c.slots) {
      if (id >= owner_.size() || owner_[id] != SlotOwner::kClient)
        return Status::invalid_argument("slot " + std::to_string(id) + " is not the client's to credit (of " +
                                        std::to_string(owner_.size()) + "; credited twice, or being filled)");
      if (named[id])
        return Status::invalid_argument("slot " + std::to_string(id) + " is named twice in one Credit");
      named[id] = true;
    }
    for (uint32_t id : c.slots) {
      owner_[id] = SlotOwner::kCredited;
      credited_.push_back(id);
    }
    return Status();
  }
  if (!c.slots.empty()) return Status::invalid_argument("a frames stream is credited with a count, not slots");
  const uint64_t total = uint64_t{credits_} + batches_->in_flight() + c.count;
  if (total > static_cast<uint64_t>(config_.max_credits))
    return Status::overloaded("more than " + std::to_string(config_.max_credits) + " batches in flight requested");
  credits_ += c.count;
  return Status();
}

bool ServerStream::can_start() const {
  if (bench_ && !bench_->made.load() && batches_->in_flight() > 0) return false;
  return config_.request.transport == WireTransport::kSharedMemory ? !credited_.empty() : credits_ > 0;
}

Status ServerStream::start_one() {
  if (config_.request.transport == WireTransport::kSharedMemory) {
    const uint32_t id = credited_.front();
    credited_.pop_front();
    owner_[id] = SlotOwner::kDaemon;
    batches_->start({id, shm_->data() + id * slot_stride_});
    return Status();
  }
  TF_ASSIGN_OR_RETURN(std::optional<loader::Slot> slot, pool_->acquire());
  if (!slot) return Status();  // every buffer is being filled or sent; a freed one wakes the loop
  --credits_;
  batches_->start(*slot);
  return Status();
}

std::optional<Outgoing> ServerStream::next_outgoing(std::chrono::steady_clock::time_point now) {
  std::optional<loader::ReadyBatch> r = batches_->pop();
  if (!r) return std::nullopt;
  Outgoing out;
  const bool shm = config_.request.transport == WireTransport::kSharedMemory;
  if (!r->status.ok()) {
    out.error = r->status;
    if (shm) owner_[r->slot.id] = SlotOwner::kClient;
    else pool_->release(r->slot.id);
    return out;
  }
  const size_t rows = r->info.indices.size();
  BatchHeader& h = out.header;
  h.stream_id = config_.id;
  h.epoch = r->info.epoch;
  h.batch = r->info.batch;
  h.slot = shm ? r->slot.id : 0;
  h.tensors = descriptors(pipeline_->layout(), rows);
  h.indices = std::move(r->info.indices);
  for (auto& e : r->info.errors) h.errors.push_back({e.index, e.replaced_by, e.code, std::move(e.message)});
  if (shm) owner_[r->slot.id] = SlotOwner::kClient;
  else out.payload = pool_->messages(r->slot.id, h.tensors);
  out.end_of_epoch = h.batch + 1 == batches_->batches_per_epoch();
  ++batches_sent_;
  samples_sent_ += rows;
  skipped_ += h.errors.size();
  rate_.add(static_cast<double>(rows), now);
  return out;
}

void ServerStream::discard_finished() {
  while (std::optional<loader::ReadyBatch> r = batches_->pop()) {
    if (config_.request.transport == WireTransport::kSharedMemory) owner_[r->slot.id] = SlotOwner::kClient;
    else pool_->release(r->slot.id);
  }
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
  s.credits_outstanding = o.transport == WireTransport::kSharedMemory ? static_cast<uint32_t>(credited_.size())
                                                                      : credits_;
  s.in_flight = static_cast<uint32_t>(batches_->in_flight());
  s.epoch = batches_->next_epoch();
  s.next_batch = batches_->next_batch();
  s.transport = o.transport;
  s.client = config_.client_name;
  s.stage_ms = stage_ms_per_sample(pipeline_->counters().stages);
  return s;
}

}  // namespace textfeed::transport::internal
