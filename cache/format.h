// Constants and fixed-size structs of the cache file, shared by writer and reader.
// docs/cache_format.md draws the layout; all integers are little-endian.
#pragma once

#include <cstdint>

namespace textfeed::cache {

inline constexpr char kHeaderMagic[8] = {'T', 'X', 'F', 'C', 'A', 'C', 'H', 'E'};
inline constexpr char kFooterMagic[8] = {'T', 'X', 'F', 'C', 'E', 'N', 'D', '1'};
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr uint64_t kSchemaId = 0xcd68c0d902fd077bULL;  // cache/cache.capnp file id
inline constexpr uint32_t kEndianMarker = 0x01020304;         // reads back as such on LE hosts
inline constexpr uint64_t kAlignment = 8;                     // every message starts on a word

// At offset 0.
struct FileHeader {
  char magic[8];
  uint32_t format_version;
  uint32_t header_size;  // sizeof(FileHeader)
  uint64_t schema_id;
  uint32_t endian_marker;
  uint32_t flags;  // 0; reserved
  uint64_t reserved[3];
  uint32_t pad;
  uint32_t header_crc;  // CRC32C of the bytes before this field
};
static_assert(sizeof(FileHeader) == 64);

// One per sample, in the index that follows the Meta message.
struct IndexEntry {
  uint64_t offset;  // of the sample's message from the start of the file; 8-aligned
  uint64_t size;    // bytes of the message (segment table + segments); multiple of 8
  uint32_t crc;     // CRC32C of those bytes
  uint32_t reserved;
};
static_assert(sizeof(IndexEntry) == 24);

// The last 64 bytes of the file; written last.
struct FileFooter {
  uint64_t num_samples;
  uint64_t index_offset;  // n IndexEntry structs start here
  uint64_t meta_offset;   // the Meta message
  uint64_t meta_size;
  uint32_t index_crc;       // CRC32C of the whole index
  uint32_t meta_crc;        // CRC32C of the Meta message
  uint32_t format_version;  // repeated: a reader can refuse a newer file from either end
  uint32_t footer_crc;      // CRC32C of the bytes before this field
  uint64_t reserved;
  char magic[8];
};
static_assert(sizeof(FileFooter) == 64);

}  // namespace textfeed::cache
