// LocalProducer: a BatchStream over the feed's ring, filling what the feed hands out.
#include "client/detail/local_producer.h"

namespace textfeed::client::internal {

void LocalProducer::Signal::raise() {
  {
    std::lock_guard<std::mutex> lock(mu);
    raised = true;
  }
  cv.notify_all();
}

LocalProducer::LocalProducer(ProducerHost& host, size_t id,
                             std::unique_ptr<loader::WorkerPool> pool,
                             std::shared_ptr<loader::BatchPipeline> pipeline, uint32_t prefetch,
                             std::chrono::milliseconds wait_slice)
    : host_(host),
      id_(id),
      prefetch_(prefetch),
      wait_slice_(wait_slice),
      pool_(std::move(pool)),
      pipeline_(std::move(pipeline)) {
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
  while (!stop_ && !host_.stopping()) {
    while (std::optional<loader::ReadyBatch> r = stream_->pop()) {
      const Work w = outstanding_.front();
      outstanding_.pop_front();
      if (!r->status.ok()) {
        host_.failed(id_, w.ticket, r->status);
        continue;
      }
      host_.finished(id_, w.ticket, FeedBatch{std::move(r->info), w.slot});
    }
    for (const Work& w : host_.take_work(id_, prefetch_)) {
      stream_->start_at({w.slot, host_.ring().slot(w.slot)}, w.position.epoch, w.position.batch);
      outstanding_.push_back(w);
    }
    std::unique_lock<std::mutex> lock(signal_->mu);
    signal_->cv.wait_for(lock, wait_slice_, [&] { return signal_->raised; });
    signal_->raised = false;
  }
}

}  // namespace textfeed::client::internal
