// The compact payload: a compact fill expanded on the receiving side gives fill()'s bytes for
// every EAST profile, dtype and bad-sample replacement; what it cannot carry is refused; rows no
// pipeline makes are refused by the expander, naming the row.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "loader/compact_expander.h"
#include "loader/pipeline.h"

namespace textfeed::loader {
namespace {

const std::string kSample = std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample";

PipelineSpec spec(augment::Profile profile, DType dtype = DType::kF32) {
  PipelineSpec s = default_spec(profile, kSample);
  s.augment.dtype = dtype;
  s.sampler.seed = 5;
  s.sampler.batch_size = 3;
  return s;
}

std::shared_ptr<const SampleSource> sample() {
  auto src = SampleSource::open(kSample, {});
  EXPECT_TRUE(src.has_value());
  return *src;
}

void expect_equal_batches(const PipelineSpec& s, int batches) {
  auto p = BatchPipeline::create(sample(), s);
  ASSERT_TRUE(p.has_value()) << p.error().to_string();
  auto e = CompactExpander::create(s);
  ASSERT_TRUE(e.has_value()) << e.error().to_string();
  ASSERT_EQ((*e)->layout().slot_bytes, (*p)->layout().slot_bytes);
  WorkerPool pool(2);
  const size_t crop = compact_row_bytes((*p)->layout().crop_size);
  for (int k = 0; k < batches; ++k) {
    const uint64_t epoch = k / 2, batch = k % 2;
    std::vector<uint8_t> full((*p)->layout().slot_bytes, 0), expanded(full.size(), 0);
    std::vector<uint8_t> crops(crop * 3);
    BatchInfo a, b;
    ASSERT_TRUE((*p)->fill(epoch, batch, full.data(), a, pool).ok());
    ASSERT_TRUE((*p)->fill_compact(epoch, batch, crops.data(), b, pool).ok());
    EXPECT_EQ(a.indices, b.indices);
    ASSERT_EQ(b.compact.size(), b.indices.size());
    ASSERT_TRUE((*e)->expand(crops.data(), b.compact, expanded.data()).ok());
    for (const TensorDesc& t : (*p)->layout().tensors)
      EXPECT_EQ(0, std::memcmp(full.data() + t.offset_bytes, expanded.data() + t.offset_bytes,
                               t.sample_bytes * a.indices.size()))
          << t.name << " of epoch " << epoch << " batch " << batch;
  }
}

TEST(CompactTest, ExpandedBatchesAreTheFullOnesForEveryEastProfile) {
  expect_equal_batches(spec(augment::Profile::kUpstage), 4);
  expect_equal_batches(spec(augment::Profile::kSakura), 4);
  expect_equal_batches(spec(augment::Profile::kBc7), 2);
  expect_equal_batches(spec(augment::Profile::kUpstage, DType::kU8), 2);
}

// A long strip of text much larger than the crop: the words far off the crop travel and are left
// out by the targets on both sides alike.
TEST(CompactTest, WordsFarOffTheCropTravelAndGiveTheSameTargets) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("textfeed-strip-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "images");
  std::filesystem::create_directories(dir / "gt");
  cv::Mat strip(40, 4000, CV_8UC3, cv::Scalar(200, 180, 160));
  cv::putText(strip, "a long line of text", {3600, 30}, cv::FONT_HERSHEY_SIMPLEX, 0.8, {10, 10, 10},
              2);
  ASSERT_TRUE(cv::imwrite((dir / "images" / "img_1.jpg").string(), strip));
  std::ofstream((dir / "gt" / "gt_img_1.txt").string())
      << "3600,5,3990,5,3990,35,3600,35,line\n10,5,80,5,80,35,10,35,a\n";
  PipelineSpec s = default_spec(augment::Profile::kUpstage, dir.string());
  s.sampler.batch_size = 1;
  auto src = SampleSource::open(dir.string(), {});
  ASSERT_TRUE(src.has_value()) << src.error().to_string();
  auto p = BatchPipeline::create(*src, s);
  ASSERT_TRUE(p.has_value()) << p.error().to_string();
  auto e = CompactExpander::create(s);
  ASSERT_TRUE(e.has_value());
  WorkerPool pool(1);
  double farthest = 0;
  for (uint64_t epoch = 0; epoch < 8; ++epoch) {
    std::vector<uint8_t> full((*p)->layout().slot_bytes), expanded(full.size());
    std::vector<uint8_t> crops(compact_row_bytes((*p)->layout().crop_size));
    BatchInfo a, b;
    ASSERT_TRUE((*p)->fill(epoch, 0, full.data(), a, pool).ok());
    ASSERT_TRUE((*p)->fill_compact(epoch, 0, crops.data(), b, pool).ok());
    for (double v : b.compact[0].quads) farthest = std::max(farthest, std::abs(v));
    ASSERT_TRUE((*e)->expand(crops.data(), b.compact, expanded.data()).ok()) << "epoch " << epoch;
    EXPECT_EQ(full, expanded) << "epoch " << epoch;
  }
  EXPECT_GT(farthest, 64.0 * (*p)->layout().crop_size)
      << "the strip's words never went far off the crop";
  std::filesystem::remove_all(dir);
}

TEST(CompactTest, WhatItCannotCarryIsRefused) {
  PipelineSpec db = default_spec(augment::Profile::kDb, kSample);
  EXPECT_NE(CompactExpander::create(db).error().message().find("not db"), std::string::npos);
  PipelineSpec eval = spec(augment::Profile::kUpstage);
  eval.mode = Mode::kEval;
  eval.augment.image_size = 1024;
  EXPECT_NE(compact_supported(eval).message().find("training"), std::string::npos);
  PipelineSpec polygons = spec(augment::Profile::kUpstage);
  polygons.return_polygons = true;
  EXPECT_NE(compact_supported(polygons).message().find("return_polygons"), std::string::npos);
  auto p = BatchPipeline::create(sample(), db);
  ASSERT_TRUE(p.has_value());
  WorkerPool pool(1);
  std::vector<uint8_t> crops(compact_row_bytes((*p)->layout().crop_size) * db.sampler.batch_size);
  BatchInfo info;
  EXPECT_EQ((*p)->fill_compact(0, 0, crops.data(), info, pool).code(), Code::kInvalidArgument);
}

TEST(CompactTest, RowsNoPipelineMakesAreRefusedNamingTheRow) {
  const PipelineSpec s = spec(augment::Profile::kUpstage);
  auto e = CompactExpander::create(s);
  ASSERT_TRUE(e.has_value());
  const int c = (*e)->layout().crop_size;
  std::vector<uint8_t> crops(compact_row_bytes(c) * 2, 128), slot((*e)->layout().slot_bytes);
  CompactRow good;
  good.quads = {10, 10, 50, 10, 50, 30, 10, 30};
  good.labels = {1};
  std::vector<CompactRow> rows = {good, good};
  ASSERT_TRUE((*e)->expand(crops.data(), rows, slot.data()).ok());
  const auto refused = [&](const std::vector<CompactRow>& r, const std::string& what) {
    Status st = (*e)->expand(crops.data(), r, slot.data());
    EXPECT_EQ(st.code(), Code::kCorrupt) << what;
    EXPECT_NE(st.message().find(what), std::string::npos) << st.message();
  };
  rows[1].color.hue = std::numeric_limits<double>::quiet_NaN();
  refused(rows, "compact row 1: a colour factor");
  rows[1].color.hue = 1e307;  // finite, but no draw of the recipe's range
  refused(rows, "outside the recipe's range");
  rows[1].color.hue = 0;
  rows[1].color.brightness = s.augment.brightness.hi + 0.01;
  refused(rows, "outside the recipe's range");
  rows[1] = good;
  rows[1].color.order[2] = augment::ColorOp::kBrightness;
  refused(rows, "permutation");
  rows[1] = good;
  rows[1].labels = {1, 0};
  refused(rows, "8 coordinates for 2 words");
  rows[1] = good;
  rows[1].quads[3] = std::numeric_limits<double>::infinity();
  refused(rows, "not finite");
  rows[1] = good;
  rows[1].quads[0] = 1e12;  // a word far off the crop is legitimate: the targets leave it out
  EXPECT_TRUE((*e)->expand(crops.data(), rows, slot.data()).ok());
  rows[1] = good;
  rows[1].labels = {7};
  refused(rows, "label");
  rows.assign(4, good);
  refused(rows, "4 compact rows");
}

}  // namespace
}  // namespace textfeed::loader
