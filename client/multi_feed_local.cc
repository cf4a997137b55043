// MultiFeed::open(): what the remote client cannot make, made here for open_with(): this process's
// threads as a producer (LocalProducer over a BatchPipeline) and the compact payload's finishers
// (over loader::CompactExpander).
#include "client/detail/local_parts.h"
#include "client/detail/local_producer.h"
#include "client/embedded_feed.h"
#include "client/multi_feed.h"
#include "loader/pipeline/compact_expander.h"
#include "loader/pipeline/worker_pool.h"

namespace textfeed::client {

namespace {

class ExpanderFinisher final : public internal::CompactFinisher {
 public:
  explicit ExpanderFinisher(std::unique_ptr<loader::CompactExpander> e) : e_(std::move(e)) {}
  int crop_size() const override { return e_->layout().crop_size; }
  int batch_size() const override { return e_->layout().batch_size; }
  Status expand(const uint8_t* crops, std::span<const CompactRow> rows, uint8_t* slot) override {
    return e_->expand(crops, rows, slot);
  }

 private:
  std::unique_ptr<loader::CompactExpander> e_;
};

// The local threads' producer, over a pipeline of `spec` from `source`.
Status add_local_threads(const MultiOptions& o, internal::LocalParts& parts) {
  TF_RETURN_IF_ERROR(loader::check_worker_threads(o.local_threads).with_context("local_threads"));
  if (!o.local_source) return Status::invalid_argument("local_threads without a local dataset");
  TF_ASSIGN_OR_RETURN(std::unique_ptr<loader::BatchPipeline> p,
                      loader::BatchPipeline::create(o.local_source, o.local_spec));
  std::shared_ptr<loader::BatchPipeline> pipeline = std::move(p);
  parts.local_layout = feed_layout(*pipeline);
  parts.make_local =
      [pipeline, threads = o.local_threads, prefetch = o.prefetch, slice = o.client.wait_slice](
          internal::ProducerHost& host, size_t id) -> Result<std::unique_ptr<internal::Producer>> {
    TF_ASSIGN_OR_RETURN(std::unique_ptr<loader::WorkerPool> pool,
                        loader::WorkerPool::create(threads));
    return std::unique_ptr<internal::Producer>(std::make_unique<internal::LocalProducer>(
        host, id, std::move(pool), pipeline, prefetch, slice));
  };
  return Status();
}

}  // namespace

Result<std::unique_ptr<MultiFeed>> MultiFeed::open(const MultiOptions& options) {
  TF_RETURN_IF_ERROR(internal::check_multi_options(options));
  internal::LocalParts parts;
  if (options.payload == transport::Payload::kCompact) {
    TF_RETURN_IF_ERROR(loader::compact_supported(options.spec).with_context("payload 'compact'"));
    parts.make_finisher =
        [spec = options.spec]() -> Result<std::unique_ptr<internal::CompactFinisher>> {
      TF_ASSIGN_OR_RETURN(std::unique_ptr<loader::CompactExpander> e,
                          loader::CompactExpander::create(spec));
      return std::unique_ptr<internal::CompactFinisher>(
          std::make_unique<ExpanderFinisher>(std::move(e)));
    };
  }
  if (options.local_threads > 0) TF_RETURN_IF_ERROR(add_local_threads(options, parts));
  return open_with(options, parts);
}

}  // namespace textfeed::client
