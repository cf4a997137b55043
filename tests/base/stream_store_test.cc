// base/stream_store.h: every element written, at any alignment and length, with the values the
// plain expressions give.
#include "base/stream_store.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace textfeed {
namespace {

TEST(StreamStoreTest, EveryOffsetAndLengthWritesExactlyTheRange) {
  std::vector<float> src(64), v(64);
  std::vector<uint8_t> bytes(64);
  for (int i = 0; i < 64; ++i)
    src[i] = 0.25f * i - 3, v[i] = 1.5f * i, bytes[i] = static_cast<uint8_t>(7 * i + 200);
  for (size_t offset = 0; offset < 8; ++offset)
    for (size_t n = 0; n <= 40; ++n) {
      std::vector<float> a(64, -1.f), b(64, -1.f), c(64, -1.f), d(64, -1.f);
      stream_fill_f32(d.data() + offset, n, 0.3f);
      stream_copy_f32(a.data() + offset, src.data(), n);
      stream_u8_to_f32(b.data() + offset, bytes.data(), n);
      stream_scale_bias_f32(c.data() + offset, v.data(), n, 0.0171f, -2.118f);
      stream_fence();
      for (size_t i = 0; i < 64; ++i) {
        const bool in = i >= offset && i < offset + n;
        const size_t j = i - offset;
        EXPECT_EQ(a[i], in ? src[j] : -1.f) << offset << " " << n << " " << i;
        EXPECT_EQ(d[i], in ? 0.3f : -1.f) << offset << " " << n << " " << i;
        EXPECT_EQ(b[i], in ? static_cast<float>(bytes[j]) : -1.f) << offset << " " << n << " " << i;
        const float t = in ? v[j] * 0.0171f : 0.f;
        EXPECT_EQ(c[i], in ? t + -2.118f : -1.f) << offset << " " << n << " " << i;
      }
    }
}

}  // namespace
}  // namespace textfeed
