// Cap'n Proto encoding and decoding of the cache records; the only place that sees the generated
// accessors. Errors are Status, never exceptions.
#pragma once

#include <span>

#include <capnp/common.h>
#include <kj/io.h>

#include "cache/cache.h"

namespace textfeed::cache::internal {

// Writes one Sample message (segment table + segments) to `out`; pixels are referenced, not copied.
// KJ exceptions from `out` propagate (the writer catches them).
void write_sample(kj::OutputStream& out, const SampleData& s, uint32_t index);
void write_meta(kj::OutputStream& out, const CacheMeta& meta);

// Parses a message in place. `words` must stay mapped while the view is used.
Status read_sample(std::span<const capnp::word> words, SampleView& out);
Status read_meta(std::span<const capnp::word> words, CacheMeta& out);

}  // namespace textfeed::cache::internal
