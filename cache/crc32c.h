// CRC32C (Castagnoli), the checksum of every cache record, index and footer. Uses the SSE4.2
// crc32 instruction when the CPU has it (about 3 bytes per cycle), a table otherwise.
#pragma once

#include <cstddef>
#include <cstdint>

namespace textfeed::cache {

// CRC32C of `size` bytes continuing from `crc` (0 to start).
uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0);

}  // namespace textfeed::cache
