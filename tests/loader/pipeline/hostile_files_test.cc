// Image files that are not what their names promise — folders, FIFOs, JPEGs whose header poisons
// a decoder, images of extreme aspect — reach read_file and the batch pipeline: each is a bad
// sample with its file and reason, replaced by policy; nothing blocks, aborts or fails a batch.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include "loader/decode/decode.h"
#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/producer.h"
#include "loader/sources/dataset_source.h"
#include "tests/loader/test_images.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;
using testing::encoded_image;
using testing::ScratchDir;

// Runs `body` on another thread with a deadline. If it is still running then, it is blocked in an
// open() of `fifo`: a writer unblocks it and the test fails (instead of hanging).
template <class F>
auto with_deadline(const fs::path& fifo, F body) {
  auto done = std::async(std::launch::async, body);
  if (done.wait_for(std::chrono::seconds(10)) == std::future_status::timeout) {
    ADD_FAILURE() << "blocked on the FIFO " << fifo;
    for (int i = 0;
         i < 100 && done.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout;
         ++i) {
      const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (w >= 0) ::close(w);
    }
  }
  return done.get();
}

TEST(ReadFileTest, AFolderIsRefusedNotSizedByFtell) {
  ScratchDir dir;
  std::vector<uint8_t> out;
  const Status s = read_file(dir.path().string(), out);  // ftell of a folder is LONG_MAX: bad_alloc
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("is a folder"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(dir.path().string()), std::string::npos);
}

TEST(ReadFileTest, AFifoIsRefusedWithoutBlocking) {
  ScratchDir dir;
  const fs::path fifo = dir.path() / "x.jpg";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const Status s = with_deadline(fifo, [&] {
    std::vector<uint8_t> out;
    return read_file(fifo.string(), out);
  });
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s.to_string();
  EXPECT_NE(s.message().find("is a FIFO"), std::string::npos) << s.message();
}

TEST(ReadFileTest, DevicesAndOversizedFilesAreRefused) {
  std::vector<uint8_t> out;
  EXPECT_EQ(read_file("/dev/zero", out).code(), Code::kInvalidArgument);
  ScratchDir dir;
  testing::write_bytes(dir.path() / "big.jpg", std::vector<uint8_t>(4096, 0xFF));
  const Status s = read_file((dir.path() / "big.jpg").string(), out, 4095);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("over the limit"), std::string::npos) << s.message();
}

// A UFO dataset whose image names are good JPEGs, then every kind of hostile file.
class HostilePipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path images = dir_.path() / "images";
    for (int i = 0; i < 6; ++i)
      testing::write_bytes(images / ("good" + std::to_string(i) + ".jpg"),
                           encoded_image(".jpg", 64, 48, i));
    testing::write_bytes(images / "wide.jpg", encoded_image(".jpg", 3000, 1));
    testing::write_bytes(images / "poison.jpg",
                         testing::with_frame_size(encoded_image(".jpg", 64, 48), 65535, 65535));
    testing::write_bytes(images / "pic.tif", encoded_image(".tif", 64, 48));
    testing::write_bytes(images / "pic.bmp", encoded_image(".bmp", 64, 48));
    testing::write_bytes(images / "pic.webp", encoded_image(".webp", 64, 48));
  }

  std::shared_ptr<const SampleSource> source(const std::vector<std::string>& names) {
    testing::write_text(dir_.path() / "ufo" / "train.json", testing::ufo_json(names));
    auto s = SampleSource::open((dir_.path() / "ufo" / "train.json").string(), {});
    EXPECT_TRUE(s.has_value()) << s.error().to_string();
    // Made once the index was read: a name that is a folder or a FIFO then is left out by the
    // reader (HostileReaderTest); one that becomes one later is the decoder's to refuse.
    const fs::path images = dir_.path() / "images";
    fs::create_directories(images / "sub");
    EXPECT_EQ(::mkfifo((images / "fifo.jpg").c_str(), 0600), 0);
    return *s;
  }

  // One batch of every sample, in order, on one thread (so a poisoned decoder would be reused).
  Status fill_all(std::shared_ptr<const SampleSource> src, BatchInfo& info) {
    PipelineSpec o;
    o.augment = augment::profile_defaults(augment::Profile::kUpstage);
    o.augment.crop_size = 64;
    o.sampler.batch_size = static_cast<int>(src->size());
    o.sampler.shuffle = false;
    auto p = BatchPipeline::create(src, o);
    EXPECT_TRUE(p.has_value()) << p.error().to_string();
    std::vector<uint8_t> slot((*p)->layout().slot_bytes);
    WorkerPool pool(1);
    return with_deadline(dir_.path() / "images" / "fifo.jpg",
                         [&] { return (*p)->fill(0, 0, slot.data(), info, pool); });
  }

  ScratchDir dir_;
};

TEST_F(HostilePipelineTest, EveryHostileImageIsABadSampleReplacedAndNamed) {
  const std::vector<std::string> names = {
      "good0.jpg", "sub",       "good1.jpg", "fifo.jpg", "good2.jpg", "poison.jpg", "good3.jpg",
      "wide.jpg",  "good4.jpg", "pic.tif",   "pic.bmp",  "pic.webp",  "good5.jpg"};
  auto src = source(names);
  BatchInfo info;
  const Status s = fill_all(src, info);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(info.errors.size(), 4u);
  for (const std::string bad : {"sub", "fifo.jpg", "poison.jpg", "wide.jpg"}) {
    const auto e = std::find_if(info.errors.begin(), info.errors.end(), [&](const SampleError& x) {
      return src->name(x.index) == "images/" + bad;
    });
    ASSERT_NE(e, info.errors.end()) << bad;
    EXPECT_NE(e->message.find(bad), std::string::npos) << e->message;
    EXPECT_NE(e->replaced_by, e->index) << bad;
    // The replacement is a readable sample: no later sample was spoiled by this one.
    EXPECT_TRUE(std::none_of(info.errors.begin(), info.errors.end(),
                             [&](const SampleError& x) { return x.index == e->replaced_by; }));
  }
  const auto message = [&](const std::string& bad) {
    for (const SampleError& e : info.errors)
      if (src->name(e.index) == "images/" + bad) return e.message;
    return std::string();
  };
  EXPECT_NE(message("sub").find("is a folder"), std::string::npos) << message("sub");
  EXPECT_NE(message("fifo.jpg").find("is a FIFO"), std::string::npos) << message("fifo.jpg");
  EXPECT_NE(message("wide.jpg").find("aspect ratio"), std::string::npos) << message("wide.jpg");
}

TEST_F(HostilePipelineTest, NoReadableReplacementNamesEveryFileTriedAndWhy) {
  auto src = source({"sub", "fifo.jpg", "poison.jpg"});
  BatchInfo info;
  const Status s = fill_all(src, info);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no readable replacement"), std::string::npos) << s.message();
  for (const char* what :
       {"images/sub is a folder", "images/fifo.jpg is a FIFO", "poison.jpg: bad JPEG header"})
    EXPECT_NE(s.message().find(what), std::string::npos) << what << " in: " << s.message();
}

// Run in a child process under an address-space limit: a JPEG whose header (10000 x 10000, within
// max_pixels) asks for 300 MB of pixels that the limit does not allow. The allocation throws
// std::bad_alloc; produce() must turn it into that sample's error (inside a parallel body an
// exception fails the whole batch), not let it escape.
void produce_under_a_memory_limit(const fs::path& image) {
  rlimit limit{};
  ::getrlimit(RLIMIT_AS, &limit);
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  limit.rlim_cur = pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) + (uint64_t{150} << 20);
  if (::setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(3);
  Dataset ds;
  ds.root = image.parent_path().string();
  ds.samples.push_back(SampleRecord{image.filename().string(), "", {}, {}, {}, {}, 0, 0});
  augment::AugmentOptions o = augment::profile_defaults(augment::Profile::kSakura);
  SampleProducer producer(std::make_shared<const DatasetSource>(std::move(ds)), o,
                          DecodeOptions{.windows = false});
  std::vector<uint8_t> image_buf(3 * o.crop_size * o.crop_size * sizeof(float));
  const int m = o.map_size();
  std::vector<float> score(m * m), geo(5 * m * m), mask(m * m);
  auto view = [](void* p, int h, int w, DType t, int elem) {
    return MutableImageView{static_cast<uint8_t*>(p), h, w, 1, static_cast<ptrdiff_t>(w) * elem, t};
  };
  const MutableImageView maps[] = {view(score.data(), m, m, DType::kF32, 4),
                                   view(geo.data(), 5 * m, m, DType::kF32, 4),
                                   view(mask.data(), m, m, DType::kF32, 4)};
  const SampleOutputs out{view(image_buf.data(), 3 * o.crop_size, o.crop_size, DType::kF32, 4),
                          maps};
  const Status s = producer.produce(0, 0, 0, out);
  std::fprintf(stderr, "%s\n", s.to_string().c_str());
  std::error_code ec;
  fs::remove_all(image.parent_path(),
                 ec);  // the child's own scratch folder: _Exit runs no destructor
  std::_Exit(s.code() == Code::kInternal && s.message().find("huge.jpg") != std::string::npos ? 0
                                                                                              : 1);
}

TEST(ProducerTest, AnAllocationThatFailsIsThatSamplesErrorNotAnException) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer aborts on a failed allocation instead of throwing";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "AddressSanitizer aborts on a failed allocation instead of throwing";
#endif
#endif
  ScratchDir dir;
  const fs::path image = dir.path() / "huge.jpg";
  testing::write_bytes(image,
                       testing::with_frame_size(encoded_image(".jpg", 64, 48), 10000, 10000));
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(produce_under_a_memory_limit(image), ::testing::ExitedWithCode(0),
              "Internal: sample 0 .*huge.jpg");
}

}  // namespace
}  // namespace textfeed::loader
