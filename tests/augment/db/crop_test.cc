// DB crop (EastRandomCropData) semantics: NumPy's draws, slicing and rounding quirks, fallback.
#include "augment/db/crop.h"

#include <gtest/gtest.h>

#include <vector>

namespace textfeed::augment {
namespace {

// A rectangle polygon [x0, x1] x [y0, y1] as 4 points.
void add_rect(std::vector<double>& xy, std::vector<int32_t>& ends, double x0, double y0, double x1,
              double y1) {
  xy.insert(xy.end(), {x0, y0, x1, y0, x1, y1, x0, y1});
  ends.push_back(static_cast<int32_t>(xy.size() / 2));
}

TEST(DbCropTest, NumpyLegacyIndexMatchesRandint) {
  // np.random.RandomState(5).randint(0, 7, size=6) and RandomState(123).randint(0, 1000, size=4).
  Rng a = Rng::numpy_legacy(5);
  std::vector<uint32_t> got;
  for (int i = 0; i < 6; ++i) got.push_back(numpy_legacy_index(a, 7));
  EXPECT_EQ(got, (std::vector<uint32_t>{3, 6, 5, 6, 6, 0}));
  Rng b = Rng::numpy_legacy(123);
  got.clear();
  for (int i = 0; i < 4; ++i) got.push_back(numpy_legacy_index(b, 1000));
  EXPECT_EQ(got, (std::vector<uint32_t>{510, 365, 382, 322}));
  // n == 1 draws nothing: the stream continues where it was.
  Rng c = Rng::numpy_legacy(5), d = Rng::numpy_legacy(5);
  EXPECT_EQ(numpy_legacy_index(c, 1), 0u);
  EXPECT_EQ(c.next_u32(), d.next_u32());
}

TEST(DbCropTest, OnlyIgnoredWordsFallBackToTheWholeImageAfterEveryTry) {
  std::vector<double> xy;
  std::vector<int32_t> ends;
  add_rect(xy, ends, 10, 10, 50, 30);
  const std::vector<unsigned char> ignore{1};
  DbCrop out;
  Rng rng(1, 0, 0);
  ASSERT_TRUE(
      db_crop(out, 200, 100, {xy, ends}, ignore, DbCropOptions{}, rng, CropDraws::kPipeline).ok());
  EXPECT_TRUE(out.fallback);
  EXPECT_EQ(out.tries, 50);
  EXPECT_EQ(out.crop.w, 200);
  EXPECT_EQ(out.crop.h, 100);
  EXPECT_DOUBLE_EQ(out.scale, 3.2);
  EXPECT_EQ(out.out_w, 640);
  EXPECT_EQ(out.out_h, 320);
  ASSERT_EQ(out.kept, (std::vector<unsigned char>{1}));
  EXPECT_DOUBLE_EQ(out.xy[0], 32);
  EXPECT_EQ(out.ignore, (std::vector<unsigned char>{1}));
}

TEST(DbCropTest, AWordOverEveryRowFallsBackWithoutATry) {
  std::vector<double> xy;
  std::vector<int32_t> ends;
  add_rect(xy, ends, 10, -5, 50, 120);  // rows -5..120 round to a slice [-5:120]: start 95
  add_rect(xy, ends, 60, 0, 70, 100);   // rows [0:100]: every row covered
  DbCrop out;
  Rng rng(1, 0, 0);
  ASSERT_TRUE(db_crop(out, 200, 100, {xy, ends}, std::vector<unsigned char>{0, 0}, DbCropOptions{},
                      rng, CropDraws::kPipeline)
                  .ok());
  EXPECT_TRUE(out.fallback);
  EXPECT_EQ(out.tries, 0);
}

TEST(DbCropTest, ANegativeSliceStartCountsFromTheEndAndTheLastGapIsDropped) {
  // x from -30 to -10 covers columns [70, 90) of a 100-wide image (NumPy's w_array[-30:-10]), the
  // second word [20, 30). Free runs: 0..19, 30..69, 90..99; split_regions drops the last, so the
  // region-wise draw picks columns in 0..19 and 30..69 only. (Were the slice clamped to [0:0],
  // one region would remain and the crop would reach columns 70..99.)
  std::vector<double> xy;
  std::vector<int32_t> ends;
  add_rect(xy, ends, -30, 40, -10, 60);
  add_rect(xy, ends, 20, 40, 30, 60);
  int crops = 0;
  for (uint64_t s = 0; s < 400; ++s) {
    Rng rng(s, 0, 0);
    DbCrop out;
    ASSERT_TRUE(db_crop(out, 100, 100, {xy, ends}, std::vector<unsigned char>{0, 0},
                        DbCropOptions{}, rng, CropDraws::kPipeline)
                    .ok());
    if (out.fallback) continue;
    ++crops;
    const int x0 = out.crop.x, x1 = out.crop.x + out.crop.w;
    EXPECT_LT(x1, 70) << s;
    EXPECT_FALSE(x0 >= 20 && x0 < 30) << s;
    EXPECT_FALSE(x1 >= 20 && x1 < 30) << s;
    EXPECT_EQ(out.kept, (std::vector<unsigned char>{0, 1})) << s;
  }
  EXPECT_GT(crops, 100);
}

TEST(DbCropTest, AStartLeftOfTheImageWithAPositiveStopCoversNothing) {
  // w_array[-3:50] is empty (start 97 > stop 50): columns 0..49 stay free, so crops start there.
  std::vector<double> xy;
  std::vector<int32_t> ends;
  add_rect(xy, ends, -3.2, 40, 50, 60);
  int starts_left = 0;
  for (uint64_t s = 0; s < 200; ++s) {
    Rng rng(s, 0, 0);
    DbCrop out;
    ASSERT_TRUE(db_crop(out, 100, 100, {xy, ends}, std::vector<unsigned char>{0}, DbCropOptions{},
                        rng, CropDraws::kPipeline)
                    .ok());
    starts_left += !out.fallback && out.crop.x > 0 && out.crop.x < 50;
  }
  EXPECT_GT(starts_left, 0);
}

TEST(DbCropTest, ARoundedValueBeyondInt32StartsTheSliceAtZero) {
  // NumPy casts round(-3e9) to int32 as -2^31; w_array[-2^31:50] then covers columns 0..49 (a
  // start of -3 would have covered nothing), so every crop starts at column 50 or later.
  std::vector<double> xy;
  std::vector<int32_t> ends;
  add_rect(xy, ends, -3e9, 40, 50, 60);
  add_rect(xy, ends, 60, 40, 70, 60);
  int crops = 0;
  for (uint64_t s = 0; s < 200; ++s) {
    Rng rng(s, 0, 0);
    DbCrop out;
    ASSERT_TRUE(db_crop(out, 100, 100, {xy, ends}, std::vector<unsigned char>{0, 0},
                        DbCropOptions{}, rng, CropDraws::kPipeline)
                    .ok());
    if (out.fallback) continue;
    ++crops;
    EXPECT_GE(out.crop.x, 50) << s;
  }
  EXPECT_GT(crops, 20);
}

TEST(DbCropTest, PolygonsWhollyOutsideTheCropAreDropped) {
  std::vector<double> xy;
  std::vector<int32_t> ends;
  add_rect(xy, ends, 10, 10, 20, 20);
  add_rect(xy, ends, 300, 10, 320, 20);  // beyond the image: outside any crop
  DbCrop out;
  Rng rng(3, 0, 0);
  ASSERT_TRUE(db_crop(out, 200, 100, {xy, ends}, std::vector<unsigned char>{0, 0}, DbCropOptions{},
                      rng, CropDraws::kPipeline)
                  .ok());
  EXPECT_EQ(out.kept[1], 0);
  EXPECT_EQ(out.ends.size(), static_cast<size_t>(out.kept[0]));
}

TEST(DbCropTest, BadArgumentsAreErrors) {
  std::vector<double> xy{1, 2, 3, 4};
  std::vector<int32_t> ends{2};
  const std::vector<unsigned char> one{0};
  DbCrop out;
  Rng rng(1, 0, 0);
  EXPECT_FALSE(db_crop(out, 0, 10, {xy, ends}, one, {}, rng, CropDraws::kPipeline).ok());
  EXPECT_FALSE(
      db_crop(out, 10, 10, {xy, ends}, std::vector<unsigned char>{}, {}, rng, CropDraws::kPipeline)
          .ok());
  EXPECT_FALSE(
      db_crop(out, 10, 10, {xy, ends}, one, DbCropOptions{640, 50, 0.0}, rng, CropDraws::kPipeline)
          .ok());
  EXPECT_FALSE(
      db_crop(out, 10, 10, {xy, ends}, one, DbCropOptions{0, 50, 0.1}, rng, CropDraws::kPipeline)
          .ok());
  const std::vector<int32_t> bad_ends{3};
  EXPECT_FALSE(db_crop(out, 10, 10, {xy, bad_ends}, one, {}, rng, CropDraws::kPipeline).ok());
  std::vector<double> nan_xy{1, 2, std::nan(""), 4};
  const Status s = db_crop(out, 10, 10, {nan_xy, ends}, one, {}, rng, CropDraws::kPipeline);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("polygon 0 point 1"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace textfeed::augment
