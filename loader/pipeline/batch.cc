// BatchLayout: tensor offsets inside a slot.
#include "loader/pipeline/batch.h"

#include "base/log.h"

namespace textfeed::loader {
namespace {
constexpr size_t kAlign = 64;
size_t align_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

TensorDesc describe(std::string_view name, DType dtype, int64_t batch, int64_t channels,
                    int64_t side) {
  TensorDesc d;
  d.name = name;
  d.dtype = dtype;
  d.shape = {batch, channels, side, side};
  d.sample_bytes = static_cast<size_t>(channels * side * side) * dtype_size(dtype);
  d.size_bytes = d.sample_bytes * static_cast<size_t>(batch);
  return d;
}
}  // namespace

BatchLayout BatchLayout::make(int batch_size, const augment::AugmentOptions& o,
                              const augment::TargetBuilder& targets) {
  BatchLayout l;
  l.batch_size = batch_size;
  l.crop_size = o.crop_size;
  const DType image_dtype = o.dtype;
  l.tensors.push_back(describe("image", image_dtype, batch_size, 3, o.crop_size));
  for (const augment::TargetTensor& t : targets.tensors(o.crop_size))
    l.tensors.push_back(describe(t.name, t.dtype, batch_size, t.channels, t.side));
  TF_CHECK(l.tensors.size() - 1 <= augment::kMaxTargetTensors)
      << "a target builder wrote " << l.tensors.size() - 1
      << " tensors, more than kMaxTargetTensors";
  size_t offset = 0;
  for (TensorDesc& d : l.tensors) {
    d.offset_bytes = offset;
    offset = align_up(offset + d.size_bytes);
  }
  l.slot_bytes = offset;
  return l;
}

BatchLayout BatchLayout::make_image_only(int batch_size, int side, DType dtype) {
  BatchLayout l;
  l.batch_size = batch_size;
  l.crop_size = side;
  l.tensors.push_back(describe("image", dtype, batch_size, 3, side));
  l.slot_bytes = align_up(l.tensors[0].size_bytes);
  return l;
}

MutableImageView BatchLayout::view(uint8_t* slot, size_t t, int i) const {
  const TensorDesc& d = tensors[t];
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
