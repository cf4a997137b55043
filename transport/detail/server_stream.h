// ServerStream: the daemon's state for one client stream: its pipeline, the batches being filled
// (a BatchStream), where they are written (the client's shared-memory slots, or daemon-side frame
// buffers), its credits and its counters. The server's socket thread owns it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "loader/batch_stream.h"
#include "loader/pipeline.h"
#include "loader/worker_pool.h"
#include "transport/detail/frame_pool.h"
#include "transport/shm.h"
#include "transport/wire.h"

namespace textfeed::transport::internal {

// Delivery rate, exponentially weighted over about `tau` seconds.
class RateMeter {
 public:
  void add(double samples, std::chrono::steady_clock::time_point now);
  double rate(std::chrono::steady_clock::time_point now) const;

 private:
  static constexpr double kTau = 5.0;
  double rate_ = 0;
  std::chrono::steady_clock::time_point last_{};
  bool started_ = false;
};

// Stats.stageNames, and ms per sample in that order.
std::vector<std::string> stage_names();
std::vector<double> stage_ms_per_sample(const loader::StageTimes& times);

// A finished batch ready to send: the header and, for frames, the payload.
struct Outgoing {
  BatchHeader header;
  std::vector<zmq::message_t> payload;
  bool end_of_epoch = false;
  Status error;  // not OK: the fill failed; send it as the stream's Error and end the stream
};

// Not thread-safe: the server's socket thread calls everything. Fills run on the arena.
class ServerStream {
 public:
  struct Config {
    uint64_t id = 0;
    std::string peer, client_name, dataset;
    OpenStream request;
    int max_credits = 16;
    int frame_buffers = 3;
  };
  // Errors: those of the pipeline (kInvalidArgument), kInvalidArgument (start batch past the
  // epoch, a slot larger than `max_slot_bytes`).
  static Result<std::unique_ptr<ServerStream>> create(Config config, std::shared_ptr<const loader::SampleSource> source,
                                                      loader::WorkerPool& workers, std::shared_ptr<Wakeup> wakeup,
                                                      size_t max_slot_bytes);
  ~ServerStream();

  uint64_t id() const { return config_.id; }
  const std::string& peer() const { return config_.peer; }
  const Config& config() const { return config_; }
  StreamOpened opened() const;

  // sharedMemory streams waiting for the client's memory: the token its descriptor must come with;
  // nullptr once a descriptor came (or for a frames stream).
  const MemoryToken* awaiting_memory() const;
  // Whether the stream's one memory hand-over was refused (by attach()): it can never get memory.
  bool memory_refused() const { return config_.request.transport == WireTransport::kSharedMemory && !token_ && !shm_; }
  // Keeps the descriptor that came with this stream's token, for attach().
  void deposit(FileDescriptor fd);
  // sharedMemory streams: maps the deposited descriptor as the client's slots. Errors:
  // kInvalidArgument (no descriptor came, not a sealed memory file, too small, bad slot sizes),
  // kIo.
  Status attach(const AttachMemory& m);
  // Errors: kInvalidArgument (a slot not the client's to give, named twice, memory not attached,
  // a frames stream given slots), kOverloaded (more credit than max_credits).
  Status credit(const Credit& c);
  // Whether a fill could start now (a credited slot or buffer is free; a transport benchmark's
  // first fill, which makes the batch the others copy, has finished).
  bool can_start() const;
  // Starts one fill, if a buffer is free. Errors: kOverloaded (no memory for a frame buffer): the
  // stream cannot go on.
  Status start_one();
  // Fills started and not yet handed out.
  size_t in_flight() const { return batches_->in_flight(); }
  size_t running() const { return batches_->running(); }
  // The next finished batch in order, if any.
  std::optional<Outgoing> next_outgoing(std::chrono::steady_clock::time_point now);
  // Gives back the memory of batches that will not be sent (after a close); waits for nothing.
  void discard_finished();
  // Makes every running fill end after its current sample (BatchStream::cancel); their batches
  // come out failed with kCancelled.
  void cancel_fills() { batches_->cancel(); }
  // Bytes of daemon memory the stream may hold at once (frame buffers); what the daemon-wide
  // budget counts.
  size_t memory_bytes() const { return memory_bytes_; }

  uint64_t batches_sent() const { return batches_sent_; }
  StreamStats stats(std::chrono::steady_clock::time_point now) const;
  loader::PipelineCounters counters() const { return pipeline_->counters(); }

 private:
  ServerStream(Config config, std::shared_ptr<loader::BatchPipeline> pipeline, loader::WorkerPool& workers,
               std::shared_ptr<Wakeup> wakeup);
  Status make_benchmark_batch();

  Config config_;
  std::shared_ptr<loader::BatchPipeline> pipeline_;
  loader::WorkerPool& workers_;
  std::shared_ptr<Wakeup> wakeup_;
  std::unique_ptr<loader::BatchStream> batches_;
  // sharedMemory: the client's slots and who holds each.
  enum class SlotOwner : unsigned char { kClient, kCredited, kDaemon };
  std::unique_ptr<ShmRegion> shm_;
  std::optional<MemoryToken> token_;  // until a descriptor comes
  FileDescriptor deposited_;                // until attach() maps it
  uint64_t slot_stride_ = 0;
  std::vector<SlotOwner> owner_;
  std::deque<uint32_t> credited_;
  // frames
  std::shared_ptr<FramePool> pool_;
  uint32_t credits_ = 0;
  // transport benchmark: the one batch every fill copies, made by the stream's first fill
  struct BenchmarkBatch;
  std::shared_ptr<BenchmarkBatch> bench_;

  size_t memory_bytes_ = 0;
  uint64_t batches_sent_ = 0, samples_sent_ = 0, skipped_ = 0;
  RateMeter rate_;
};

}  // namespace textfeed::transport::internal
