// Daemon and client over ipc: two ranks cover an epoch; batches equal the in-process pipeline's;
// a stream restarted at batch k continues exactly; bad requests get Error replies and the daemon
// serves on.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <thread>

#include "loader/pipeline.h"
#include "transport/connection.h"
#include "transport/server.h"

namespace textfeed::transport {
namespace {

using namespace std::chrono_literals;
const std::string kSample = std::string(TEXTFEED_SHARED_DIR) + "/data/icdar15-sample";

class E2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto src = loader::SampleSource::open(kSample, {});
    ASSERT_TRUE(src.has_value());
    source_ = *src;
    ServerOptions o;
    o.endpoint = "ipc:///tmp/textfeed-test-" + std::to_string(::getpid()) + ".sock";
    o.datasets["icdar"] = source_;
    o.max_credits = 4;
    auto s = Server::create(o, arena_);
    ASSERT_TRUE(s.has_value()) << s.error().to_string();
    server_ = std::move(*s);
    thread_ = std::thread([this] { status_ = server_->run(stop_); });
  }
  void TearDown() override {
    stop_ = true;
    thread_.join();
    EXPECT_TRUE(status_.ok()) << status_.to_string();
  }
  std::unique_ptr<Connection> connect() {
    auto c = Connection::connect(server_->endpoint(), "test");
    EXPECT_TRUE(c.has_value()) << c.error().to_string();
    return std::move(*c);
  }
  OpenStream request(uint32_t rank, uint32_t world, uint64_t start = 0) {
    OpenStream o;
    o.dataset = "icdar";
    o.profile = "sakura";
    o.seed = 5;
    o.batch_size = 3;
    o.rank = rank;
    o.world_size = world;
    o.start_batch = start;
    return o;
  }

  tbb::task_arena arena_{2};
  std::shared_ptr<const loader::SampleSource> source_;
  std::unique_ptr<Server> server_;
  std::atomic<bool> stop_{false};
  Status status_;
  std::thread thread_;
};

TEST_F(E2eTest, TwoRanksCoverTheEpochWithIdenticalBatches) {
  std::map<uint32_t, int> seen;
  size_t batches[2];
  for (uint32_t rank = 0; rank < 2; ++rank) {
    auto c = connect();
    EXPECT_EQ(c->hello().datasets, std::vector<std::string>{"icdar"});
    auto opened = c->open(request(rank, 2));
    ASSERT_TRUE(opened.has_value()) << opened.error().to_string();
    batches[rank] = opened->batches_per_epoch;
    // The in-process pipeline with the same options, for byte equality.
    loader::PipelineOptions po;
    po.augment = augment::profile_defaults(augment::Profile::kSakura);
    po.sampler = {5, 3, static_cast<int>(rank), 2, true, false};
    auto local = loader::BatchPipeline::create(source_, po);
    ASSERT_TRUE(local.has_value());
    std::vector<uint8_t> remote_slot(opened->slot_bytes), local_slot(opened->slot_bytes);
    ASSERT_TRUE(c->credit(opened->stream_id, 2).ok());
    for (uint64_t b = 0; b < opened->batches_per_epoch; ++b) {
      auto h = c->receive(remote_slot, 60s);
      ASSERT_TRUE(h.has_value()) << h.error().to_string();
      EXPECT_EQ(h->batch, b);
      ASSERT_TRUE(c->credit(opened->stream_id, 1).ok());
      loader::BatchInfo info;
      ASSERT_TRUE((*local)->fill(0, b, local_slot.data(), info, arena_).ok());
      EXPECT_EQ(h->indices, info.indices);
      for (const TensorDescriptor& t : h->tensors)
        ASSERT_EQ(0, std::memcmp(remote_slot.data() + t.offset, local_slot.data() + t.offset, t.size)) << t.name;
      for (uint32_t i : h->indices) ++seen[i];
    }
    ASSERT_TRUE(c->close(opened->stream_id).ok());
  }
  EXPECT_EQ(batches[0], batches[1]);
  EXPECT_EQ(seen.size(), source_->size());  // every sample; 10 over 2 ranks needs no padding
  for (auto& [i, n] : seen) EXPECT_EQ(n, 1) << i;
}

TEST_F(E2eTest, RestartAtBatchKContinuesExactly) {
  auto c = connect();
  auto full = c->open(request(0, 1));
  ASSERT_TRUE(full.has_value());
  std::vector<uint8_t> a(full->slot_bytes), b(full->slot_bytes);
  ASSERT_TRUE(c->credit(full->stream_id, 3).ok());
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(c->receive(a, 60s).has_value());  // a holds batch 2
  auto again = c->open(request(0, 1, 2));
  ASSERT_TRUE(again.has_value());
  ASSERT_TRUE(c->credit(again->stream_id, 1).ok());
  auto h = c->receive(b, 60s);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->batch, 2u);
  EXPECT_EQ(a, b);
}

TEST_F(E2eTest, BadRequestsGetErrorsAndTheDaemonServesOn) {
  auto c = connect();
  auto garbage = c->send_raw_for_testing(std::vector<uint8_t>(24, 0xEE), 10s);
  ASSERT_TRUE(garbage.has_value());
  ASSERT_TRUE(std::holds_alternative<ErrorReply>(*garbage));
  EXPECT_EQ(std::get<ErrorReply>(*garbage).code, Code::kCorrupt);

  auto old = encode(Hello{999, "old"});
  auto version = c->send_raw_for_testing(*old, 10s);
  ASSERT_TRUE(version.has_value() && std::holds_alternative<ErrorReply>(*version));
  EXPECT_EQ(std::get<ErrorReply>(*version).code, Code::kUnimplemented);

  OpenStream unknown = request(0, 1);
  unknown.dataset = "nope";
  EXPECT_EQ(c->open(unknown).status().code(), Code::kNotFound);
  OpenStream absurd = request(0, 1);
  absurd.batch_size = 1u << 30;
  EXPECT_EQ(c->open(absurd).status().code(), Code::kInvalidArgument);
  OpenStream bad_rank = request(3, 2);
  EXPECT_EQ(c->open(bad_rank).status().code(), Code::kInvalidArgument);

  auto ok = c->open(request(0, 1));  // still serving
  ASSERT_TRUE(ok.has_value()) << ok.error().to_string();
  ASSERT_TRUE(c->credit(ok->stream_id, 100).ok());  // beyond max_credits
  std::vector<uint8_t> slot(ok->slot_bytes);
  EXPECT_EQ(c->receive(slot, 10s).status().code(), Code::kOverloaded);
}

}  // namespace
}  // namespace textfeed::transport
