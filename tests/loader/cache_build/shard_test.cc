// Sharded cache builds (issue 16): --shard K/N parsing, shards that are disjoint and cover every
// input, and N = 3 shards merged into a manifest that gives the whole build's batches byte for
// byte (EAST upstage and DB), with a quarantined image in one shard and the dataset's bad-input
// budget kept across shards.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cache/manifest.h"
#include "loader/cache_build/cache_builder.h"
#include "loader/pipeline/pipeline.h"
#include "loader/sources/cache_source.h"
#include "loader/sources/dataset_source.h"
#include "tests/loader/test_images.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;
using testing::encoded_image;

TEST(ShardSpecTest, ParsesKOfNAndNamesTheRuleABadOneBreaks) {
  for (auto [text, k, n] : {std::tuple{"0/1", 0u, 1u}, std::tuple{"0/3", 0u, 3u},
                            std::tuple{"2/3", 2u, 3u}, std::tuple{"4095/4096", 4095u, 4096u}}) {
    auto s = parse_shard(text);
    ASSERT_TRUE(s.has_value()) << text << ": " << s.error().to_string();
    EXPECT_EQ(s->index, k);
    EXPECT_EQ(s->count, n);
  }
  const std::pair<const char*, const char*> bad[] = {
      {"3/3", "K must be below N"},    {"5/3", "K must be below N"},
      {"1/0", "N must be at least 1"}, {"0/4097", "at most 4096"},
      {"a/b", "two whole numbers"},    {"1", "expected K/N"},
      {"1/", "two whole numbers"},     {"/3", "two whole numbers"},
      {"-1/3", "two whole numbers"},   {"1/3/5", "two whole numbers"},
      {" 1/3", "two whole numbers"},   {"99999999999/3", "two whole numbers"},
  };
  for (auto [text, why] : bad) {
    auto s = parse_shard(text);
    ASSERT_FALSE(s.has_value()) << text;
    EXPECT_EQ(s.error().code(), Code::kInvalidArgument);
    EXPECT_NE(s.error().message().find(std::string("--shard ") + text), std::string::npos)
        << s.error().message();
    EXPECT_NE(s.error().message().find(why), std::string::npos)
        << text << ": " << s.error().message();
  }
}

TEST(ShardSpecTest, ShardsAreContiguousDisjointAndCoverEveryInput) {
  for (size_t n = 1; n <= 40; ++n)
    for (uint32_t count = 1; count <= n; ++count) {
      size_t next = 0;
      for (uint32_t k = 0; k < count; ++k) {
        const auto [first, size] = shard_inputs(n, ShardSpec{k, count});
        EXPECT_EQ(first, next) << k << "/" << count << " of " << n;
        EXPECT_GE(size, 1u);
        next = first + size;
      }
      EXPECT_EQ(next, n) << count << " shards of " << n;
    }
  EXPECT_EQ(shard_inputs(10, {1, 3}), (std::pair<size_t, size_t>{3, 3}));
  EXPECT_EQ(shard_inputs(10, {2, 3}), (std::pair<size_t, size_t>{6, 4}));
}

class ShardBuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // 11 images of different sizes, one of them unreadable (quarantined) in the middle shard.
    for (int i = 0; i < 11; ++i) {
      const std::string name = std::string("img").append(std::to_string(10 + i)).append(".jpg");
      if (i == 5)
        testing::write_bytes(dir_.path() / "images" / name, {0xFF, 0xD8, 0xFF, 0x00});
      else
        testing::write_bytes(dir_.path() / "images" / name,
                             encoded_image(".jpg", 96 + 8 * i, 64 + 4 * (i % 3), i));
      SampleRecord rec;
      rec.image = "images/" + name;
      rec.annotation = "gt/gt_" + name + ".txt";
      rec.quads.push_back(Quad{{8, 8, 60, 8, 60, 30, 8, 30}});
      rec.quads.push_back(Quad{{10, 34, 50, 36, 48, 56, 9, 54}});
      rec.labels = {kLabelValid, i % 2 ? kLabelIgnored : kLabelValid};
      rec.texts = {std::to_string(i), "###"};
      rec.lines = {1, 2};
      rec.poly_xy.assign(rec.quads[0].xy.begin(), rec.quads[0].xy.end());
      rec.poly_xy.insert(rec.poly_xy.end(), rec.quads[1].xy.begin(), rec.quads[1].xy.end());
      rec.poly_points = {4, 4};
      rec.poly_labels = rec.labels;
      ds_.samples.push_back(std::move(rec));
    }
    ds_.root = dir_.path().string();
  }

  CacheBuildOptions options(const std::string& out, ShardSpec shard = {}) const {
    CacheBuildOptions o;
    o.out = (dir_.path() / out).string();
    o.image_size = 160;
    o.max_bad_share = 0.1;  // 1 of 11
    o.shard = shard;
    return o;
  }
  Result<BuildReport> build(const CacheBuildOptions& o) {
    WorkerPool pool(2);
    return build_cache(ds_, o, pool, nullptr);
  }
  // Builds shards 0..count-1 into shards/ and merges them into shards.tfmanifest.
  Result<std::string> build_sharded(uint32_t count, const std::string& tag = "") {
    fs::create_directories(dir_.path() / "shards");
    std::vector<std::shared_ptr<const cache::CacheReader>> readers;
    std::vector<std::string> paths;
    for (uint32_t k = count; k-- > 0;) {  // any order
      CacheBuildOptions o = options("shards/s" + tag + std::to_string(k) + ".tfc", {k, count});
      TF_RETURN_IF_ERROR(build(o).status());
      TF_ASSIGN_OR_RETURN(auto r, cache::CacheReader::open(o.out));
      readers.push_back(r);
      paths.push_back(o.out);
    }
    const std::string manifest = (dir_.path() / ("shards" + tag + ".tfmanifest")).string();
    TF_ASSIGN_OR_RETURN(cache::Manifest m, cache::merge_shards(readers, paths, manifest));
    TF_RETURN_IF_ERROR(cache::write_manifest(m, manifest, false));
    return manifest;
  }

  static std::unique_ptr<BatchPipeline> pipeline(std::shared_ptr<const SampleSource> src,
                                                 augment::Profile profile) {
    PipelineSpec o;
    o.augment = augment::profile_defaults(profile);
    o.augment.image_size = 160;
    o.augment.crop_size = 64;
    o.sampler.seed = 7;
    o.sampler.batch_size = 3;
    auto p = BatchPipeline::create(std::move(src), o);
    EXPECT_TRUE(p.has_value()) << p.error().to_string();
    return p.has_value() ? std::move(*p) : nullptr;
  }
  static std::vector<uint8_t> fill(BatchPipeline& p, uint64_t epoch, size_t batch) {
    std::vector<uint8_t> slot(p.layout().slot_bytes, 0);
    WorkerPool pool(2);
    BatchInfo info;
    Status s = p.fill(epoch, batch, slot.data(), info, pool);
    EXPECT_TRUE(s.ok()) << s.to_string();
    return slot;
  }

  testing::ScratchDir dir_;
  Dataset ds_;
};

TEST_F(ShardBuildTest, ThreeShardsMergedGiveTheWholeBuildsBatchesByteForByte) {
  auto whole = build(options("whole.tfc"));
  ASSERT_TRUE(whole.has_value()) << whole.error().to_string();
  ASSERT_EQ(whole->samples, 10u);
  auto manifest = build_sharded(3);
  ASSERT_TRUE(manifest.has_value()) << manifest.error().to_string();

  auto a = SampleSource::open((dir_.path() / "whole.tfc").string(), {});
  auto b = SampleSource::open(*manifest, {});
  ASSERT_TRUE(a.has_value() && b.has_value()) << b.error().to_string();
  ASSERT_EQ((*a)->size(), (*b)->size());
  EXPECT_EQ((*a)->fingerprint(), (*b)->fingerprint());  // a checkpoint of one resumes on the other
  EXPECT_EQ((*a)->stored_image_size(), (*b)->stored_image_size());
  for (size_t i = 0; i < (*a)->size(); ++i) EXPECT_EQ((*a)->name(i), (*b)->name(i)) << i;
  EXPECT_NE((*b)->describe().find("3 shards"), std::string::npos) << (*b)->describe();

  for (auto profile : {augment::Profile::kUpstage, augment::Profile::kDb}) {
    auto pa = pipeline(*a, profile), pb = pipeline(*b, profile);
    ASSERT_TRUE(pa && pb);
    ASSERT_EQ(pa->sampler().batches_per_epoch(), pb->sampler().batches_per_epoch());
    for (uint64_t epoch : {0, 1})
      for (size_t batch = 0; batch < pa->sampler().batches_per_epoch(); ++batch)
        EXPECT_TRUE(fill(*pa, epoch, batch) == fill(*pb, epoch, batch))
            << augment::profile_name(profile) << " epoch " << epoch << " batch " << batch;
  }
}

TEST_F(ShardBuildTest, EachShardRecordsItsPartAndNothingIsDroppedOrRepeated) {
  auto manifest = build_sharded(3);
  ASSERT_TRUE(manifest.has_value()) << manifest.error().to_string();
  auto set = cache::open_manifest(*manifest);
  ASSERT_TRUE(set.has_value()) << set.error().to_string();
  const cache::Manifest& m = (*set)->manifest;
  ASSERT_EQ(m.shards.size(), 3u);
  size_t quarantined = 0;
  for (uint32_t k = 0; k < 3; ++k) {
    const cache::CacheMeta& meta = (*set)->shards[k]->meta();
    EXPECT_EQ(meta.shard_index, k);
    EXPECT_EQ(meta.shard_count, 3u);
    EXPECT_EQ(meta.dataset_samples, 11u);
    EXPECT_EQ(meta.first_input, shard_inputs(11, {k, 3}).first);
    EXPECT_EQ(meta.num_inputs, (*set)->shards[k]->size() + meta.quarantine.size());
    EXPECT_EQ(meta.dataset_fingerprint, dataset_fingerprint(ds_));
    EXPECT_EQ(meta.reader_options, describe(ReaderOptions{}));
    quarantined += meta.quarantine.size();
  }
  EXPECT_EQ(quarantined, 1u);
  ASSERT_EQ((*set)->meta.quarantine.size(), 1u);
  EXPECT_EQ((*set)->meta.quarantine[0].file, "images/img15.jpg");
  EXPECT_EQ(m.samples, 10u);
  EXPECT_EQ(m.shards[1].first, m.shards[0].samples);
  // A lone shard is a cache of its own samples.
  auto lone = SampleSource::open(cache::shard_file_path(*manifest, m.shards[2]), {});
  ASSERT_TRUE(lone.has_value()) << lone.error().to_string();
  EXPECT_EQ((*lone)->size(), m.shards[2].samples);
  EXPECT_EQ((*lone)->name(0), "images/img17.jpg");
}

TEST_F(ShardBuildTest, TheBadInputBudgetIsTheWholeDatasetsAcrossShards) {
  // A second unreadable image, in shard 2: each shard has at most 1 bad input (the budget of
  // floor(0.1 * 11) = 1), but together they have 2, and a whole build fails.
  testing::write_bytes(dir_.path() / "images" / "img19.jpg", {0x00});
  EXPECT_EQ(build(options("whole.tfc")).error().code(), Code::kCorrupt);
  auto manifest = build_sharded(3);
  ASSERT_FALSE(manifest.has_value());
  EXPECT_NE(manifest.error().message().find("a whole build would have failed"), std::string::npos)
      << manifest.error().to_string();
}

TEST_F(ShardBuildTest, MoreShardsThanImagesAreRefused) {
  auto r = build(options("s.tfc", {0, 12}));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("N is more than the 11 images"), std::string::npos)
      << r.error().to_string();
  r = build(options("s.tfc", {3, 3}));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("K must be below N"), std::string::npos)
      << r.error().to_string();
  EXPECT_FALSE(fs::exists(dir_.path() / "s.tfc"));
}

TEST_F(ShardBuildTest, ShardsOfAnotherDatasetOrBuildAreNotMerged) {
  auto manifest = build_sharded(3);
  ASSERT_TRUE(manifest.has_value()) << manifest.error().to_string();
  // Shard 1 again from a changed dataset (a word moved): its fingerprint differs.
  ds_.samples[0].quads[0].xy[0] += 1;
  CacheBuildOptions o = options("shards/changed1.tfc", {1, 3});
  ASSERT_TRUE(build(o).has_value());
  std::vector<std::shared_ptr<const cache::CacheReader>> readers;
  std::vector<std::string> paths;
  for (const char* name : {"shards/s0.tfc", "shards/changed1.tfc", "shards/s2.tfc"}) {
    paths.push_back((dir_.path() / name).string());
    readers.push_back(*cache::CacheReader::open(paths.back()));
  }
  auto m = cache::merge_shards(readers, paths, *manifest);
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().message().find("changed1.tfc is not of the same build"), std::string::npos)
      << m.error().message();
  EXPECT_NE(m.error().message().find("dataset fingerprint"), std::string::npos)
      << m.error().message();
  // Of another image size.
  ds_.samples[0].quads[0].xy[0] -= 1;
  o = options("shards/big1.tfc", {1, 3});
  o.image_size = 192;
  ASSERT_TRUE(build(o).has_value());
  paths[1] = o.out;
  readers[1] = *cache::CacheReader::open(o.out);
  m = cache::merge_shards(readers, paths, *manifest);
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().message().find("image_size 160 vs 192"), std::string::npos)
      << m.error().message();
}

}  // namespace
}  // namespace textfeed::loader
