#include "base/tensor.h"

namespace textfeed {

std::string_view dtype_name(DType t) { return t == DType::kU8 ? "uint8" : "float32"; }

Result<DType> parse_dtype(std::string_view name) {
  if (name == "float32") return DType::kF32;
  if (name == "uint8") return DType::kU8;
  return Status::invalid_argument("dtype must be float32 or uint8, got '" + std::string(name) +
                                  "'");
}

std::string describe(const SampleError& e) {
  const std::string what = e.replaced_by == e.index
                               ? " missing (not replaced): "
                               : " replaced by " + std::to_string(e.replaced_by) + ": ";
  return "sample " + std::to_string(e.index) + what + e.message;
}

Status check_sample_meta(const std::vector<SampleMeta>& samples) {
  size_t words = 0, points = 0, id_bytes = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const SampleMeta& m = samples[i];
    const std::string where = "row " + std::to_string(i) + " (" + m.image_id.substr(0, 256) + ")";
    if (m.image_id.size() > kMaxImageIdBytes)
      return Status::invalid_argument(where + ": an image id of " +
                                      std::to_string(m.image_id.size()) + " bytes; at most " +
                                      std::to_string(kMaxImageIdBytes));
    if (m.points.size() != m.ignore.size())
      return Status::invalid_argument(where + ": " + std::to_string(m.points.size()) +
                                      " point counts but " + std::to_string(m.ignore.size()) +
                                      " ignore flags");
    size_t n = 0;
    for (uint32_t p : m.points)
      n += p;  // each below 2^32, so the sum of a bounded list cannot wrap
    if (n * 2 != m.xy.size())
      return Status::invalid_argument(where + ": the point counts add up to " + std::to_string(n) +
                                      " points but " + std::to_string(m.xy.size()) +
                                      " coordinates are given");
    words += m.points.size();
    points += n;
    id_bytes += m.image_id.size();
    if (words > kMaxBatchWords || points > kMaxBatchPoints || id_bytes > kMaxBatchImageIdBytes)
      return Status::invalid_argument(where + ": the batch's metadata passes " +
                                      std::to_string(kMaxBatchWords) + " words, " +
                                      std::to_string(kMaxBatchPoints) + " polygon points or " +
                                      std::to_string(kMaxBatchImageIdBytes) +
                                      " bytes of image ids (a smaller batch_size keeps it under)");
  }
  return Status();
}

}  // namespace textfeed
