// Fingerprint: the hash behind SampleSource::fingerprint(). FNV-1a (64-bit) over little-endian
// fields, each variable-length one preceded by its length, so that no two different indexes write
// the same byte stream. Checkpoints store its values: never change what a field writes.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace textfeed::loader::internal {

class Fingerprint {
 public:
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  void text(std::string_view s) {
    u64(s.size());
    for (char c : s) byte(static_cast<uint8_t>(c));
  }
  void f32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  // The exact value (its bits): two doubles that print alike (1e-7, 4e-7 at 6 decimals) differ.
  void f64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    u64(bits);
  }
  uint64_t value() const { return h_; }

 private:
  void byte(uint8_t b) { h_ = (h_ ^ b) * 0x100000001b3ull; }
  uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace textfeed::loader::internal
