// Issue 30: evaluation scores every image exactly once. No image is replaced in eval: one that
// cannot be used fails the pipeline when it is made (policy fail) or is a blank row reported
// missing (policy report); images that cannot fit the canvas are found at creation.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/worker_pool.h"
#include "loader/sources/source.h"
#include "tests/loader/test_images.h"

namespace textfeed::loader {
namespace {

using testing::ScratchDir;

// An ICDAR-2015 folder of JPEGs of these (w, h), one word each; a negative width writes a file
// whose header is damaged.
std::string make_dataset(const ScratchDir& dir, const std::vector<std::pair<int, int>>& sizes) {
  for (size_t i = 0; i < sizes.size(); ++i) {
    const auto [w, h] = sizes[i];
    const std::string name = "img_" + std::to_string(i);
    std::vector<uint8_t> jpeg = testing::encoded_image(".jpg", std::abs(w), h, static_cast<int>(i));
    if (w < 0) jpeg = testing::with_garbage_frame(jpeg);
    testing::write_bytes(dir.path() / "images" / (name + ".jpg"), jpeg);
    testing::write_text(dir.path() / "gt" / ("gt_" + name + ".txt"),
                        testing::icdar_line(std::abs(w), h));
  }
  return dir.path().string();
}

PipelineSpec eval_spec(augment::Profile profile, const std::string& path, int canvas,
                       OnBadSample policy) {
  PipelineSpec o = default_spec(profile, path);
  o.mode = Mode::kEval;
  o.augment.image_size = canvas;
  o.on_bad_sample = policy;
  o.sampler.batch_size = 4;
  return o;
}

struct Filled {
  Status status;
  BatchInfo info;
  std::vector<uint8_t> slot;
};

Filled fill_first(BatchPipeline& p) {
  Filled f;
  f.slot.assign(p.layout().slot_bytes, 0xAB);  // stale bytes a blank row must not keep
  WorkerPool pool(2);
  f.status = p.fill(0, 0, f.slot.data(), f.info, pool);
  return f;
}

bool row_is_zero(const BatchPipeline& p, const Filled& f, size_t row) {
  const TensorDesc& t = p.layout().image();
  const uint8_t* begin = f.slot.data() + t.offset_bytes + t.sample_bytes * row;
  return std::all_of(begin, begin + t.sample_bytes, [](uint8_t b) { return b == 0; });
}

TEST(EvalTest, NeverTakesSkipAndTrainingNeverTakesReport) {
  ScratchDir dir;
  const std::string path = make_dataset(dir, {{96, 64}});
  auto src = SampleSource::open(path, {});
  ASSERT_TRUE(src.has_value());
  PipelineSpec eval = eval_spec(augment::Profile::kUpstage, path, 256, OnBadSample::kSkip);
  EXPECT_NE(validate(eval).message().find("never replaces"), std::string::npos)
      << validate(eval).message();
  EXPECT_EQ(BatchPipeline::create(*src, eval).error().code(), Code::kInvalidArgument);
  PipelineSpec train = default_spec(augment::Profile::kUpstage, path);
  train.on_bad_sample = OnBadSample::kReport;
  EXPECT_NE(validate(train).message().find("for mode=eval"), std::string::npos);
  EXPECT_EQ(default_on_bad_sample(Mode::kEval), OnBadSample::kFail);
  EXPECT_EQ(default_on_bad_sample(Mode::kTrain), OnBadSample::kSkip);
}

TEST(EvalTest, ImagesLargerThanTheCanvasFailCreationInOneMessage) {
  ScratchDir dir;  // sakura floors 900 x 300 to 896 x 288 and 700 x 700 to 672: neither fits 320
  const std::string path = make_dataset(dir, {{200, 100}, {900, 300}, {150, 150}, {700, 700}});
  auto src = SampleSource::open(path, {});
  ASSERT_TRUE(src.has_value());
  auto p = BatchPipeline::create(
      *src, eval_spec(augment::Profile::kSakura, path, 320, OnBadSample::kFail));
  ASSERT_FALSE(p.has_value());
  const std::string m = p.error().message();
  EXPECT_EQ(p.error().code(), Code::kInvalidArgument);
  EXPECT_NE(m.find("2 of 4 images"), std::string::npos) << m;
  EXPECT_NE(m.find("img_1.jpg"), std::string::npos) << m;
  EXPECT_NE(m.find("img_3.jpg"), std::string::npos) << m;
  EXPECT_EQ(m.find("img_0.jpg"), std::string::npos) << m;
  EXPECT_NE(m.find("image_size=896 fits every image"), std::string::npos) << m;
  // The canvas that message names makes the pipeline.
  EXPECT_TRUE(BatchPipeline::create(
                  *src, eval_spec(augment::Profile::kSakura, path, 896, OnBadSample::kFail))
                  .has_value());
}

TEST(EvalTest, ReportLeavesUnusableRowsBlankAndReportsEachOnceWithoutAReplacement) {
  ScratchDir dir;
  const std::string path = make_dataset(dir, {{200, 100}, {900, 300}, {150, 150}, {700, 700}});
  auto src = SampleSource::open(path, {});
  ASSERT_TRUE(src.has_value());
  auto p = BatchPipeline::create(
      *src, eval_spec(augment::Profile::kSakura, path, 320, OnBadSample::kReport));
  ASSERT_TRUE(p.has_value()) << p.error().to_string();
  const Filled f = fill_first(**p);
  ASSERT_TRUE(f.status.ok()) << f.status.to_string();
  EXPECT_EQ(f.info.indices, (std::vector<uint32_t>{0, 1, 2, 3}));  // every image once, none twice
  ASSERT_EQ(f.info.errors.size(), 2u);
  for (const SampleError& e : f.info.errors) {
    EXPECT_EQ(e.replaced_by, e.index);
    EXPECT_TRUE(e.index == 1 || e.index == 3) << e.index;
    EXPECT_EQ(e.code, Code::kInvalidArgument);
    EXPECT_NE(e.message.find("canvas"), std::string::npos) << e.message;
    EXPECT_TRUE(row_is_zero(**p, f, e.index));
  }
  EXPECT_FALSE(row_is_zero(**p, f, 0));
  EXPECT_FALSE(row_is_zero(**p, f, 2));
  // A missing row still names its image and holds its words, so that a metric counts them.
  const SampleMeta& missing = f.info.samples[1];
  EXPECT_EQ(missing.image_id, (*src)->name(1));
  EXPECT_EQ(missing.points, (std::vector<uint32_t>{4}));
  EXPECT_EQ(missing.scale_x, 0.0);
  EXPECT_DOUBLE_EQ(f.info.samples[0].scale_x, 192.0 / 200);  // a placed row has its scale
}

TEST(EvalTest, AnImageThatCannotBeReadFailsItsBatchOrIsReportedMissing) {
  ScratchDir dir;  // upstage fits every size: nothing is scanned, the damage is met in its batch
  const std::string path = make_dataset(dir, {{200, 100}, {-120, 80}, {150, 150}});
  auto src = SampleSource::open(path, {});
  ASSERT_TRUE(src.has_value());
  std::filesystem::remove(dir.path() / "images" / "img_2.jpg");  // gone after the index was read
  auto failing = BatchPipeline::create(
      *src, eval_spec(augment::Profile::kUpstage, path, 256, OnBadSample::kFail));
  ASSERT_TRUE(failing.has_value()) << failing.error().to_string();
  const Filled bad = fill_first(**failing);
  EXPECT_FALSE(bad.status.ok());
  EXPECT_NE(bad.status.message().find("img_1.jpg"), std::string::npos) << bad.status.message();
  auto reporting = BatchPipeline::create(
      *src, eval_spec(augment::Profile::kUpstage, path, 256, OnBadSample::kReport));
  ASSERT_TRUE(reporting.has_value());
  const Filled f = fill_first(**reporting);
  ASSERT_TRUE(f.status.ok()) << f.status.to_string();
  EXPECT_EQ(f.info.indices, (std::vector<uint32_t>{0, 1, 2}));
  ASSERT_EQ(f.info.errors.size(), 2u);
  for (uint32_t k : {1u, 2u}) {  // a damaged header, a file gone: each row blank, its words kept
    EXPECT_EQ(f.info.errors[k - 1].index, k);
    EXPECT_EQ(f.info.errors[k - 1].replaced_by, k);
    EXPECT_TRUE(row_is_zero(**reporting, f, k));
    EXPECT_EQ(f.info.samples[k].image_id, (*src)->name(k));
    EXPECT_EQ(f.info.samples[k].points, (std::vector<uint32_t>{4})) << k;
  }
}

TEST(EvalTest, DbEvaluatesOnAMultipleOfThirtyTwo) {
  ScratchDir dir;
  const std::string path = make_dataset(dir, {{200, 100}, {90, 300}});
  auto src = SampleSource::open(path, {});
  ASSERT_TRUE(src.has_value());
  PipelineSpec odd = eval_spec(augment::Profile::kDb, path, 250, OnBadSample::kFail);
  EXPECT_NE(validate(odd).message().find("multiple of 32"), std::string::npos)
      << validate(odd).message();
  EXPECT_FALSE(BatchPipeline::create(*src, odd).has_value());
  auto p =
      BatchPipeline::create(*src, eval_spec(augment::Profile::kDb, path, 256, OnBadSample::kFail));
  ASSERT_TRUE(p.has_value()) << p.error().to_string();
  const Filled f = fill_first(**p);
  ASSERT_TRUE(f.status.ok()) << f.status.to_string();
  ASSERT_EQ(f.info.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(f.info.samples[0].scale_x, 192.0 / 200);  // 6.25 -> 6 * 32
  EXPECT_DOUBLE_EQ(f.info.samples[1].scale_y, 256.0 / 300);  // limited to 256: int(300 * 256/300)
  EXPECT_DOUBLE_EQ(f.info.samples[1].scale_x, 64.0 / 90);    // int(76.8) = 76 -> 2.375 -> 64
}

}  // namespace
}  // namespace textfeed::loader
