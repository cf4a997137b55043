// Cap'n Proto encoding and decoding of the cache records; the only place that sees the generated
// accessors. Errors are Status, never exceptions.
#pragma once

#include <capnp/common.h>
#include <kj/io.h>

#include <span>
#include <string>

#include "cache/cache.h"

namespace textfeed::cache::internal {

// Writes one Sample message (segment table + segments) to `out`; pixels are referenced, not copied.
// KJ exceptions from `out` propagate (the writer catches them).
void write_sample(kj::OutputStream& out, const SampleData& s, uint32_t index);
void write_meta(kj::OutputStream& out, const CacheMeta& meta);

// Parses a message in place. `words` must stay mapped while the view is used.
Status read_sample(std::span<const capnp::word> words, SampleView& out);
Status read_meta(std::span<const capnp::word> words, CacheMeta& out);

// What a record's words must be, for the writer and the reader alike: finite coordinates and
// labels kLabelValid or kLabelIgnored. Empty when they are; else "word N has ..." (1-based).
std::string check_words(std::span<const Quad> quads, std::span<const uint8_t> labels);
// The same of a record's polygons: one label per polygon, every polygon of >= 3 points, their
// points summing to xy.size() / 2, finite coordinates, labels 0 or 1. Empty spans pass.
std::string check_polygons(std::span<const float> xy, std::span<const uint32_t> points,
                           std::span<const uint8_t> labels);

}  // namespace textfeed::cache::internal
