// Cap'n Proto encoding of Sample and Meta records.
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cmath>
#include <vector>

#include "cache/cache.capnp.h"
#include "cache/detail/codec.h"

namespace textfeed::cache::internal {
namespace {

capnp::ReaderOptions reader_options(size_t words) {
  capnp::ReaderOptions o;
  // Data blobs count towards the traversal limit: allow the message's own size, twice, and no more.
  o.traversalLimitInWords = 2 * words + 1024;
  o.nestingLimit = 16;
  return o;
}

capnp::Data::Reader bytes(std::span<const uint8_t> s) { return {s.data(), s.size()}; }

// capnp::writeMessage, except that the segment holding `external` (referenced, not copied) is
// written as exactly its bytes plus zero padding: Cap'n Proto would write the bytes past its end
// up to the word boundary, which the caller does not own.
void write_flat(kj::OutputStream& out, capnp::MessageBuilder& message,
                std::span<const uint8_t> external) {
  const auto segments = message.getSegmentsForOutput();
  const size_t table_words = segments.size() / 2 + 1;  // u32 count-1, u32 per segment, padded
  std::vector<uint32_t> table(table_words * 2);        // a handful of entries (see write_sample)
  table[0] = static_cast<uint32_t>(segments.size() - 1);
  for (size_t i = 0; i < segments.size(); ++i)
    table[i + 1] = static_cast<uint32_t>(segments[i].size());
  if (segments.size() % 2 == 0) table[segments.size() + 1] = 0;
  out.write(table.data(), table_words * sizeof(capnp::word));
  static constexpr uint8_t kZeros[sizeof(capnp::word)] = {};
  for (const auto& seg : segments) {
    const auto* p = reinterpret_cast<const uint8_t*>(seg.begin());
    const size_t seg_bytes = seg.size() * sizeof(capnp::word);
    if (!external.empty() && p == external.data()) {
      out.write(p, external.size());
      if (seg_bytes > external.size()) out.write(kZeros, seg_bytes - external.size());
    } else {
      out.write(p, seg_bytes);
    }
  }
}

}  // namespace

void write_sample(kj::OutputStream& out, const SampleData& s, uint32_t index) {
  // Room for everything but the pixels in the first segment, so a record has two segments: the
  // fields and the referenced pixels.
  const size_t text_bytes = [&] {
    size_t n = 0;
    for (const std::string& t : s.texts) n += t.size() + 1;
    return n;
  }();
  const size_t field_bytes = s.name.size() + s.quads.size_bytes() + s.labels.size() + text_bytes +
                             s.poly_xy.size_bytes() + s.poly_points.size_bytes() +
                             s.poly_labels.size();
  capnp::MallocMessageBuilder message(static_cast<unsigned>(64 + field_bytes / sizeof(capnp::word)),
                                      capnp::AllocationStrategy::FIXED_SIZE);
  auto orphanage = message.getOrphanage();
  auto r = message.initRoot<wire::Sample>();
  r.setName(capnp::Text::Reader(s.name.data(), s.name.size()));
  r.setOrigWidth(static_cast<uint32_t>(s.orig_width));
  r.setOrigHeight(static_cast<uint32_t>(s.orig_height));
  r.setWidth(static_cast<uint32_t>(s.width));
  r.setHeight(static_cast<uint32_t>(s.height));
  r.setCodec(s.codec == PixelCodec::kJpeg ? wire::Codec::JPEG : wire::Codec::RAW);
  std::span<const uint8_t> external;
  if (!s.pixels.empty() &&
      reinterpret_cast<uintptr_t>(s.pixels.data()) % sizeof(capnp::word) == 0) {
    // Zero copy into the message: the pixels become a segment of their own (see write_flat).
    r.adoptPixels(orphanage.referenceExternalData(bytes(s.pixels)));
    external = s.pixels;
  } else {
    r.setPixels(bytes(s.pixels));
  }
  r.setQuads(
      capnp::Data::Reader(reinterpret_cast<const uint8_t*>(s.quads.data()), s.quads.size_bytes()));
  r.setLabels(capnp::Data::Reader(s.labels.data(), s.labels.size()));
  auto texts = r.initTexts(static_cast<unsigned>(text_bytes));
  size_t pos = 0;
  for (const std::string& t : s.texts) {
    std::copy(t.begin(), t.end(), texts.begin() + pos);
    pos += t.size();
    texts[pos++] = 0;
  }
  r.setIndex(index);
  if (!s.poly_points.empty()) {  // little-endian hosts only (cache/format.h), as the quads
    r.setPolyXy(capnp::Data::Reader(reinterpret_cast<const uint8_t*>(s.poly_xy.data()),
                                    s.poly_xy.size_bytes()));
    r.setPolyPoints(capnp::Data::Reader(reinterpret_cast<const uint8_t*>(s.poly_points.data()),
                                        s.poly_points.size_bytes()));
    r.setPolyLabels(capnp::Data::Reader(s.poly_labels.data(), s.poly_labels.size()));
  }
  write_flat(out, message, external);
}

void write_meta(kj::OutputStream& out, const CacheMeta& m) {
  capnp::MallocMessageBuilder message;
  auto r = message.initRoot<wire::Meta>();
  r.setProfile(m.profile);
  r.setImageSize(static_cast<uint32_t>(m.image_size));
  r.setCodec(m.codec == PixelCodec::kJpeg ? wire::Codec::JPEG : wire::Codec::RAW);
  r.setJpegQuality(static_cast<uint8_t>(m.jpeg_quality));
  r.setBuildUnixSeconds(m.build_unix_seconds);
  r.setBuildSeconds(m.build_seconds);
  r.setDatasetRoot(m.dataset_root);
  r.setDatasetFormat(m.dataset_format);
  r.setNumWords(m.num_words);
  r.setNumIgnored(m.num_ignored);
  r.setPixelBytes(m.pixel_bytes);
  r.setRawPixelBytes(m.raw_pixel_bytes);
  r.setShardIndex(m.shard_index);
  r.setShardCount(m.shard_count);
  r.setFirstInput(m.first_input);
  r.setNumInputs(m.num_inputs);
  r.setDatasetSamples(m.dataset_samples);
  r.setDatasetFingerprint(m.dataset_fingerprint);
  r.setReaderOptions(m.reader_options);
  r.setRestartRows(m.restart_rows);
  r.setMaxBadShare(m.max_bad_share);
  auto q = r.initQuarantine(static_cast<unsigned>(m.quarantine.size()));
  for (size_t i = 0; i < m.quarantine.size(); ++i) {
    q[i].setFile(m.quarantine[i].file);
    q[i].setReason(m.quarantine[i].reason);
  }
  capnp::writeMessage(out, message);
}

Status read_sample(std::span<const capnp::word> words, SampleView& v) {
  try {
    capnp::FlatArrayMessageReader message(kj::arrayPtr(words.data(), words.size()),
                                          reader_options(words.size()));
    auto r = message.getRoot<wire::Sample>();
    auto name = r.getName();
    v.name = std::string_view(name.begin(), name.size());
    v.orig_width = static_cast<int>(r.getOrigWidth());
    v.orig_height = static_cast<int>(r.getOrigHeight());
    v.width = static_cast<int>(r.getWidth());
    v.height = static_cast<int>(r.getHeight());
    v.codec = r.getCodec() == wire::Codec::JPEG ? PixelCodec::kJpeg : PixelCodec::kRaw;
    if (r.getCodec() != wire::Codec::JPEG && r.getCodec() != wire::Codec::RAW)
      return Status::corrupt("unknown pixel codec " +
                             std::to_string(static_cast<int>(r.getCodec())));
    auto pixels = r.getPixels();
    v.pixels = {pixels.begin(), pixels.size()};
    auto quads = r.getQuads();
    if (quads.size() % sizeof(Quad) != 0)
      return Status::corrupt("quads field of " + std::to_string(quads.size()) +
                             " bytes is not whole quads");
    v.quads = {reinterpret_cast<const Quad*>(quads.begin()), quads.size() / sizeof(Quad)};
    auto labels = r.getLabels();
    v.labels = {labels.begin(), labels.size()};
    auto texts = r.getTexts();
    v.texts_blob = std::string_view(reinterpret_cast<const char*>(texts.begin()), texts.size());
    v.index = r.getIndex();
    auto poly_xy = r.getPolyXy();
    auto poly_points = r.getPolyPoints();
    auto poly_labels = r.getPolyLabels();
    // The blobs are 8-byte aligned in the mapped record (Cap'n Proto data is word-aligned).
    if (poly_xy.size() % sizeof(float) != 0 || poly_points.size() % sizeof(uint32_t) != 0)
      return Status::corrupt("polygon fields of " + std::to_string(poly_xy.size()) + " and " +
                             std::to_string(poly_points.size()) + " bytes are not whole numbers");
    v.poly_xy = {reinterpret_cast<const float*>(poly_xy.begin()), poly_xy.size() / sizeof(float)};
    v.poly_points = {reinterpret_cast<const uint32_t*>(poly_points.begin()),
                     poly_points.size() / sizeof(uint32_t)};
    v.poly_labels = {poly_labels.begin(), poly_labels.size()};
  } catch (const kj::Exception& e) {
    return Status::corrupt(std::string("malformed record: ") + e.getDescription().cStr());
  }
  return Status();
}

Status read_meta(std::span<const capnp::word> words, CacheMeta& m) {
  try {
    capnp::FlatArrayMessageReader message(kj::arrayPtr(words.data(), words.size()),
                                          reader_options(words.size()));
    auto r = message.getRoot<wire::Meta>();
    m.profile = r.getProfile();
    m.image_size = static_cast<int>(r.getImageSize());
    m.codec = r.getCodec() == wire::Codec::JPEG ? PixelCodec::kJpeg : PixelCodec::kRaw;
    m.jpeg_quality = r.getJpegQuality();
    m.build_unix_seconds = r.getBuildUnixSeconds();
    m.build_seconds = r.getBuildSeconds();
    m.dataset_root = r.getDatasetRoot();
    m.dataset_format = r.getDatasetFormat();
    m.num_words = r.getNumWords();
    m.num_ignored = r.getNumIgnored();
    m.pixel_bytes = r.getPixelBytes();
    m.raw_pixel_bytes = r.getRawPixelBytes();
    m.shard_index = r.getShardIndex();
    m.shard_count = r.getShardCount();
    m.first_input = r.getFirstInput();
    m.num_inputs = r.getNumInputs();
    m.dataset_samples = r.getDatasetSamples();
    m.dataset_fingerprint = r.getDatasetFingerprint();
    m.reader_options = r.getReaderOptions();
    m.restart_rows = r.getRestartRows();
    m.max_bad_share = r.getMaxBadShare();
    m.quarantine.clear();
    for (auto q : r.getQuarantine()) m.quarantine.push_back({q.getFile(), q.getReason()});
  } catch (const kj::Exception& e) {
    return Status::corrupt(std::string("malformed meta record: ") + e.getDescription().cStr());
  }
  return Status();
}

std::string check_words(std::span<const Quad> quads, std::span<const uint8_t> labels) {
  for (size_t q = 0; q < quads.size(); ++q) {
    for (float c : quads[q].xy)
      if (!std::isfinite(c))
        return "word " + std::to_string(q + 1) + " has a coordinate that is not finite";
    if (labels[q] != kLabelValid && labels[q] != kLabelIgnored)
      return "word " + std::to_string(q + 1) + " has label " + std::to_string(labels[q]) +
             " (1 = valid, 0 = ignored)";
  }
  return std::string();
}

std::string check_polygons(std::span<const float> xy, std::span<const uint32_t> points,
                           std::span<const uint8_t> labels) {
  if (labels.size() != points.size())
    return std::to_string(points.size()) + " polygons have " + std::to_string(labels.size()) +
           " labels";
  uint64_t total = 0;
  for (size_t p = 0; p < points.size(); ++p) {
    if (points[p] < 3)
      return "polygon " + std::to_string(p + 1) + " has " + std::to_string(points[p]) + " points";
    total += points[p];
    if (labels[p] != kLabelValid && labels[p] != kLabelIgnored)
      return "polygon " + std::to_string(p + 1) + " has label " + std::to_string(labels[p]);
  }
  if (total * 2 != xy.size())
    return "polygons of " + std::to_string(total) + " points hold " + std::to_string(xy.size()) +
           " coordinates";
  for (float c : xy)
    if (!std::isfinite(c)) return "a polygon coordinate is not finite";
  return std::string();
}

}  // namespace textfeed::cache::internal
