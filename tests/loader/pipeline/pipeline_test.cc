// BatchPipeline: identical batches whatever the thread count; a cache gives the same targets as
// the dataset folder; bad images are substituted deterministically and reported.
#include "loader/pipeline/pipeline.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "loader/cache_build/cache_builder.h"
#include "loader/sources/dataset_source.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;
const std::string kSample = std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample";

std::unique_ptr<BatchPipeline> make(std::shared_ptr<const SampleSource> src,
                                    augment::Profile profile) {
  PipelineSpec o;
  o.augment = augment::profile_defaults(profile);
  o.sampler.seed = 42;
  o.sampler.batch_size = 4;
  auto p = BatchPipeline::create(std::move(src), o);
  EXPECT_TRUE(p.has_value()) << p.error().to_string();
  return std::move(*p);
}

std::vector<uint8_t> fill(BatchPipeline& p, int threads, uint64_t epoch, size_t batch,
                          BatchInfo* info_out = nullptr) {
  std::vector<uint8_t> slot(p.layout().slot_bytes, 0);
  WorkerPool pool(threads);
  BatchInfo info;
  Status s = p.fill(epoch, batch, slot.data(), info, pool);
  EXPECT_TRUE(s.ok()) << s.to_string();
  if (info_out) *info_out = info;
  return slot;
}

TEST(PipelineTest, SameBatchesWithOneOrTwoThreads) {
  auto src = SampleSource::open(kSample, {});
  ASSERT_TRUE(src.has_value());
  auto a = make(*src, augment::Profile::kSakura);
  auto b = make(*src, augment::Profile::kSakura);
  for (size_t batch = 0; batch < a->sampler().batches_per_epoch(); ++batch)
    EXPECT_EQ(fill(*a, 1, 3, batch), fill(*b, 2, 3, batch)) << "batch " << batch;
  // Out of order (a restart at batch 1) gives the same bytes too.
  EXPECT_EQ(fill(*a, 2, 3, 1), fill(*b, 1, 3, 1));
  EXPECT_NE(fill(*a, 1, 3, 0), fill(*a, 1, 4, 0));  // a new epoch draws anew
}

TEST(PipelineTest, CacheGivesTheSameTargetsAsTheDataset) {
  const std::string path =
      (fs::temp_directory_path() / ("textfeed_pipe_" + std::to_string(::getpid()) + ".tfc"))
          .string();
  auto ds = open_dataset(kSample, {});
  ASSERT_TRUE(ds.has_value());
  for (auto profile : {augment::Profile::kSakura, augment::Profile::kUpstage}) {
    CacheBuildOptions co;
    co.out = path;
    co.profile = profile;
    co.image_size = augment::profile_defaults(profile).image_size;
    co.force = true;
    WorkerPool pool(2);
    ASSERT_TRUE(build_cache(*ds, co, pool, nullptr).has_value());
    auto from_ds = make(std::make_shared<const DatasetSource>(*ds), profile);
    auto cache = SampleSource::open(path, {});
    ASSERT_TRUE(cache.has_value());
    auto from_cache = make(*cache, profile);
    const auto x = fill(*from_ds, 2, 0, 1), y = fill(*from_cache, 2, 0, 1);
    const BatchLayout& l = from_ds->layout();
    const TensorDesc& img = l.image();
    // Targets: byte-identical.
    EXPECT_EQ(0, std::memcmp(
                     x.data() + img.size_bytes, y.data() + img.size_bytes,
                     l.tensors.back().offset_bytes + l.tensors.back().size_bytes - img.size_bytes));
    // Pixels: identical without a resize (sakura), close with the cache's resample (upstage).
    const float* px = reinterpret_cast<const float*>(x.data());
    const float* py = reinterpret_cast<const float*>(y.data());
    double diff = 0;
    for (size_t i = 0; i < img.size_bytes / 4; ++i) diff += std::abs(px[i] - py[i]);
    diff /= img.size_bytes / 4;
    if (profile == augment::Profile::kSakura) {
      EXPECT_EQ(diff, 0.0);
    } else {
      EXPECT_LT(diff, 0.05);  // mean abs difference in normalized units ([-1, 1])
    }
  }
  fs::remove(path);
}

// Decoding only the window a crop reads changes no target and next to no pixel.
TEST(PipelineTest, WindowDecodesGiveTheWholeDecodesSamples) {
  auto src = SampleSource::open(kSample, {});
  ASSERT_TRUE(src.has_value());
  for (auto profile : {augment::Profile::kSakura, augment::Profile::kUpstage}) {
    PipelineSpec o;
    o.augment = augment::profile_defaults(profile);
    o.sampler.seed = 9;
    o.sampler.batch_size = 5;
    auto windowed = BatchPipeline::create(*src, o);
    o.decode.windows = false;
    auto whole = BatchPipeline::create(*src, o);
    ASSERT_TRUE(windowed.has_value() && whole.has_value());
    const BatchLayout& l = (*whole)->layout();
    for (size_t b = 0; b < 2; ++b) {
      const std::vector<uint8_t> a = fill(**windowed, 2, 0, b), c = fill(**whole, 2, 0, b);
      for (const TensorDesc& t : l.targets()) {
        EXPECT_EQ(0,
                  std::memcmp(a.data() + t.offset_bytes, c.data() + t.offset_bytes, t.size_bytes))
            << t.name;
      }
      // Image: normalized floats in [-1, 1]; the window moves the warp's sample points by a
      // rounding error at most, so pixels differ by a level or two where they differ at all.
      const TensorDesc& img = l.image();
      const float* pa = reinterpret_cast<const float*>(a.data() + img.offset_bytes);
      const float* pc = reinterpret_cast<const float*>(c.data() + img.offset_bytes);
      const size_t n = img.size_bytes / 4;
      double max_diff = 0, sq = 0;
      for (size_t i = 0; i < n; ++i) {
        const double d = std::abs(pa[i] - pc[i]);
        max_diff = std::max(max_diff, d);
        sq += d * d;
      }
      const double psnr = sq == 0 ? 99 : 10 * std::log10(4.0 / (sq / n));
      EXPECT_GT(psnr, 45) << augment::profile_name(profile) << " batch " << b;
      EXPECT_LE(max_diff, 2.5 * 2 / 255) << "more than a couple of levels";
    }
  }
}

TEST(PipelineTest, BadImageIsSubstitutedAndReported) {
  const fs::path dir = fs::temp_directory_path() / ("textfeed_bad_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(kSample, dir, fs::copy_options::recursive);
  {
    std::ofstream(dir / "images" / "img_1.jpg", std::ios::binary | std::ios::trunc) << "not a jpeg";
  }
  auto src = SampleSource::open(dir.string(), {});
  ASSERT_TRUE(src.has_value());
  PipelineSpec o;
  o.augment = augment::profile_defaults(augment::Profile::kSakura);
  o.sampler.batch_size = 10;
  o.sampler.shuffle = false;
  auto p = BatchPipeline::create(*src, o);
  ASSERT_TRUE(p.has_value());
  BatchInfo info;
  fill(**p, 2, 0, 0, &info);
  ASSERT_EQ(info.errors.size(), 1u);
  EXPECT_EQ(info.errors[0].code, Code::kCorrupt);
  EXPECT_NE(info.errors[0].message.find("img_1.jpg"), std::string::npos);
  EXPECT_NE(info.errors[0].replaced_by, info.errors[0].index);
  o.on_bad_sample = OnBadSample::kFail;
  auto strict = BatchPipeline::create(*src, o);
  std::vector<uint8_t> slot((*strict)->layout().slot_bytes);
  WorkerPool pool(1);
  EXPECT_EQ((*strict)->fill(0, 0, slot.data(), info, pool).code(), Code::kCorrupt);
  fs::remove_all(dir);
}

// Issue 9: a fill checks its cancel token before each sample, so a cancelled fill ends after the
// samples its workers are on, not after the whole batch.
TEST(PipelineTest, AFillCancelledBeforeItBeginsProducesNoSample) {
  auto src = SampleSource::open(kSample, {});
  ASSERT_TRUE(src.has_value());
  auto p = make(*src, augment::Profile::kSakura);
  std::vector<uint8_t> slot(p->layout().slot_bytes);
  WorkerPool pool(2);
  BatchInfo info;
  CancelToken cancel;
  cancel.cancel();
  const Status s = p->fill(0, 0, slot.data(), info, pool, &cancel);
  EXPECT_EQ(s.code(), Code::kCancelled) << s.to_string();
  EXPECT_NE(s.message().find("4 of 4 samples not produced"), std::string::npos) << s.message();
  EXPECT_EQ(p->counters().stages.samples, 0u);
  EXPECT_EQ(p->counters().batches, 0u);
}

TEST(PipelineTest, AFillCancelledMidwayStopsAtTheSampleItIsOn) {
  auto src = SampleSource::open(kSample, {});
  ASSERT_TRUE(src.has_value());
  PipelineSpec o;
  o.augment = augment::profile_defaults(augment::Profile::kSakura);
  o.sampler.batch_size = 10;
  auto p = BatchPipeline::create(*src, o);
  ASSERT_TRUE(p.has_value());
  std::vector<uint8_t> slot((*p)->layout().slot_bytes);
  WorkerPool pool(1);  // one worker: the checks come one sample at a time
  BatchInfo info;
  CancelToken cancel;
  cancel.cancel_after_checks_for_testing(3);  // as if cancel() came while the third sample ran
  const Status s = (*p)->fill(0, 0, slot.data(), info, pool, &cancel);
  EXPECT_EQ(s.code(), Code::kCancelled) << s.to_string();
  EXPECT_EQ((*p)->counters().stages.samples, 3u) << "samples produced after the cancellation";
  EXPECT_NE(s.message().find("7 of 10 samples not produced"), std::string::npos) << s.message();
  // The same pipeline fills the batch whole again with a token nobody cancelled.
  CancelToken fresh;
  EXPECT_TRUE((*p)->fill(0, 0, slot.data(), info, pool, &fresh).ok());
  EXPECT_EQ((*p)->counters().stages.samples, 13u);
}

// Issue 15: the fingerprint names the index, not its size.
TEST(PipelineTest, TheFingerprintNamesTheIndexNotItsSize) {
  auto a = open_dataset(kSample, {});
  ASSERT_TRUE(a.has_value());
  const uint64_t fp = DatasetSource(*a).fingerprint();
  EXPECT_EQ(DatasetSource(*a).fingerprint(), fp) << "not stable";
  Dataset moved = *a;  // one word one pixel to the right: another dataset of the same size
  moved.samples[3].quads.at(0).xy[0] += 1;
  EXPECT_NE(DatasetSource(moved).fingerprint(), fp);
  Dataset relabelled = *a;
  relabelled.samples[5].labels.at(0) ^= 1;
  EXPECT_NE(DatasetSource(relabelled).fingerprint(), fp);
  Dataset renamed = *a;
  renamed.samples[0].image += "x";
  EXPECT_NE(DatasetSource(renamed).fingerprint(), fp);
  Dataset texts = *a;  // transcriptions do not change a batch, so they do not change the name
  if (!texts.samples[0].texts.empty()) texts.samples[0].texts[0] += "?";
  EXPECT_EQ(DatasetSource(texts).fingerprint(), fp);
}

// Eval: the image only, on the inference canvas, every sample of the rank once in dataset order,
// the same bytes and metadata from every run and thread count.
TEST(PipelineTest, EvalFillsTheCanvasAndTheMetadataDeterministically) {
  auto src = SampleSource::open(kSample, {});
  ASSERT_TRUE(src.has_value());
  PipelineSpec o = default_spec(augment::Profile::kSakura, kSample);
  o.mode = Mode::kEval;
  o.on_bad_sample = OnBadSample::kFail;
  o.augment.image_size = 1280;
  o.sampler.batch_size = 4;
  o.sampler.rank = 1;
  o.sampler.world_size = 3;  // 10 samples: rank 1 gets 1, 4, 7
  auto p = BatchPipeline::create(*src, o);
  ASSERT_TRUE(p.has_value()) << p.error().to_string();
  ASSERT_EQ((*p)->layout().tensors.size(), 1u);
  EXPECT_EQ((*p)->layout().image().shape, (std::array<int64_t, 4>{4, 3, 1280, 1280}));
  ASSERT_EQ((*p)->sampler().batches_per_epoch(), 1u);
  BatchInfo a, b;
  const std::vector<uint8_t> one = fill(**p, 1, 0, 0, &a), two = fill(**p, 2, 5, 0, &b);
  EXPECT_EQ(one, two);  // no draw: the epoch changes nothing either
  EXPECT_EQ(a.indices, (std::vector<uint32_t>{1, 4, 7}));
  ASSERT_EQ(a.samples.size(), 3u);
  EXPECT_EQ(a.samples, b.samples);
  for (const SampleMeta& m : a.samples) {
    EXPECT_EQ(m.height, 720);
    EXPECT_EQ(m.width, 1280);
    EXPECT_DOUBLE_EQ(m.scale_x, 1.0);
    EXPECT_DOUBLE_EQ(m.scale_y, 704.0 / 720.0);
    EXPECT_FALSE(m.points.empty());
  }
  EXPECT_EQ(a.samples[0].image_id, (*src)->name(1));
}

TEST(PipelineTest, EvalNeedsACanvasSide) {
  auto src = SampleSource::open(kSample, {});
  ASSERT_TRUE(src.has_value());
  PipelineSpec o = default_spec(augment::Profile::kSakura, kSample);
  o.mode = Mode::kEval;
  o.on_bad_sample = OnBadSample::kFail;
  o.augment.image_size = 0;
  EXPECT_EQ(validate(o).code(), Code::kInvalidArgument);
  EXPECT_EQ(BatchPipeline::create(*src, o).error().code(), Code::kInvalidArgument);
}

TEST(PipelineTest, ReturnPolygonsAddsTheCropsWordsWithoutChangingTheBatch) {
  auto src = SampleSource::open(kSample, {});
  ASSERT_TRUE(src.has_value());
  auto plain = make(*src, augment::Profile::kSakura);
  PipelineSpec o;
  o.augment = augment::profile_defaults(augment::Profile::kSakura);
  o.sampler.seed = 42;
  o.sampler.batch_size = 4;
  o.return_polygons = true;
  auto with = BatchPipeline::create(*src, o);
  ASSERT_TRUE(with.has_value());
  BatchInfo a, b;
  EXPECT_EQ(fill(*plain, 2, 1, 0, &a), fill(**with, 2, 1, 0, &b));
  EXPECT_TRUE(a.samples.empty());
  ASSERT_EQ(b.samples.size(), b.indices.size());
  for (const SampleMeta& m : b.samples) {
    EXPECT_EQ(m.width, 512);
    EXPECT_EQ(m.xy.size(), m.points.size() * 8);
  }
}

}  // namespace
}  // namespace textfeed::loader
