// What a manifest's writer and reader agree on beyond its fields: how a shard's range of inputs is
// computed, which relative paths name a file below the manifest's folder, how a 64-bit
// fingerprint is written.
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

namespace textfeed::cache::internal {

// 16 lowercase hex digits: JSON numbers hold only 53 bits exactly.
inline std::string hex64(uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof s, "%016" PRIx64, v);
  return s;
}

// Whether a relative path stays in its folder: not empty, not absolute, no ".." or empty
// component, no NUL or backslash.
inline bool is_contained_relative(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.find('\0') != std::string_view::npos ||
      p.find('\\') != std::string_view::npos)
    return false;
  size_t at = 0;
  while (at <= p.size()) {
    const size_t slash = std::min(p.find('/', at), p.size());
    const std::string_view part = p.substr(at, slash - at);
    if (part.empty() || part == "..") return false;
    at = slash + 1;
  }
  return true;
}

// [first, first + count) of shard k of n inputs in `shards` parts (loader::shard_inputs).
inline std::pair<uint64_t, uint64_t> input_range(uint64_t n, uint32_t k, uint32_t shards) {
  // floor(j n / N) as j (n / N) + floor(j (n % N) / N): no product wraps for N < 2^32 (j <= N).
  const auto at = [&](uint64_t j) { return j * (n / shards) + j * (n % shards) / shards; };
  return {at(k), at(uint64_t{k} + 1) - at(k)};
}

}  // namespace textfeed::cache::internal
