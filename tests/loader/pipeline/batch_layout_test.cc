// BatchLayout from the target builder: for EAST it is, tensor for tensor and byte for byte, the
// layout that was written out by hand before builders existed (image, score, geo, mask).
#include <gtest/gtest.h>

#include <string_view>

#include "augment/target_builder.h"
#include "loader/pipeline/batch.h"

namespace textfeed::loader {
namespace {

// The layout as BatchLayout::make computed it with its tensors fixed to image/score/geo/mask.
struct Expected {
  std::string_view name;
  DType dtype;
  int64_t channels, side;
};

TEST(TargetBuilderTest, TheEastBatchLayoutIsTheImageScoreGeoMaskLayout) {
  for (auto profile : {augment::Profile::kUpstage, augment::Profile::kSakura}) {
    for (bool u8 : {false, true}) {
      augment::AugmentOptions o = augment::profile_defaults(profile);
      if (u8) o.dtype = DType::kU8;
      o.crop_size = profile == augment::Profile::kUpstage
                        ? 1000
                        : 516;  // rows that are not 64-byte multiples
      const int b = 3, c = o.crop_size, m = o.map_size();
      const auto builder = augment::make_target_builder(o);
      const BatchLayout l = BatchLayout::make(b, o, *builder);
      const Expected want[] = {
          {"image", u8 ? DType::kU8 : DType::kF32, 3, c},
          {"score", DType::kF32, 1, m},
          {"geo", DType::kF32, 5, m},
          {o.mask == augment::MaskKind::kRoi ? "roi" : "ignored", DType::kF32, 1, m}};
      ASSERT_EQ(l.tensors.size(), 4u);
      EXPECT_EQ(l.batch_size, b);
      EXPECT_EQ(l.crop_size, c);
      size_t offset = 0;
      for (size_t t = 0; t < 4; ++t) {
        const TensorDesc& d = l.tensors[t];
        SCOPED_TRACE(std::string(want[t].name));
        EXPECT_EQ(d.name, want[t].name);
        EXPECT_EQ(d.dtype, want[t].dtype);
        EXPECT_EQ(d.shape,
                  (std::array<int64_t, 4>{b, want[t].channels, want[t].side, want[t].side}));
        const size_t sample = static_cast<size_t>(want[t].channels * want[t].side * want[t].side) *
                              dtype_size(d.dtype);
        EXPECT_EQ(d.sample_bytes, sample);
        EXPECT_EQ(d.size_bytes, sample * b);
        EXPECT_EQ(d.offset_bytes, offset);
        offset = (offset + d.size_bytes + 63) / 64 * 64;
      }
      EXPECT_EQ(l.slot_bytes, offset);
      EXPECT_EQ(&l.image(), &l.tensors[0]);
      EXPECT_EQ(l.targets().size(), 3u);
      // A row view: channels stacked as planes.
      std::vector<uint8_t> slot(l.slot_bytes);
      const MutableImageView geo = l.view(slot.data(), 2, 1);
      EXPECT_EQ(geo.data, slot.data() + l.tensors[2].offset_bytes + l.tensors[2].sample_bytes);
      EXPECT_EQ(geo.height, 5 * m);
      EXPECT_EQ(geo.width, m);
      EXPECT_EQ(geo.stride_bytes, static_cast<ptrdiff_t>(m) * 4);
    }
  }
}

}  // namespace
}  // namespace textfeed::loader
