// libFuzzer's entry point for one fuzz target, chosen at compile time: the fuzz CMakeLists builds
// this file once per target with TEXTFEED_FUZZ_TARGET naming its function in fuzz_targets.h.
#include <cstddef>
#include <cstdint>

#include "base/log.h"
#include "tests/fuzz/fuzz_targets.h"

#ifndef TEXTFEED_FUZZ_TARGET
#error "define TEXTFEED_FUZZ_TARGET to one of the functions of fuzz_targets.h"
#endif

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // Readers log what they skip; at thousands of inputs a second that is noise, not signal.
  textfeed::set_log_level(textfeed::LogLevel::kError);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  textfeed::fuzz::run_checking_descriptors(textfeed::fuzz::TEXTFEED_FUZZ_TARGET,
                                           std::span<const uint8_t>(data, size));
  return 0;
}
