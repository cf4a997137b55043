// build_cache on hostile datasets: every format the readers accept is built (not a crash), a JPEG
// whose header fails is quarantined alone, images of extreme aspect, folders and FIFOs are
// quarantined with a reason, a mostly bad or empty dataset fails the build, a cancelled build
// stops; a failed build leaves nothing at or beside its output.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "loader/cache_build/cache_builder.h"
#include "loader/sources/cache_source.h"
#include "loader/sources/dataset_source.h"
#include "tests/loader/test_images.h"

namespace textfeed::loader {
namespace {

namespace fs = std::filesystem;
using testing::encoded_image;

class CacheBuildTest : public ::testing::Test {
 protected:
  // Adds images/<name> with `bytes` (nothing is written when `bytes` is empty) and one word.
  void add(const std::string& name, const std::vector<uint8_t>& bytes) {
    if (!bytes.empty()) testing::write_bytes(dir_.path() / "images" / name, bytes);
    SampleRecord rec;
    rec.image = "images/" + name;
    rec.quads.push_back(Quad{{4, 4, 20, 4, 20, 12, 4, 12}});
    rec.labels.push_back(kLabelValid);
    rec.texts.push_back("w");
    rec.lines.push_back(1);
    ds_.samples.push_back(std::move(rec));
  }
  void add_good(int count) {
    for (int i = 0; i < count; ++i)
      add("good" + std::to_string(i) + ".jpg", encoded_image(".jpg", 64, 48, i));
  }
  Result<BuildReport> build(CacheBuildOptions o, int threads = 1) {
    ds_.root = dir_.path().string();
    o.out = out();
    WorkerPool pool(threads);
    return build_cache(ds_, o, pool, nullptr);
  }
  std::string out() const { return (dir_.path() / "c.tfc").string(); }
  // Everything in the scratch folder but images/.
  std::vector<std::string> leftovers() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_.path()))
      if (e.path().filename() != "images") names.push_back(e.path().filename().string());
    return names;
  }
  static std::string reasons(const BuildReport& r) {
    std::string s;
    for (const auto& q : r.quarantine) s += q.file + ": " + q.reason + "\n";
    return s;
  }

  testing::ScratchDir dir_;
  Dataset ds_;
};

TEST_F(CacheBuildTest, EveryFormatTheReadersAcceptIsBuiltAtItsHeaderSize) {
  for (const char* ext : {".jpg", ".png", ".bmp", ".tif", ".webp", ".ppm"})
    add(std::string("pic") + ext, encoded_image(ext, 64, 48));
  for (auto [profile, image_size] :
       {std::pair{augment::Profile::kSakura, 0}, std::pair{augment::Profile::kUpstage, 96}}) {
    CacheBuildOptions o;
    o.profile = profile;
    o.image_size = image_size;
    o.force = true;
    auto r = build(o, 2);
    ASSERT_TRUE(r.has_value()) << r.error().to_string();
    EXPECT_EQ(r->samples, 6u) << reasons(*r);
    auto c = cache::CacheReader::open(out());
    ASSERT_TRUE(c.has_value());
    for (size_t i = 0; i < (*c)->size(); ++i) {
      auto v = (*c)->sample(i);
      ASSERT_TRUE(v.has_value()) << v.error().to_string();
      EXPECT_EQ(v->orig_width, 64) << v->name;
      EXPECT_EQ(v->width, image_size ? 96 : 64) << v->name;
      EXPECT_EQ(v->height, image_size ? 72 : 48) << v->name;
    }
  }
}

// The TurboJPEG handle of the thread that met the bad header used to fail every later JPEG
// ("two SOI markers"): 10 good images + 1 such file wrote 2 samples and quarantined 9.
TEST_F(CacheBuildTest, AJpegWhoseHeaderFailsIsQuarantinedAlone) {
  add_good(5);
  add("poison.jpg", testing::with_frame_size(encoded_image(".jpg", 64, 48), 65535, 65535));
  for (int i = 5; i < 10; ++i)
    add("good" + std::to_string(i) + ".jpg", encoded_image(".jpg", 64, 48, i));
  CacheBuildOptions o;
  o.image_size = 0;
  o.max_bad_share = 0.5;
  auto r = build(o, 1);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(r->samples, 10u) << reasons(*r);
  ASSERT_EQ(r->quarantine.size(), 1u) << reasons(*r);
  EXPECT_EQ(r->quarantine[0].file, "images/poison.jpg");
  EXPECT_NE(r->quarantine[0].reason.find("bad JPEG header"), std::string::npos)
      << r->quarantine[0].reason;
}

TEST_F(CacheBuildTest, ExtremeAspectFoldersAndFifosAreQuarantinedWithTheirReason) {
  add_good(6);
  add("wide.jpg", encoded_image(".jpg", 3000, 1));
  fs::create_directories(dir_.path() / "images" / "sub");
  add("sub", {});
  ASSERT_EQ(::mkfifo((dir_.path() / "images" / "fifo.jpg").c_str(), 0600), 0);
  add("fifo.jpg", {});
  CacheBuildOptions o;  // upstage: longer side 2048, so 3000x1 becomes 2048x0
  o.max_bad_share = 0.5;
  auto r = build(o, 2);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(r->samples, 6u);
  ASSERT_EQ(r->quarantine.size(), 3u) << reasons(*r);
  const std::string all = reasons(*r);
  EXPECT_NE(all.find("images/wide.jpg: "), std::string::npos) << all;
  EXPECT_NE(all.find("aspect ratio is too extreme"), std::string::npos) << all;
  EXPECT_NE(all.find("is a folder"), std::string::npos) << all;
  EXPECT_NE(all.find("is a FIFO"), std::string::npos) << all;
}

TEST_F(CacheBuildTest, ACoordinateThatOverflowsOnceResizedIsQuarantinedNotStoredAsInfinity) {
  add_good(3);
  add("far.jpg", encoded_image(".jpg", 64, 48));
  ds_.samples.back().quads[0].xy[0] = 3e38f;  // finite in float32; times 2048 / 64 it is not
  CacheBuildOptions o;
  o.max_bad_share = 0.5;
  auto r = build(o);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(r->samples, 3u);
  ASSERT_EQ(r->quarantine.size(), 1u);
  EXPECT_NE(r->quarantine[0].reason.find("overflows float32"), std::string::npos)
      << r->quarantine[0].reason;
}

TEST_F(CacheBuildTest, AnImageResizedPastThePixelLimitIsQuarantinedBeforeItIsAllocated) {
  add_good(3);
  add("square.jpg", encoded_image(".jpg", 48, 48));
  CacheBuildOptions o;
  o.max_bad_share = 0.5;
  o.image_size = 256;
  o.decode.max_pixels = 60000;  // 64x48 -> 256x192 stays under it; 48x48 -> 256x256 does not
  auto r = build(o);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(r->samples, 3u);
  ASSERT_EQ(r->quarantine.size(), 1u) << reasons(*r);
  EXPECT_EQ(r->quarantine[0].file, "images/square.jpg");
  EXPECT_NE(r->quarantine[0].reason.find("would have 65536 pixels, over the limit of 60000"),
            std::string::npos)
      << r->quarantine[0].reason;
  // image_size itself is bounded as the augmentation's is: 0, or 32..32768.
  for (int bad : {-1, 1, 31, 32769, 1 << 30}) {
    o.image_size = bad;
    auto refused = build(o);
    ASSERT_FALSE(refused.has_value()) << bad;
    EXPECT_EQ(refused.error().code(), Code::kInvalidArgument);
    EXPECT_NE(refused.error().message().find("image_size"), std::string::npos)
        << refused.error().message();
  }
}

TEST_F(CacheBuildTest, ForceNeverReplacesAnInputOfTheBuildWithTheCache) {
  add_good(3);
  const std::vector<uint8_t> image = encoded_image(".jpg", 64, 48, 0);
  testing::write_bytes(dir_.path() / "gt_good0.txt", {'x'});
  ds_.samples[0].annotation = "gt_good0.txt";
  CacheBuildOptions o;
  o.force = true;
  for (const char* input : {"images/good0.jpg", "gt_good0.txt"}) {
    ds_.root = dir_.path().string();
    o.out = (dir_.path() / input).string();
    const auto before = fs::file_size(o.out);
    WorkerPool pool(1);
    auto r = build_cache(ds_, o, pool, nullptr);
    ASSERT_FALSE(r.has_value()) << input;
    EXPECT_EQ(r.error().code(), Code::kInvalidArgument);
    EXPECT_NE(r.error().message().find(std::string("is ") + input + " of the dataset being built"),
              std::string::npos)
        << r.error().message();
    EXPECT_EQ(fs::file_size(o.out), before) << input;
  }
  // Another existing file of the same name outside the dataset is not a cache either: refused.
  o.out = (dir_.path() / "good0.jpg").string();
  testing::write_bytes(o.out, image);
  WorkerPool pool(1);
  auto refused = build_cache(ds_, o, pool, nullptr);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message().find("is not a textfeed cache"), std::string::npos)
      << refused.error().message();
  EXPECT_EQ(fs::file_size(o.out), image.size());
  // An empty file there is replaced, and so is the cache that build wrote.
  testing::write_bytes(o.out, {});
  auto r = build_cache(ds_, o, pool, nullptr);
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(r->samples, 3u);
  auto again = build_cache(ds_, o, pool, nullptr);
  ASSERT_TRUE(again.has_value()) << again.error().to_string();
}

TEST_F(CacheBuildTest, MoreBadImagesThanTheAllowedShareFailTheBuildAndWriteNothing) {
  add_good(7);
  for (int i = 0; i < 3; ++i)
    add("junk" + std::to_string(i) + ".jpg", {0xFF, 0xD8, 0xFF, 0x00, 0x01});
  CacheBuildOptions o;
  o.image_size = 0;
  o.max_bad_share = 0.2;  // at most 2 of 10
  auto r = build(o, 2);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kCorrupt);
  EXPECT_NE(r.error().message().find("more than the allowed share"), std::string::npos)
      << r.error().message();
  EXPECT_NE(r.error().message().find("images/junk0.jpg"), std::string::npos) << r.error().message();
  EXPECT_TRUE(leftovers().empty()) << leftovers()[0];
  // The default share (5%) refuses 1 bad image of 10 as well; 30% accepts 3.
  o = CacheBuildOptions();
  o.image_size = 0;
  EXPECT_EQ(build(o).error().code(), Code::kCorrupt);
  o.max_bad_share = 0.3;
  auto ok = build(o);
  ASSERT_TRUE(ok.has_value()) << ok.error().to_string();
  EXPECT_EQ(ok->samples, 7u);
}

TEST_F(CacheBuildTest, AnEmptyDatasetOrOneWithNothingUsableIsRefused) {
  CacheBuildOptions o;
  auto r = build(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kInvalidArgument);
  EXPECT_NE(r.error().message().find("has no images"), std::string::npos) << r.error().message();
  add("junk.jpg", {0x00, 0x01});
  o.max_bad_share = 1;
  r = build(o);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("none of the 1 images"), std::string::npos)
      << r.error().message();
  // ... and says why, as the build that stops on too many bad images does.
  EXPECT_NE(r.error().message().find("First failures: images/junk.jpg: "), std::string::npos)
      << r.error().message();
  EXPECT_TRUE(leftovers().empty());
}

TEST_F(CacheBuildTest, ACancelledBuildStopsAndLeavesNothing) {
  add_good(20);
  std::atomic<bool> cancel{false};
  CacheBuildOptions o;
  o.image_size = 0;
  o.cancel = &cancel;
  o.out = out();
  ds_.root = dir_.path().string();
  WorkerPool pool(2);
  size_t seen = 0;
  auto r = build_cache(ds_, o, pool, [&](const BuildProgress& p) {
    seen = p.done;
    if (p.done == 3) cancel = true;
  });
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Code::kCancelled) << r.error().to_string();
  EXPECT_LT(seen, 20u);
  EXPECT_TRUE(leftovers().empty()) << leftovers()[0];
}

// The cache keeps every word's polygon (issue 14): a cache-fed sample reads the polygons the
// dataset gives, scaled as the quads when the cache resized its pixels.
TEST_F(CacheBuildTest, CacheKeepsEveryPolygon) {
  add("poly.jpg", encoded_image(".jpg", 64, 48));
  SampleRecord& rec = ds_.samples.back();
  rec.poly_xy = {4, 4, 20, 4,  20, 12, 4,  12, 1,  1,  9,  1,
                 5, 7, 30, 30, 40, 30, 44, 36, 40, 42, 30, 42};
  rec.poly_points = {4, 3, 5};
  rec.poly_labels = {kLabelValid, kLabelIgnored, kLabelValid};
  for (int image_size : {0, 128}) {
    CacheBuildOptions o;
    o.image_size = image_size;
    o.force = true;
    auto r = build(o);
    ASSERT_TRUE(r.has_value()) << r.error().to_string();
    auto cache = CacheSource::open(out());
    ASSERT_TRUE(cache.has_value()) << cache.error().to_string();
    SampleRead from_cache, from_dataset;
    const DatasetSource dataset(ds_);
    ASSERT_TRUE((*cache)->read(0, from_cache).ok());
    ASSERT_TRUE(dataset.read(0, from_dataset).ok());
    const float scale = image_size ? 2.0f : 1.0f;  // 64 -> 128
    ASSERT_EQ(from_cache.poly_xy.size(), from_dataset.poly_xy.size());
    for (size_t i = 0; i < from_cache.poly_xy.size(); ++i)
      EXPECT_EQ(from_cache.poly_xy[i], from_dataset.poly_xy[i] * scale) << i;
    EXPECT_TRUE(std::equal(from_cache.poly_points.begin(), from_cache.poly_points.end(),
                           from_dataset.poly_points.begin(), from_dataset.poly_points.end()));
    EXPECT_TRUE(std::equal(from_cache.poly_labels.begin(), from_cache.poly_labels.end(),
                           from_dataset.poly_labels.begin(), from_dataset.poly_labels.end()));
  }
}

}  // namespace
}  // namespace textfeed::loader
