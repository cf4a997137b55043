#include "base/tensor.h"

namespace textfeed {

std::string_view dtype_name(DType t) { return t == DType::kU8 ? "uint8" : "float32"; }

Result<DType> parse_dtype(std::string_view name) {
  if (name == "float32") return DType::kF32;
  if (name == "uint8") return DType::kU8;
  return Status::invalid_argument("dtype must be float32 or uint8, got '" + std::string(name) + "'");
}

}  // namespace textfeed
