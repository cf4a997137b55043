// BatchLayout: tensor offsets inside a slot.
#include "loader/batch.h"

namespace textfeed::loader {
namespace {
constexpr size_t kAlign = 64;
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
}  // namespace

BatchLayout BatchLayout::make(int batch_size, const augment::AugmentOptions& o) {
  BatchLayout l;
  l.batch_size = batch_size;
  l.crop_size = o.crop_size;
  l.map_size = o.map_size();
  const int64_t b = batch_size, c = o.crop_size, m = l.map_size;
  const DType image_dtype = o.dtype;
  struct Spec {
    std::string_view name;
    DType dtype;
    int64_t channels, side;
  };
  const Spec specs[kNumTensors] = {
      {"image", image_dtype, 3, c},
      {"score", DType::kF32, 1, m},
      {"geo", DType::kF32, 5, m},
      {o.mask == augment::MaskKind::kRoi ? "roi" : "ignored", DType::kF32, 1, m},
  };
  size_t offset = 0;
  for (int t = 0; t < kNumTensors; ++t) {
    TensorDesc& d = l.tensors[t];
    d.name = specs[t].name;
    d.dtype = specs[t].dtype;
    d.shape = {b, specs[t].channels, specs[t].side, specs[t].side};
    d.sample_bytes = static_cast<size_t>(specs[t].channels * specs[t].side * specs[t].side) *
                     dtype_size(specs[t].dtype);
    d.size_bytes = d.sample_bytes * static_cast<size_t>(b);
    d.offset_bytes = offset;
    offset = align_up(offset + d.size_bytes);
  }
  l.slot_bytes = offset;
  return l;
}

MutableImageView BatchLayout::view(uint8_t* slot, TensorId id, int i) const {
  const TensorDesc& d = tensor(id);
  const int channels = static_cast<int>(d.shape[1]);
  const int side = static_cast<int>(d.shape[3]);
  MutableImageView v;
  v.data = slot + d.offset_bytes + d.sample_bytes * static_cast<size_t>(i);
  v.height = channels * side;
  v.width = side;
  v.channels = 1;
  v.stride_bytes = static_cast<ptrdiff_t>(side) * static_cast<ptrdiff_t>(dtype_size(d.dtype));
  v.dtype = d.dtype;
  return v;
}

}  // namespace textfeed::loader
