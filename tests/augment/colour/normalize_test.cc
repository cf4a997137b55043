// augment/colour/normalize.h: the planes hold float(v) * scale + bias of the channel each names, at
// widths that leave every kind of tail, whichever build of the loop this CPU runs.
#include "augment/colour/normalize.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace textfeed::augment {
namespace {

TEST(NormalizeTest, PlanesHoldTheScaledChannelsAtEveryWidth) {
  std::mt19937 rng(5);
  for (int w : {1, 15, 16, 17, 37, 643}) {
    const int h = 3;
    std::vector<uint8_t> pixels(static_cast<size_t>(3 * w * h) + 1);  // + 1: rows start misaligned
    for (uint8_t& p : pixels) p = static_cast<uint8_t>(rng());
    const ImageView src{pixels.data() + 1, h, w, 3, static_cast<ptrdiff_t>(3 * w), DType::kU8};
    std::vector<float> planes(static_cast<size_t>(3 * h * w) + 3, -7.f);
    const MutableImageView out{reinterpret_cast<uint8_t*>(planes.data() + 1),
                               3 * h,
                               w,
                               1,
                               static_cast<ptrdiff_t>(4 * w),
                               DType::kF32};
    const NormalizePlanes p{{2, 1, 0}, {0.0171f, 0.0175f, 0.0174f}, {-2.118f, -2.0357f, -1.8044f}};
    normalize_to_planes(out, src, p);
    EXPECT_EQ(planes.front(), -7.f);
    EXPECT_EQ(planes[planes.size() - 2], -7.f);
    for (int k = 0; k < 3; ++k)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const float t = static_cast<float>(src.row(y)[3 * x + p.channel[k]]) * p.scale[k];
          ASSERT_EQ(planes[1 + static_cast<size_t>((k * h + y) * w + x)], t + p.bias[k])
              << "w " << w << " plane " << k << " y " << y << " x " << x;
        }
  }
}

TEST(NormalizeTest, SplitChannelsGivesEachChannelAsFloatsAtEveryWidth) {
  std::mt19937 rng(6);
  for (int n : {0, 1, 15, 16, 17, 47, 1024}) {
    std::vector<uint8_t> pixels(static_cast<size_t>(3 * n) + 1);
    for (uint8_t& p : pixels) p = static_cast<uint8_t>(rng());
    std::vector<float> r(n + 1, -1.f), g(n + 1, -1.f), b(n + 1, -1.f);
    float* const dst[3] = {r.data(), g.data(), b.data()};
    split_channels(pixels.data() + 1, n, dst);
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(r[i], static_cast<float>(pixels[1 + 3 * i])) << n << " " << i;
      ASSERT_EQ(g[i], static_cast<float>(pixels[2 + 3 * i])) << n << " " << i;
      ASSERT_EQ(b[i], static_cast<float>(pixels[3 + 3 * i])) << n << " " << i;
    }
    EXPECT_EQ(r[n], -1.f);
    EXPECT_EQ(b[n], -1.f);
  }
}

}  // namespace
}  // namespace textfeed::augment
