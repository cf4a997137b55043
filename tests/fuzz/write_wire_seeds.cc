// Writes the wire fuzz target's seed corpus: one encoded Envelope per message kind, with lists
// and strings filled, so mutations start from every branch of the decoder. Run by
// tests/fuzz/make_corpus.sh; the output is checked in under tests/fuzz/corpus/wire/.
// Usage: textfeed_fuzz_wire_seeds OUT_DIR
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "transport/wire.h"

namespace textfeed::transport {
namespace {

std::vector<std::pair<std::string, Message>> seed_messages() {
  OpenStream open;
  open.spec = loader::default_spec(augment::Profile::kSakura, "train");
  open.spec.augment.crop_size = 768;
  open.spec.augment.dtype = DType::kU8;
  open.spec.sampler.seed = 7;
  open.spec.sampler.world_size = 2;
  open.spec.on_bad_sample = loader::OnBadSample::kFail;
  open.transport = Transport::kSharedMemory;
  OpenStream bc7;  // protocol 4's colour ranges and arithmetic
  bc7.spec = loader::default_spec(augment::Profile::kBc7, "train");
  bc7.spec.augment.brightness = {0.25, 1.5};
  bc7.spec.augment.hue = {-0.5, 0.125};
  bc7.spec.augment.color_math = augment::ColorMath::kAlbumentations131;
  const TensorDesc image{
      "image", DType::kF32, {8, 3, 512, 512}, 0, 8ull * 3 * 512 * 512 * 4, 3ull * 512 * 512 * 4};
  const TensorDesc score{"score_map", DType::kU8,       {8, 1, 128, 128},
                         4096,        8ull * 128 * 128, 128ull * 128};
  BatchHeader batch{{2, 41, {5, 7, 11}}, 9, 3, {image, score}};
  batch.errors = {{7, 12, Code::kCorrupt, "images/img_7.jpg: JPEG decode failed"}};
  BatchHeader eval_batch{{0, 1, {2, 4}}, 9, 0, {image}};
  eval_batch.samples = {
      {"images/img_2.jpg", 720, 1280, 1.0, 704.0 / 720, {1, 2, 3, 2, 3, 4, 1, 4}, {4}, {0}},
      {"images/img_4.jpg", 720, 1280, 1.0, 704.0 / 720, {1, 1, 5, 1, 6, 2, 5, 3, 1, 3}, {5}, {1}}};
  open.spec.mode = loader::Mode::kEval;
  open.spec.on_bad_sample = loader::OnBadSample::kFail;
  OpenStream compact_open;
  compact_open.spec = loader::default_spec(augment::Profile::kUpstage, "train");
  compact_open.assigned = true;
  compact_open.payload = Payload::kCompact;
  BatchHeader compact_batch{{1, 3, {5, 6}}, 9, 0, {compact_tensor(2, 512)}};
  compact_batch.compact.resize(2);
  compact_batch.compact[0].color = {
      true, 1.25,  0.75,
      1.5,  0.125, {ColorOp::kSaturation, ColorOp::kHue, ColorOp::kBrightness, ColorOp::kContrast}};
  compact_batch.compact[0].quads = {10, 20,  110, 20,  110, 60,  10, 60,
                                    -5, 500, 40,  500, 40,  530, -5, 530};
  compact_batch.compact[0].labels = {1, 0};
  Stats stats;
  stats.samples_per_second = 123.5;
  stats.stage_names = {"read", "decode", "warp"};
  stats.stage_ms = {0.25, 24.5, 3};
  stats.threads = 2;
  StreamStats stream;
  stream.stream_id = 4;
  stream.dataset = "train";
  stream.client = "rank 1";
  stream.stage_ms = {0.5, 20};
  stats.streams = {stream};
  return {
      {"hello", Hello{kProtocolVersion, "rank 0", 0xfeedbeef}},
      {"hello_reply", HelloReply{kProtocolVersion, "daemon", {"train", "val"}}},
      {"open_stream", open},
      {"open_stream_bc7", bc7},
      {"stream_opened", StreamOpened{9, 125, 1000, 1 << 20, {image, score}, 4}},
      {"credit", Credit{9, {0, 1, 2}, 3}},
      {"assigned_credit", Credit{9, {4, 1}, 0, {{2, 7}, {0, 3}}}},
      {"open_stream_compact", compact_open},
      {"compact_batch", compact_batch},
      {"batch", batch},
      {"eval_batch", eval_batch},
      {"end_of_epoch", EndOfEpoch{9, 4}},
      {"error", ErrorReply{Code::kNotFound, "no dataset 'x'", 9}},
      {"close", Close{9}},
      {"heartbeat", Heartbeat{1700000000000}},
      {"attach_memory", AttachMemory{9, 4, 1 << 20}},
      {"memory_attached", MemoryAttached{9}},
      {"closed", Closed{9, 77}},
      {"stats_request", StatsRequest{}},
      {"stats", stats},
  };
}

}  // namespace
}  // namespace textfeed::transport

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  for (const auto& [name, message] : textfeed::transport::seed_messages()) {
    const auto bytes = textfeed::transport::encode(message);
    if (!bytes.has_value()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), bytes.error().to_string().c_str());
      return 1;
    }
    const std::string path = std::string(argv[1]) + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes->data(), 1, bytes->size(), f) != bytes->size() ||
        std::fclose(f) != 0) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
