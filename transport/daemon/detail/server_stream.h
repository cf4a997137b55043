// ServerStream: the daemon's state for one client stream: its pipeline, the batches being filled
// (a BatchStream), where they are written and how they leave (StreamSlots: the client's
// shared-memory slots, or daemon-side frame buffers), and its counters. The server's socket
// thread owns it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "loader/pipeline/batch_stream.h"
#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/worker_pool.h"
#include "transport/daemon/detail/stream_slots.h"
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

// Not thread-safe: the server's socket thread calls everything. Fills run on the worker pool.
class ServerStream {
 public:
  struct Config {
    uint64_t id = 0;
    std::string peer, client_name, dataset;
    OpenStream request;
    loader::DecodeOptions decode;  // the daemon's own limits (a client's spec does not carry them)
    int max_credits = 16;
    int frame_buffers = 3;
  };
  // Errors: those of loader::validate() and the pipeline (kInvalidArgument), kInvalidArgument
  // (start batch past the epoch, a slot larger than `max_slot_bytes`).
  static Result<std::unique_ptr<ServerStream>> create(
      Config config, std::shared_ptr<const loader::SampleSource> source,
      loader::WorkerPool& workers, std::shared_ptr<Wakeup> wakeup, size_t max_slot_bytes);
  ~ServerStream();

  uint64_t id() const { return config_.id; }
  const std::string& peer() const { return config_.peer; }
  const Config& config() const { return config_; }
  StreamOpened opened() const;

  // The shared-memory hand-over (StreamSlots): a frames stream never awaits memory, and its
  // attach() fails.
  const MemoryToken* awaiting_memory() const { return slots_->awaiting_memory(); }
  bool memory_refused() const { return slots_->memory_refused(); }
  void deposit(FileDescriptor fd) { slots_->deposit(std::move(fd)); }
  Status attach(const AttachMemory& m) { return slots_->attach(m); }
  // Takes a Credit; returns how many more fills it allows (StreamSlots::credit). An assigned
  // stream's Credit names one existing batch per slot or count, a sequential stream's none.
  // Errors: StreamSlots::credit's, kInvalidArgument (the batches, checked before anything is
  // taken).
  Result<uint32_t> credit(const Credit& c);
  // Starts one fill if a slot is free; false when none is (a freed one wakes the loop).
  // Errors: kOverloaded (no memory for a frame buffer): the stream cannot go on.
  Result<bool> start_one();
  // Fills started and not yet handed out.
  size_t in_flight() const { return batches_->in_flight(); }
  size_t running() const { return batches_->running(); }
  // The next finished batch in order, if any.
  std::optional<Outgoing> next_outgoing(std::chrono::steady_clock::time_point now);
  // Gives back the memory of batches that will not be sent (after a close); waits for nothing.
  // Returns how many there were.
  size_t discard_finished();
  // Makes every running fill end after its current sample (BatchStream::cancel); their batches
  // come out failed with kCancelled.
  void cancel_fills() { batches_->cancel(); }
  // Bytes of daemon memory the stream may hold at once (frame buffers); what the daemon-wide
  // budget counts.
  size_t memory_bytes() const { return slots_->memory_bytes(); }

  uint64_t batches_sent() const { return batches_sent_; }
  StreamStats stats(std::chrono::steady_clock::time_point now) const;
  loader::PipelineCounters counters() const { return pipeline_->counters(); }

 private:
  ServerStream(Config config, std::shared_ptr<loader::BatchPipeline> pipeline,
               std::unique_ptr<StreamSlots> slots);

  Config config_;
  std::shared_ptr<loader::BatchPipeline> pipeline_;
  std::unique_ptr<StreamSlots> slots_;
  std::unique_ptr<loader::BatchStream>
      batches_;                    // after slots_: destroyed first, its fills write there
  std::deque<Position> assigned_;  // assigned streams: the batches credited and not yet started
  uint64_t compact_bytes_ = 0;     // payload compact: a full batch's crops; 0: full batches
  uint64_t batches_sent_ = 0, samples_sent_ = 0, skipped_ = 0;
  RateMeter rate_;
};

}  // namespace textfeed::transport::internal
