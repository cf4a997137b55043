// Envelope encoding and bounded decoding; the only file that sees the generated accessors.
//
// Each message has one pair of overloads, put(builder, value) and get(reader, value), written
// side by side so that a field added to one is seen missing from the other. get() checks what
// Cap'n Proto does not: enumerants this build knows and list lengths within the protocol's bounds
// (a small frame can hold a long list of empty elements, which the traversal limit counts as one
// word each: bounding the lengths keeps what a frame decodes to proportional to the frame, and
// what decodes also re-encodes within the limits). The values' own bounds (a batch size, a crop
// size) are the receiver's to check, with the same validate() as every other edge.
#include <capnp/dynamic.h>
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "loader/spec/spec_fields.h"
#include "transport/detail/field_codec.h"
#include "transport/protocol.capnp.h"
#include "transport/wire.h"

namespace textfeed::transport {
namespace {

namespace w = wire;

// The schema is the source of truth; wire.h and loader/spec/spec.h repeat these for code that does
// not see it.
static_assert(w::PROTOCOL_VERSION == kProtocolVersion);
static_assert(w::MAX_PAYLOAD_FRAME_BYTES == kMaxPayloadFrameBytes);

// A Text field as the bytes it holds, NULs included, and back (detail/field_codec.h).
std::string text(capnp::Text::Reader t) { return internal::text_bytes(t); }
capnp::Text::Reader text(const std::string& s) { return internal::text_view(s); }

constexpr size_t kMaxTensors = 16, kMaxNames = 4096, kMaxRows = 4096, kMaxListed = 65536,
                 kMaxStages = 64;

// ---- enumerants: C++ and schema ordinals are equal (asserted per enum below) ----

template <class W>
constexpr W kLast = W{};  // the last enumerant this build knows, per schema enum
template <>
constexpr w::DType kLast<w::DType> = w::DType::UINT8;
template <>
constexpr w::Transport kLast<w::Transport> = w::Transport::SHARED_MEMORY;
template <>
constexpr w::Payload kLast<w::Payload> = w::Payload::COMPACT;
template <>
constexpr w::OnBadSample kLast<w::OnBadSample> = w::OnBadSample::REPORT;
template <>
constexpr w::ChannelOrder kLast<w::ChannelOrder> = w::ChannelOrder::BGR;
template <>
constexpr w::InvalidPolygon kLast<w::InvalidPolygon> = w::InvalidPolygon::IGNORE;
template <>
constexpr w::ColorMath kLast<w::ColorMath> = w::ColorMath::ALBUMENTATIONS1412;
template <>
constexpr w::IgnoreText kLast<w::IgnoreText> = w::IgnoreText::EXACT;
template <>
constexpr w::PolyPolicy kLast<w::PolyPolicy> = w::PolyPolicy::MASK_IGNORE;
template <>
constexpr w::Illegibility kLast<w::Illegibility> = w::Illegibility::VALID;
template <>
constexpr w::ReaderFormat kLast<w::ReaderFormat> = w::ReaderFormat::MMOCR;
template <>
constexpr w::CropFallback kLast<w::CropFallback> = w::CropFallback::IGNORE_CUT;
template <>
constexpr w::MaskKind kLast<w::MaskKind> = w::MaskKind::IGNORED;
template <>
constexpr w::AngleError kLast<w::AngleError> = w::AngleError::UP;
template <>
constexpr w::FillRule kLast<w::FillRule> = w::FillRule::UNION;
template <>
constexpr w::Overlap kLast<w::Overlap> = w::Overlap::IGNORE;
template <>
constexpr w::IgnoredTargets kLast<w::IgnoredTargets> = w::IgnoredTargets::NONE;
template <>
constexpr w::RoiResize kLast<w::RoiResize> = w::RoiResize::RASTERIZE_AT_MAP;
template <>
constexpr w::Mode kLast<w::Mode> = w::Mode::EVAL;

template <class W, class C>
constexpr bool same_last(C last) {
  return static_cast<unsigned>(kLast<W>) == static_cast<unsigned>(last);
}
static_assert(same_last<w::DType>(DType::kU8) && static_cast<unsigned>(DType::kF32) == 0);
static_assert(same_last<w::Transport>(Transport::kSharedMemory) &&
              static_cast<unsigned>(Transport::kFrames) == 0);
static_assert(same_last<w::OnBadSample>(loader::OnBadSample::kReport));
static_assert(same_last<w::ChannelOrder>(augment::ChannelOrder::kBgr));
static_assert(same_last<w::InvalidPolygon>(augment::InvalidPolygon::kIgnore));
static_assert(same_last<w::ColorMath>(augment::ColorMath::kAlbumentations1412));
static_assert(same_last<w::IgnoreText>(loader::IgnoreText::kExact));
static_assert(same_last<w::PolyPolicy>(loader::PolyPolicy::kMaskIgnore));
static_assert(same_last<w::Illegibility>(loader::Illegibility::kValid) &&
              static_cast<unsigned>(loader::Illegibility::kIgnore) == 0);
static_assert(same_last<w::ReaderFormat>(loader::ReaderFormat::kMmocr) &&
              static_cast<unsigned>(loader::ReaderFormat::kAuto) == 0);
static_assert(same_last<w::CropFallback>(augment::CropFallback::kIgnoreCut));
static_assert(same_last<w::MaskKind>(augment::MaskKind::kIgnored));
static_assert(same_last<w::AngleError>(augment::AngleError::kUp));
static_assert(same_last<w::FillRule>(augment::FillRule::kUnion));
static_assert(same_last<w::Overlap>(augment::Overlap::kIgnore));
static_assert(same_last<w::IgnoredTargets>(augment::IgnoredTargets::kNone));
static_assert(same_last<w::RoiResize>(augment::RoiResize::kRasterizeAtMap));
static_assert(same_last<w::Mode>(loader::Mode::kEval) &&
              static_cast<unsigned>(loader::Mode::kTrain) == 0);

template <class W, class C>
W to_wire(C v) {
  return static_cast<W>(static_cast<uint16_t>(v));
}

// An enumerant past the last one this build knows makes the message invalid (protocol.capnp):
// it is refused rather than read as a default.
template <class W, class C>
Status from_wire(W v, const char* field, C& out) {
  if (static_cast<uint16_t>(v) > static_cast<uint16_t>(kLast<W>))
    return Status::invalid_argument(std::string(field) + " = " +
                                    std::to_string(static_cast<uint16_t>(v)) +
                                    " is not a value this daemon or client knows");
  out = static_cast<C>(static_cast<uint16_t>(v));
  return Status();
}

w::ErrorCode to_wire_code(Code c) { return static_cast<w::ErrorCode>(static_cast<uint16_t>(c)); }
// An unknown ErrorCode reads as `internal` (protocol.capnp).
Code from_wire_code(w::ErrorCode c) {
  const auto v = static_cast<uint16_t>(c);
  return v <= static_cast<uint16_t>(Code::kInternal) ? static_cast<Code>(v) : Code::kInternal;
}

// ---- lists ----

// A list past its bound is `corrupt` (no sender makes it); `code` says otherwise where it is not.
template <class List>
Status bounded(List list, size_t max, const char* field, Code code = Code::kCorrupt) {
  if (list.size() <= max) return Status();
  return Status(code, std::string(field) + " has " + std::to_string(list.size()) +
                          " entries, at most " + std::to_string(max) + " are allowed");
}

// A list of an OpenStream's spec past the bound loader::validate() gives it: a well-formed request
// for more than a stream may have, so invalidArgument (what validate() says), not corrupt.
template <class List>
Status bounded_spec(List list, size_t max, const char* field) {
  return bounded(list, max, field, Code::kInvalidArgument);
}

template <class B, class V>
void put_list(B list, const V& values) {
  for (size_t i = 0; i < std::size(values); ++i) list.set(static_cast<unsigned>(i), values[i]);
}

template <class R, class V>
Status get_list(R list, size_t max, const char* field, V& out) {
  TF_RETURN_IF_ERROR(bounded(list, max, field));
  out.clear();
  for (auto v : list) {
    if constexpr (std::is_same_v<decltype(v), capnp::Text::Reader>)
      out.push_back(text(v));
    else
      out.emplace_back(v);
  }
  return Status();
}

// ---- value types ----

void put(w::TensorDesc::Builder b, const TensorDesc& t) {
  b.setName(text(t.name));
  b.setDtype(to_wire<w::DType>(t.dtype));
  auto shape = b.initShape(static_cast<unsigned>(t.shape.size()));
  for (size_t k = 0; k < t.shape.size(); ++k)
    shape.set(static_cast<unsigned>(k), static_cast<uint64_t>(t.shape[k]));
  b.setOffset(t.offset_bytes);
  b.setSize(t.size_bytes);
}
Status get(w::TensorDesc::Reader r, TensorDesc& t) {
  t.name = text(r.getName());
  TF_RETURN_IF_ERROR(from_wire(r.getDtype(), "TensorDesc.dtype", t.dtype));
  const auto shape = r.getShape();
  TF_RETURN_IF_ERROR(bounded(shape, t.shape.size(), "TensorDesc.shape"));
  t.shape = {};
  for (unsigned k = 0; k < shape.size(); ++k) {
    if (shape[k] > static_cast<uint64_t>(INT64_MAX))
      return Status::corrupt("TensorDesc.shape holds a negative size");
    t.shape[k] = static_cast<int64_t>(shape[k]);
  }
  t.offset_bytes = r.getOffset();
  t.size_bytes = r.getSize();
  t.sample_bytes = t.shape[0] == 0 ? 0 : t.size_bytes / static_cast<uint64_t>(t.shape[0]);
  return Status();
}

template <class B>
void put_tensors(B list, const std::vector<TensorDesc>& ts) {
  for (size_t i = 0; i < ts.size(); ++i) put(list[static_cast<unsigned>(i)], ts[i]);
}
Status get_tensors(capnp::List<w::TensorDesc>::Reader list, const char* field,
                   std::vector<TensorDesc>& out) {
  TF_RETURN_IF_ERROR(bounded(list, kMaxTensors, field));
  out.resize(list.size());
  for (unsigned i = 0; i < list.size(); ++i) TF_RETURN_IF_ERROR(get(list[i], out[i]));
  return Status();
}

void put(w::SampleError::Builder b, const SampleError& e) {
  b.setIndex(e.index);
  b.setReplacedBy(e.replaced_by);
  b.setCode(to_wire_code(e.code));
  b.setMessage(text(e.message));
}
Status get(w::SampleError::Reader r, SampleError& e) {
  e = {r.getIndex(), r.getReplacedBy(), from_wire_code(r.getCode()), text(r.getMessage())};
  return Status();
}

// ---- the pipeline spec ----

// The reader options travel row by row (loader/spec/spec_fields.h, detail/field_codec.h).
void put(w::ReaderOptions::Builder b, const loader::ReaderOptions& o) {
  internal::put_fields(capnp::toDynamic(b), o, loader::reader_fields());
}
Status get(w::ReaderOptions::Reader r, loader::ReaderOptions& o) {
  return internal::get_fields(capnp::toDynamic(r), o, loader::reader_fields());
}

}  // namespace

std::string wire_field_name(std::string_view snake) {
  std::string out;
  bool upper = false;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

namespace {

// The recipe travels field by field as augment::recipe_fields() lists them (detail/field_codec.h),
// so that a new row needs only its field in protocol.capnp (tests/transport/recipe_schema_test.cc
// checks the schema against the table). The profile travels by name.
void put(w::Recipe::Builder b, const augment::AugmentOptions& o) {
  b.setProfile(std::string(augment::profile_name(o.profile)));
  internal::put_fields(capnp::toDynamic(b), o, augment::recipe_fields());
}

Status get(w::Recipe::Reader r, augment::AugmentOptions& o) {
  // Empty: AugmentOptions' default profile, as the enum's zero meant before.
  if (r.getProfile().size() == 0) {
    o.profile = augment::AugmentOptions{}.profile;
  } else {
    Result<augment::Profile> profile = augment::parse_profile(text(r.getProfile()));
    if (!profile.has_value()) return profile.error().with_context("Recipe.profile");
    o.profile = *profile;
  }
  return internal::get_fields(capnp::toDynamic(r), o, augment::recipe_fields());
}

// The wire's UInt32s become the sampler's ints: a value past INT32_MAX is refused here (the
// bounds proper are validate()'s).
Status to_int(uint32_t v, const char* field, int& out) {
  if (v > static_cast<uint32_t>(INT32_MAX))
    return Status::invalid_argument(std::string(field) + " = " + std::to_string(v) +
                                    " is out of range");
  out = static_cast<int>(v);
  return Status();
}

// The sampler's rows (loader/spec/spec_fields.h) through detail/field_codec.h; the resume, which no
// row holds, by hand.
void put(w::Sampler::Builder b, const loader::SamplerOptions& o) {
  internal::put_fields(capnp::toDynamic(b), o, loader::sampler_fields());
  b.setResumeEpoch(o.resume.epoch);
  auto stages = b.initResumeStages(static_cast<unsigned>(o.resume.stages.size()));
  for (size_t i = 0; i < o.resume.stages.size(); ++i) {
    const loader::ResumeStage& st = o.resume.stages[i];
    auto sb = stages[static_cast<unsigned>(i)];
    sb.setWorldSize(static_cast<uint32_t>(st.world_size));
    sb.setBatchSize(static_cast<uint32_t>(st.batch_size));
    auto batches = sb.initBatches(static_cast<unsigned>(st.batches.size()));
    for (size_t k = 0; k < st.batches.size(); ++k)
      batches.set(static_cast<unsigned>(k), st.batches[k]);
  }
}

Status get_resume(w::Sampler::Reader r, loader::ResumePoint& resume) {
  resume.epoch = r.getResumeEpoch();
  const auto stages = r.getResumeStages();
  TF_RETURN_IF_ERROR(bounded_spec(stages, loader::kMaxResumeStages, "Sampler.resumeStages"));
  resume.stages.resize(stages.size());
  for (unsigned i = 0; i < stages.size(); ++i) {
    loader::ResumeStage& st = resume.stages[i];
    TF_RETURN_IF_ERROR(to_int(stages[i].getWorldSize(), "ResumeStage.worldSize", st.world_size));
    TF_RETURN_IF_ERROR(to_int(stages[i].getBatchSize(), "ResumeStage.batchSize", st.batch_size));
    const auto batches = stages[i].getBatches();
    TF_RETURN_IF_ERROR(
        bounded_spec(batches, static_cast<size_t>(loader::kMaxWorldSize), "ResumeStage.batches"));
    st.batches.clear();
    for (uint64_t k : batches) st.batches.push_back(k);
  }
  return Status();
}
Status get(w::Sampler::Reader r, loader::SamplerOptions& o) {
  TF_RETURN_IF_ERROR(internal::get_fields(capnp::toDynamic(r), o, loader::sampler_fields()));
  return get_resume(r, o.resume);
}

void put(w::PipelineSpec::Builder b, const loader::PipelineSpec& s) {
  auto sources = b.initSources(static_cast<unsigned>(s.sources.size()));
  for (size_t i = 0; i < s.sources.size(); ++i) {
    sources[static_cast<unsigned>(i)].setPath(text(s.sources[i].path));
    put(sources[static_cast<unsigned>(i)].initReader(), s.sources[i].reader);
    sources[static_cast<unsigned>(i)].setWeight(s.sources[i].weight);
  }
  put(b.initRecipe(), s.augment);
  put(b.initSampler(), s.sampler);
  b.setOnBadSample(to_wire<w::OnBadSample>(s.on_bad_sample));
  b.setMode(to_wire<w::Mode>(s.mode));
  b.setReturnPolygons(s.return_polygons);
}
Status get(w::PipelineSpec::Reader r, loader::PipelineSpec& s) {
  const auto sources = r.getSources();
  TF_RETURN_IF_ERROR(bounded_spec(sources, loader::kMaxSources, "PipelineSpec.sources"));
  s.sources.resize(sources.size());
  for (unsigned i = 0; i < sources.size(); ++i) {
    s.sources[i].path = text(sources[i].getPath());
    TF_RETURN_IF_ERROR(get(sources[i].getReader(), s.sources[i].reader));
    s.sources[i].weight = sources[i].getWeight();
  }
  TF_RETURN_IF_ERROR(get(r.getRecipe(), s.augment));
  TF_RETURN_IF_ERROR(get(r.getSampler(), s.sampler));
  TF_RETURN_IF_ERROR(from_wire(r.getOnBadSample(), "PipelineSpec.onBadSample", s.on_bad_sample));
  s.return_polygons = r.getReturnPolygons();
  return from_wire(r.getMode(), "PipelineSpec.mode", s.mode);
}

// ---- messages ----

void put(w::Hello::Builder b, const Hello& m) {
  b.setProtocolVersion(m.protocol_version);
  b.setClientName(text(m.client_name));
  b.setSession(m.session);
}
Status get(w::Hello::Reader r, Hello& m) {
  m = {r.getProtocolVersion(), text(r.getClientName()), r.getSession()};
  return Status();
}

void put(w::HelloReply::Builder b, const HelloReply& m) {
  b.setProtocolVersion(m.protocol_version);
  b.setServerName(text(m.server_name));
  auto d = b.initDatasets(static_cast<unsigned>(m.datasets.size()));
  for (size_t i = 0; i < m.datasets.size(); ++i)
    d.set(static_cast<unsigned>(i), text(m.datasets[i]));
  b.setMemorySocket(text(m.memory_socket));
  b.setHeartbeatMillis(m.heartbeat_millis);
  b.setServerHeartbeatMillis(m.server_heartbeat_millis);
}
Status get(w::HelloReply::Reader r, HelloReply& m) {
  m.protocol_version = r.getProtocolVersion();
  m.server_name = text(r.getServerName());
  TF_RETURN_IF_ERROR(get_list(r.getDatasets(), kMaxNames, "HelloReply.datasets", m.datasets));
  m.memory_socket = text(r.getMemorySocket());
  m.heartbeat_millis = r.getHeartbeatMillis();
  m.server_heartbeat_millis = r.getServerHeartbeatMillis();
  return Status();
}

void put(w::OpenStream::Builder b, const OpenStream& m) {
  put(b.initSpec(), m.spec);
  b.setEpoch(m.start.epoch);
  b.setStartBatch(m.start.batch);
  b.setTransport(to_wire<w::Transport>(m.transport));
  b.setAssigned(m.assigned);
  b.setPayload(to_wire<w::Payload>(m.payload));
}
Status get(w::OpenStream::Reader r, OpenStream& m) {
  if (!r.hasSpec())
    return Status::invalid_argument("OpenStream has no spec (a client older than protocol 3?)");
  TF_RETURN_IF_ERROR(get(r.getSpec(), m.spec));
  m.start = {r.getEpoch(), r.getStartBatch()};
  m.assigned = r.getAssigned();
  TF_RETURN_IF_ERROR(from_wire(r.getPayload(), "OpenStream.payload", m.payload));
  return from_wire(r.getTransport(), "OpenStream.transport", m.transport);
}

void put(w::AttachMemory::Builder b, const AttachMemory& m) {
  b.setStreamId(m.stream_id);
  b.setSlots(m.slots);
  b.setSlotStride(m.slot_stride);
}
Status get(w::AttachMemory::Reader r, AttachMemory& m) {
  m = {r.getStreamId(), r.getSlots(), r.getSlotStride()};
  return Status();
}

void put(w::MemoryAttached::Builder b, const MemoryAttached& m) { b.setStreamId(m.stream_id); }
Status get(w::MemoryAttached::Reader r, MemoryAttached& m) {
  m.stream_id = r.getStreamId();
  return Status();
}

void put(w::StreamOpened::Builder b, const StreamOpened& m) {
  b.setStreamId(m.stream_id);
  b.setBatchesPerEpoch(m.batches_per_epoch);
  b.setDatasetSize(m.dataset_size);
  b.setSlotBytes(m.slot_bytes);
  put_tensors(b.initTensors(static_cast<unsigned>(m.tensors.size())), m.tensors);
  b.setMaxCredits(m.max_credits);
  b.setMemoryToken(kj::arrayPtr(reinterpret_cast<const kj::byte*>(m.memory_token.data()),
                                m.memory_token.size()));
  b.setDatasetFingerprint(m.dataset_fingerprint);
  b.setResumedBatches(m.resumed_batches);
  auto sizes = b.initSourceSizes(static_cast<unsigned>(m.source_sizes.size()));
  for (size_t i = 0; i < m.source_sizes.size(); ++i)
    sizes.set(static_cast<unsigned>(i), m.source_sizes[i]);
  b.setAssigned(m.assigned);
  b.setCompactBytes(m.compact_bytes);
}
Status get(w::StreamOpened::Reader r, StreamOpened& m) {
  m.stream_id = r.getStreamId();
  m.batches_per_epoch = r.getBatchesPerEpoch();
  m.dataset_size = r.getDatasetSize();
  m.slot_bytes = r.getSlotBytes();
  TF_RETURN_IF_ERROR(get_tensors(r.getTensors(), "StreamOpened.tensors", m.tensors));
  m.max_credits = r.getMaxCredits();
  const auto token = r.getMemoryToken();
  m.memory_token.assign(token.begin(), token.end());
  m.dataset_fingerprint = r.getDatasetFingerprint();
  m.resumed_batches = r.getResumedBatches();
  const auto sizes = r.getSourceSizes();
  TF_RETURN_IF_ERROR(bounded(sizes, loader::kMaxSources, "StreamOpened.sourceSizes"));
  m.source_sizes.clear();
  for (uint64_t n : sizes) m.source_sizes.push_back(n);
  m.assigned = r.getAssigned();
  m.compact_bytes = r.getCompactBytes();
  return Status();
}

void put(w::Credit::Builder b, const Credit& m) {
  b.setStreamId(m.stream_id);
  put_list(b.initSlots(static_cast<unsigned>(m.slots.size())), m.slots);
  b.setCount(m.count);
  auto epochs = b.initEpochs(static_cast<unsigned>(m.batches.size()));
  auto batches = b.initBatches(static_cast<unsigned>(m.batches.size()));
  for (size_t i = 0; i < m.batches.size(); ++i) {
    epochs.set(static_cast<unsigned>(i), m.batches[i].epoch);
    batches.set(static_cast<unsigned>(i), m.batches[i].batch);
  }
}
Status get(w::Credit::Reader r, Credit& m) {
  m.stream_id = r.getStreamId();
  TF_RETURN_IF_ERROR(get_list(r.getSlots(), kMaxRows, "Credit.slots", m.slots));
  m.count = r.getCount();
  const auto epochs = r.getEpochs();
  const auto batches = r.getBatches();
  TF_RETURN_IF_ERROR(bounded(epochs, kMaxRows, "Credit.epochs"));
  if (batches.size() != epochs.size())
    return Status::corrupt("Credit.batches lists " + std::to_string(batches.size()) +
                           " batches for " + std::to_string(epochs.size()) + " epochs");
  m.batches.clear();
  for (unsigned i = 0; i < epochs.size(); ++i) m.batches.push_back({epochs[i], batches[i]});
  return Status();
}

// The per-sample metadata as the flat lists of protocol.capnp Batch.
void put_samples(w::Batch::Builder b, const std::vector<SampleMeta>& samples) {
  size_t words = 0, points = 0;
  for (const SampleMeta& m : samples) {
    words += m.points.size();
    points += m.xy.size() / 2;
  }
  const auto n = static_cast<unsigned>(samples.size());
  auto ids = b.initImageIds(n);
  auto sizes = b.initOriginalSizes(2 * n);
  auto scales = b.initScales(2 * n);
  auto word_counts = b.initWordCounts(n);
  auto point_counts = b.initPointCounts(static_cast<unsigned>(words));
  auto xy = b.initXy(static_cast<unsigned>(2 * points));
  auto ignore = b.initIgnore(static_cast<unsigned>(words));
  unsigned word = 0, point = 0;
  for (unsigned i = 0; i < n; ++i) {
    const SampleMeta& m = samples[i];
    ids.set(i, text(m.image_id));
    sizes.set(2 * i, static_cast<uint32_t>(m.height));
    sizes.set(2 * i + 1, static_cast<uint32_t>(m.width));
    scales.set(2 * i, m.scale_x);
    scales.set(2 * i + 1, m.scale_y);
    word_counts.set(i, static_cast<uint32_t>(m.points.size()));
    for (size_t k = 0; k < m.points.size(); ++k, ++word) {
      point_counts.set(word, m.points[k]);
      ignore.set(word, m.ignore[k] != 0);
    }
    for (float v : m.xy) xy.set(point++, v);
  }
}

// Bounds first (a frame's lists are bounded by its size, not by what they claim), then the lists'
// agreement with each other, then the values (check_sample_meta).
Status get_samples(w::Batch::Reader r, size_t rows, std::vector<SampleMeta>& out) {
  const auto ids = r.getImageIds();
  const auto sizes = r.getOriginalSizes(), word_counts = r.getWordCounts(),
             point_counts = r.getPointCounts();
  const auto scales = r.getScales();
  const auto xy = r.getXy();
  const auto ignore = r.getIgnore();
  out.clear();
  if (ids.size() == 0 && sizes.size() == 0 && scales.size() == 0 && word_counts.size() == 0 &&
      point_counts.size() == 0 && xy.size() == 0 && ignore.size() == 0)
    return Status();
  TF_RETURN_IF_ERROR(bounded(point_counts, kMaxBatchWords, "Batch.pointCounts"));
  TF_RETURN_IF_ERROR(bounded(xy, 2 * kMaxBatchPoints, "Batch.xy"));
  if (ids.size() != rows || sizes.size() != 2 * rows || scales.size() != 2 * rows ||
      word_counts.size() != rows || ignore.size() != point_counts.size())
    return Status::corrupt("Batch: the per-sample lists do not have one entry per row (" +
                           std::to_string(rows) + " rows) and one per word");
  out.resize(rows);
  unsigned word = 0, point = 0;
  for (unsigned i = 0; i < rows; ++i) {
    SampleMeta& m = out[i];
    m.image_id = text(ids[i]);
    if (sizes[2 * i] > INT32_MAX || sizes[2 * i + 1] > INT32_MAX)
      return Status::corrupt("Batch.originalSizes: row " + std::to_string(i) +
                             " is larger than 2^31 px");
    m.height = static_cast<int32_t>(sizes[2 * i]);
    m.width = static_cast<int32_t>(sizes[2 * i + 1]);
    m.scale_x = scales[2 * i];
    m.scale_y = scales[2 * i + 1];
    const uint32_t nw = word_counts[i];
    if (nw > point_counts.size() - word)
      return Status::corrupt("Batch.wordCounts names more words than pointCounts has");
    for (uint32_t k = 0; k < nw; ++k, ++word) {
      const uint32_t np = point_counts[word];
      if (np > (xy.size() - point) / 2)
        return Status::corrupt("Batch.pointCounts names more points than xy has");
      m.points.push_back(np);
      m.ignore.push_back(ignore[word] ? 1 : 0);
      for (uint32_t c = 0; c < 2 * np; ++c) m.xy.push_back(xy[point++]);
    }
  }
  if (word != point_counts.size() || point != xy.size())
    return Status::corrupt("Batch: pointCounts or xy hold entries no row's words use");
  if (Status s = check_sample_meta(out); !s.ok()) return Status::corrupt("Batch: " + s.message());
  return Status();
}

// The compact rows as the flat lists of protocol.capnp Batch.compact*.
void put_compact(w::Batch::Builder b, const std::vector<CompactRow>& rows) {
  const auto n = static_cast<unsigned>(rows.size());
  size_t words = 0;
  for (const CompactRow& row : rows) words += row.labels.size();
  auto factors = b.initCompactFactors(4 * n);
  auto orders = b.initCompactOrders(4 * n);
  auto applied = b.initCompactApplied(n);
  auto counts = b.initCompactWords(n);
  auto quads = b.initCompactQuads(static_cast<unsigned>(8 * words));
  auto labels = b.initCompactLabels(static_cast<unsigned>(words));
  unsigned w = 0;
  for (unsigned i = 0; i < n; ++i) {
    const CompactRow& row = rows[i];
    const double f[4] = {row.color.brightness, row.color.contrast, row.color.saturation,
                         row.color.hue};
    for (unsigned k = 0; k < 4; ++k) {
      factors.set(4 * i + k, f[k]);
      orders.set(4 * i + k, static_cast<uint8_t>(row.color.order[k]));
    }
    applied.set(i, row.color.applied);
    counts.set(i, static_cast<uint32_t>(row.labels.size()));
    for (size_t j = 0; j < row.labels.size(); ++j, ++w) {
      labels.set(w, row.labels[j]);
      for (unsigned k = 0; k < 8; ++k) quads.set(8 * w + k, row.quads[8 * j + k]);
    }
  }
}

// Bounded and consistent; the values themselves are the expander's to check.
Status get_compact(w::Batch::Reader r, size_t rows, std::vector<CompactRow>& out) {
  out.clear();
  const auto factors = r.getCompactFactors();
  const auto orders = r.getCompactOrders();
  const auto applied = r.getCompactApplied();
  const auto counts = r.getCompactWords();
  const auto quads = r.getCompactQuads();
  const auto labels = r.getCompactLabels();
  if (counts.size() == 0 && factors.size() == 0 && quads.size() == 0 && labels.size() == 0 &&
      applied.size() == 0 && orders.size() == 0)
    return Status();
  if (counts.size() != rows || applied.size() != rows || factors.size() != 4 * rows ||
      orders.size() != 4 * rows)
    return Status::corrupt(
        "Batch.compact* lists do not have one entry (4 for factors and orders) per row of " +
        std::to_string(rows));
  TF_RETURN_IF_ERROR(bounded(labels, kMaxCompactWords, "Batch.compactLabels"));
  uint64_t words = 0;
  for (uint32_t c : counts) words += c;
  if (words != labels.size() || quads.size() != 8 * labels.size())
    return Status::corrupt("Batch.compactWords sum to " + std::to_string(words) +
                           " words; compactLabels has " + std::to_string(labels.size()) +
                           " and compactQuads " + std::to_string(quads.size()) +
                           " coordinates (8 per word)");
  out.resize(rows);
  unsigned w = 0;
  for (unsigned i = 0; i < rows; ++i) {
    CompactRow& row = out[i];
    row.color.brightness = factors[4 * i];
    row.color.contrast = factors[4 * i + 1];
    row.color.saturation = factors[4 * i + 2];
    row.color.hue = factors[4 * i + 3];
    for (unsigned k = 0; k < 4; ++k) {
      const uint8_t op = orders[4 * i + k];
      if (op > 3)
        return Status::corrupt("Batch.compactOrders holds " + std::to_string(op) +
                               ", not a colour op");
      row.color.order[k] = static_cast<ColorOp>(op);
    }
    row.color.applied = applied[i];
    row.labels.resize(counts[i]);
    row.quads.resize(8 * size_t{counts[i]});
    for (uint32_t j = 0; j < counts[i]; ++j, ++w) {
      row.labels[j] = labels[w];
      for (unsigned k = 0; k < 8; ++k) row.quads[8 * j + k] = quads[8 * w + k];
    }
  }
  return Status();
}

// A batch's metadata (base/batch_info.h) in its Batch fields. The lists are built after the
// tensors' (put() below): Cap'n Proto lays them out in the order they are made.
void put_info(w::Batch::Builder b, const BatchInfo& m) {
  b.setEpoch(m.epoch);
  b.setBatch(m.batch);
  put_list(b.initIndices(static_cast<unsigned>(m.indices.size())), m.indices);
  auto errors = b.initErrors(static_cast<unsigned>(m.errors.size()));
  for (size_t i = 0; i < m.errors.size(); ++i) put(errors[static_cast<unsigned>(i)], m.errors[i]);
  if (!m.samples.empty()) put_samples(b, m.samples);
  if (m.polygons != PolygonCounts{}) {
    const PolygonCounts& p = m.polygons;
    const uint32_t counts[6] = {p.non_finite,        p.degenerate, p.out_of_image,
                                p.self_intersecting, p.repaired,   p.ignored};
    put_list(b.initPolygonCounts(6), counts);
  }
  if (!m.compact.empty()) put_compact(b, m.compact);
}
Status get_info(w::Batch::Reader r, BatchInfo& m) {
  m.epoch = r.getEpoch();
  m.batch = r.getBatch();
  TF_RETURN_IF_ERROR(get_list(r.getIndices(), kMaxRows, "Batch.indices", m.indices));
  const auto errors = r.getErrors();
  TF_RETURN_IF_ERROR(bounded(errors, kMaxRows, "Batch.errors"));
  m.errors.resize(errors.size());
  for (unsigned i = 0; i < errors.size(); ++i) TF_RETURN_IF_ERROR(get(errors[i], m.errors[i]));
  const auto counts = r.getPolygonCounts();
  if (counts.size() != 0 && counts.size() != 6)
    return Status::corrupt("Batch.polygonCounts has " + std::to_string(counts.size()) +
                           " values; 0 or 6 are expected");
  if (counts.size() == 6)
    m.polygons = {counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]};
  TF_RETURN_IF_ERROR(get_compact(r, m.indices.size(), m.compact));
  return get_samples(r, m.indices.size(), m.samples);
}

void put(w::Batch::Builder b, const BatchHeader& m) {
  b.setStreamId(m.stream_id);
  b.setSlot(m.slot);
  put_tensors(b.initTensors(static_cast<unsigned>(m.tensors.size())), m.tensors);
  put_info(b, m);
}
Status get(w::Batch::Reader r, BatchHeader& m) {
  m.stream_id = r.getStreamId();
  m.slot = r.getSlot();
  TF_RETURN_IF_ERROR(get_tensors(r.getTensors(), "Batch.tensors", m.tensors));
  return get_info(r, m);
}

void put(w::EndOfEpoch::Builder b, const EndOfEpoch& m) {
  b.setStreamId(m.stream_id);
  b.setEpoch(m.epoch);
}
Status get(w::EndOfEpoch::Reader r, EndOfEpoch& m) {
  m = {r.getStreamId(), r.getEpoch()};
  return Status();
}

void put(w::Error::Builder b, const ErrorReply& m) {
  b.setCode(to_wire_code(m.code));
  b.setMessage(text(m.message));
  b.setStreamId(m.stream_id);
}
Status get(w::Error::Reader r, ErrorReply& m) {
  m = {from_wire_code(r.getCode()), text(r.getMessage()), r.getStreamId()};
  return Status();
}

void put(w::Close::Builder b, const Close& m) { b.setStreamId(m.stream_id); }
Status get(w::Close::Reader r, Close& m) {
  m.stream_id = r.getStreamId();
  return Status();
}

void put(w::Closed::Builder b, const Closed& m) {
  b.setStreamId(m.stream_id);
  b.setBatchesDelivered(m.batches_delivered);
}
Status get(w::Closed::Reader r, Closed& m) {
  m = {r.getStreamId(), r.getBatchesDelivered()};
  return Status();
}

void put(w::Heartbeat::Builder b, const Heartbeat& m) { b.setUnixMillis(m.unix_millis); }
Status get(w::Heartbeat::Reader r, Heartbeat& m) {
  m.unix_millis = r.getUnixMillis();
  return Status();
}

void put(w::StatsRequest::Builder, const StatsRequest&) {}
Status get(w::StatsRequest::Reader, StatsRequest&) { return Status(); }

void put(w::StreamStats::Builder x, const StreamStats& s) {
  x.setStreamId(s.stream_id);
  x.setDataset(text(s.dataset));
  x.setRank(s.rank);
  x.setWorldSize(s.world_size);
  x.setBatches(s.batches);
  x.setSamplesPerSecond(s.samples_per_second);
  x.setCreditsOutstanding(s.credits_outstanding);
  x.setSkippedSamples(s.skipped_samples);
  x.setSamples(s.samples);
  x.setInFlight(s.in_flight);
  x.setEpoch(s.epoch);
  x.setNextBatch(s.next_batch);
  x.setTransport(to_wire<w::Transport>(s.transport));
  x.setClient(text(s.client));
  put_list(x.initStageMs(static_cast<unsigned>(s.stage_ms.size())), s.stage_ms);
}
Status get(w::StreamStats::Reader x, StreamStats& s) {
  s.stream_id = x.getStreamId();
  s.dataset = text(x.getDataset());
  s.rank = x.getRank();
  s.world_size = x.getWorldSize();
  s.batches = x.getBatches();
  s.samples_per_second = x.getSamplesPerSecond();
  s.credits_outstanding = x.getCreditsOutstanding();
  s.skipped_samples = x.getSkippedSamples();
  s.samples = x.getSamples();
  s.in_flight = x.getInFlight();
  s.epoch = x.getEpoch();
  s.next_batch = x.getNextBatch();
  TF_RETURN_IF_ERROR(from_wire(x.getTransport(), "StreamStats.transport", s.transport));
  s.client = text(x.getClient());
  return get_list(x.getStageMs(), kMaxStages, "StreamStats.stageMs", s.stage_ms);
}

void put(w::Stats::Builder b, const Stats& m) {
  auto streams = b.initStreams(static_cast<unsigned>(m.streams.size()));
  for (size_t i = 0; i < m.streams.size(); ++i)
    put(streams[static_cast<unsigned>(i)], m.streams[i]);
  b.setSamplesPerSecond(m.samples_per_second);
  put_list(b.initStageMs(static_cast<unsigned>(m.stage_ms.size())), m.stage_ms);
  b.setQueueDepth(m.queue_depth);
  auto names = b.initStageNames(static_cast<unsigned>(m.stage_names.size()));
  for (size_t i = 0; i < m.stage_names.size(); ++i)
    names.set(static_cast<unsigned>(i), text(m.stage_names[i]));
  b.setSamples(m.samples);
  b.setSkippedSamples(m.skipped_samples);
  b.setUptimeSeconds(m.uptime_seconds);
  b.setThreads(m.threads);
  b.setClients(m.clients);
}
Status get(w::Stats::Reader r, Stats& m) {
  const auto streams = r.getStreams();
  TF_RETURN_IF_ERROR(bounded(streams, kMaxListed, "Stats.streams"));
  m.streams.resize(streams.size());
  for (unsigned i = 0; i < streams.size(); ++i) TF_RETURN_IF_ERROR(get(streams[i], m.streams[i]));
  m.samples_per_second = r.getSamplesPerSecond();
  TF_RETURN_IF_ERROR(get_list(r.getStageMs(), kMaxStages, "Stats.stageMs", m.stage_ms));
  m.queue_depth = r.getQueueDepth();
  TF_RETURN_IF_ERROR(get_list(r.getStageNames(), kMaxStages, "Stats.stageNames", m.stage_names));
  m.samples = r.getSamples();
  m.skipped_samples = r.getSkippedSamples();
  m.uptime_seconds = r.getUptimeSeconds();
  m.threads = r.getThreads();
  m.clients = r.getClients();
  return Status();
}

// ---- the envelope: which union member holds which message ----

template <class T>
struct Member;
#define TEXTFEED_MEMBER(Type, Tag, Name)                                \
  template <>                                                           \
  struct Member<Type> {                                                 \
    static constexpr w::Envelope::Which kWhich = w::Envelope::Tag;      \
    static auto init(w::Envelope::Builder e) { return e.init##Name(); } \
    static auto read(w::Envelope::Reader e) { return e.get##Name(); }   \
  }
TEXTFEED_MEMBER(Hello, HELLO, Hello);
TEXTFEED_MEMBER(HelloReply, HELLO_REPLY, HelloReply);
TEXTFEED_MEMBER(OpenStream, OPEN_STREAM, OpenStream);
TEXTFEED_MEMBER(StreamOpened, STREAM_OPENED, StreamOpened);
TEXTFEED_MEMBER(Credit, CREDIT, Credit);
TEXTFEED_MEMBER(BatchHeader, BATCH, Batch);
TEXTFEED_MEMBER(EndOfEpoch, END_OF_EPOCH, EndOfEpoch);
TEXTFEED_MEMBER(ErrorReply, ERROR, Error);
TEXTFEED_MEMBER(Close, CLOSE, Close);
TEXTFEED_MEMBER(Heartbeat, HEARTBEAT, Heartbeat);
TEXTFEED_MEMBER(AttachMemory, ATTACH_MEMORY, AttachMemory);
TEXTFEED_MEMBER(MemoryAttached, MEMORY_ATTACHED, MemoryAttached);
TEXTFEED_MEMBER(Closed, CLOSED, Closed);
TEXTFEED_MEMBER(StatsRequest, STATS_REQUEST, StatsRequest);
TEXTFEED_MEMBER(Stats, STATS, Stats);
#undef TEXTFEED_MEMBER

// The Message alternative whose member `e` holds, or kUnimplemented for one this build does not
// handle (a newer peer's).
template <size_t... I>
Result<Message> get_envelope(w::Envelope::Reader e, std::index_sequence<I...>) {
  Result<Message> out =
      Status::unimplemented("envelope member " + std::to_string(static_cast<int>(e.which())) +
                            " is not handled by this build");
  const auto try_one = [&]<size_t K>() {
    using T = std::variant_alternative_t<K, Message>;
    if (e.which() != Member<T>::kWhich) return false;
    T m;
    const Status s = get(Member<T>::read(e), m);
    out = s.ok() ? Result<Message>(std::move(m)) : Result<Message>(s);
    return true;
  };
  (try_one.template operator()<I>() || ...);
  return out;
}

}  // namespace

std::string_view transport_name(Transport t) {
  switch (t) {
    case Transport::kSharedMemory:
      return "shm";
    case Transport::kFrames:
      return "frames";
    case Transport::kAuto:
      break;
  }
  return "auto";
}

std::string_view payload_name(Payload p) { return p == Payload::kCompact ? "compact" : "full"; }

Result<Payload> parse_payload(std::string_view name) {
  for (Payload p : {Payload::kFull, Payload::kCompact})
    if (name == payload_name(p)) return p;
  return Status::invalid_argument("payload must be 'full' or 'compact', got '" + std::string(name) +
                                  "'");
}

Result<Transport> parse_transport(std::string_view name) {
  for (Transport t : {Transport::kAuto, Transport::kSharedMemory, Transport::kFrames})
    if (name == transport_name(t)) return t;
  return Status::invalid_argument("transport must be 'auto', 'shm' or 'frames', got '" +
                                  std::string(name) + "'");
}

Result<std::vector<uint8_t>> encode(const Message& message) {
  if (const auto* open = std::get_if<OpenStream>(&message);
      open && open->transport == Transport::kAuto)
    return Status::invalid_argument(
        "OpenStream.transport is 'auto': a client resolves it before it asks");
  try {
    capnp::MallocMessageBuilder builder;
    auto envelope = builder.initRoot<w::Envelope>();
    std::visit([&](const auto& m) { put(Member<std::decay_t<decltype(m)>>::init(envelope), m); },
               message);
    const kj::Array<capnp::word> words = capnp::messageToFlatArray(builder);
    const auto bytes = words.asBytes();
    if (bytes.size() > kMaxEnvelopeBytes)
      return Status::invalid_argument("envelope of " + std::to_string(bytes.size()) +
                                      " bytes exceeds the limit");
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
  } catch (const kj::Exception& e) {
    return Status::internal(std::string("encoding an envelope: ") + e.getDescription().cStr());
  }
}

Result<Message> decode(std::span<const uint8_t> frame) {
  if (frame.size() > kMaxEnvelopeBytes)
    return Status::corrupt("envelope of " + std::to_string(frame.size()) +
                           " bytes exceeds the limit of " + std::to_string(kMaxEnvelopeBytes));
  if (frame.empty() || frame.size() % sizeof(capnp::word) != 0)
    return Status::corrupt("envelope of " + std::to_string(frame.size()) +
                           " bytes is not whole 8-byte words");
  // ZeroMQ frames carry no alignment promise: copy into words (at most kMaxEnvelopeBytes).
  kj::Array<capnp::word> words = kj::heapArray<capnp::word>(frame.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), frame.data(), frame.size());
  try {
    capnp::ReaderOptions options;
    // Each list is read once or twice (its length, then its entries), and the traversal limit
    // counts every read: four times the frame's largest size bounds the work and never refuses
    // what encode() made.
    options.traversalLimitInWords = 4 * kMaxEnvelopeBytes / sizeof(capnp::word);
    options.nestingLimit = 16;
    capnp::FlatArrayMessageReader reader(words, options);
    return get_envelope(reader.getRoot<w::Envelope>(),
                        std::make_index_sequence<std::variant_size_v<Message>>());
  } catch (const kj::Exception& e) {
    return Status::corrupt(std::string("malformed envelope: ") + e.getDescription().cStr());
  }
}

}  // namespace textfeed::transport
