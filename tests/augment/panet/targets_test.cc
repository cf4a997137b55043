// PANet targets (augment/panet/targets.h): the two kernels as instance maps, the cap on the shrink
// distance, the effective mask and the refusals. The reference's own outputs are checked by
// tests/python/test_golden_mmocr_kernels.py.
#include "augment/panet/targets.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "tests/augment/mmocr_words.h"

namespace textfeed::augment {
namespace {

using testing::rect;
using testing::Words;

// The columns of row y holding `id`.
std::vector<int> columns(std::span<const float> plane, int width, int y, float id) {
  std::vector<int> out;
  for (int x = 0; x < width; ++x)
    if (plane[static_cast<size_t>(y) * width + x] == id) out.push_back(x);
  return out;
}

TEST(PanTargetsTest, TheKernelsAreInstanceMapsOfTheTextAndItsHalfShrunkKernel) {
  Words w(60, 200);
  w.add(rect(10, 10, 70, 50)).add(rect(100, 10, 180, 50), /*ignore=*/true);
  Result<PanTargets> t = make_pan_targets(w.view());
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  ASSERT_EQ(t->kernels.num_kernels, 2);
  const std::span<const float> text = t->text_instances(), kernel = t->kernel_instances();
  ASSERT_EQ(text.size(), 60u * 200);
  std::set<float> ids(text.begin(), text.end());
  EXPECT_EQ(ids, (std::set<float>{0, 1, 2}));
  // Word 0, 60 x 40: A = 2400, L = 200, D = int(2400 * 0.75 / 200.001 + 0.5) = 9 at ratio 0.5.
  const std::vector<int> row = columns(kernel, 200, 30, 1.0f);
  ASSERT_FALSE(row.empty());
  EXPECT_EQ(row.front(), 19);
  EXPECT_EQ(row.back(), 61);
  EXPECT_EQ(columns(text, 200, 30, 1.0f).front(), 10);
  // Word 1 is ignored: drawn in both maps (id 2) but masked out.
  EXPECT_EQ(text[30 * 200 + 140], 2.0f);
  EXPECT_EQ(kernel[30 * 200 + 140], 2.0f);
  EXPECT_EQ(t->kernels.mask[30 * 200 + 140], 0.0f);
  EXPECT_EQ(t->kernels.mask[30 * 200 + 40], 1.0f);
}

TEST(PanTargetsTest, TheHalfShrinkIsCappedAt20Px) {
  // 300 x 200: D = int(60000 * 0.75 / 1000.001 + 0.5) = 45 uncapped.
  Words w(260, 360);
  w.add(rect(30, 30, 330, 230));
  Result<PanTargets> t = make_pan_targets(w.view());
  ASSERT_TRUE(t.ok());
  const std::vector<int> row = columns(t->kernel_instances(), 360, 130, 1.0f);
  ASSERT_FALSE(row.empty());
  EXPECT_EQ(row.front(), 50);
  EXPECT_EQ(row.back(), 310);
}

TEST(PanTargetsTest, NoWordsGiveEmptyMaps) {
  Words w(8, 8);
  Result<PanTargets> t = make_pan_targets(w.view());
  ASSERT_TRUE(t.ok());
  for (float v : t->kernels.kernels) ASSERT_EQ(v, 0.0f);
  for (float v : t->kernels.mask) ASSERT_EQ(v, 1.0f);
}

TEST(PanTargetsTest, ATinyWordsKernelIsUnshrunkAndASliverDrawsNothing) {
  // 2 x 2 px: D = int(4 * 0.75 / 8.001 + 0.5) = 0 at 0.5, so the kernel is drawn unshrunk; a
  // 1-px-wide sliver (zero area after truncation) draws nothing at all.
  Words w(20, 20);
  w.add(rect(5, 5, 7, 7)).add(rect(12.2f, 3, 12.9f, 15));
  Result<PanTargets> t = make_pan_targets(w.view());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->text_instances()[6 * 20 + 6], 1.0f);
  EXPECT_EQ(t->kernel_instances()[6 * 20 + 6], 1.0f);
  for (float v : t->text_instances()) ASSERT_NE(v, 2.0f);
}

TEST(PanTargetsTest, ErrorsNameThePolygon) {
  Words w(20, 20);
  w.add(rect(1, 1, 10, 10)).add({0, 0, std::numeric_limits<float>::infinity(), 1, 3, 3});
  Result<PanTargets> t = make_pan_targets(w.view());
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kInvalidArgument);
  EXPECT_NE(t.status().message().find("PANet targets"), std::string::npos);
  EXPECT_NE(t.status().message().find("polygon 1"), std::string::npos);
}

}  // namespace
}  // namespace textfeed::augment
