// Envelope encoding and bounded decoding; the only file that sees the generated accessors.
#include <cstring>

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include "transport/protocol.capnp.h"
#include "transport/wire.h"

namespace textfeed::transport {
namespace {

namespace w = wire;

// The schema is the source of truth; wire.h repeats these for code that does not see it.
static_assert(w::PROTOCOL_VERSION == kProtocolVersion);
static_assert(w::MAX_PAYLOAD_FRAME_BYTES == kMaxPayloadFrameBytes);

w::DType to_wire(DType t) { return t == DType::kU8 ? w::DType::UINT8 : w::DType::FLOAT32; }
DType from_wire(w::DType t) { return t == w::DType::UINT8 ? DType::kU8 : DType::kF32; }
w::ErrorCode to_wire(Code c) { return static_cast<w::ErrorCode>(static_cast<uint16_t>(c)); }
Code from_wire(w::ErrorCode c) {
  const auto v = static_cast<uint16_t>(c);
  return v <= static_cast<uint16_t>(Code::kInternal) ? static_cast<Code>(v) : Code::kInternal;
}

template <class B>
void set_tensors(B list, const std::vector<TensorDescriptor>& ts) {
  for (size_t i = 0; i < ts.size(); ++i) {
    auto t = list[static_cast<unsigned>(i)];
    t.setName(ts[i].name);
    t.setDtype(to_wire(ts[i].dtype));
    auto shape = t.initShape(static_cast<unsigned>(ts[i].shape.size()));
    for (size_t k = 0; k < ts[i].shape.size(); ++k) shape.set(static_cast<unsigned>(k), ts[i].shape[k]);
    t.setOffset(ts[i].offset);
    t.setSize(ts[i].size);
  }
}

w::Transport to_wire(WireTransport t) {
  return t == WireTransport::kSharedMemory ? w::Transport::SHARED_MEMORY : w::Transport::FRAMES;
}
WireTransport from_wire(w::Transport t) {
  return t == w::Transport::SHARED_MEMORY ? WireTransport::kSharedMemory : WireTransport::kFrames;
}

template <class B>
void set_doubles(B list, const std::vector<double>& v) {
  for (size_t i = 0; i < v.size(); ++i) list.set(static_cast<unsigned>(i), v[i]);
}

std::vector<TensorDescriptor> get_tensors(capnp::List<w::TensorDesc>::Reader list) {
  std::vector<TensorDescriptor> out;
  for (auto t : list) {
    TensorDescriptor d;
    d.name = t.getName();
    d.dtype = from_wire(t.getDtype());
    for (uint64_t s : t.getShape()) d.shape.push_back(s);
    d.offset = t.getOffset();
    d.size = t.getSize();
    out.push_back(std::move(d));
  }
  return out;
}

struct Encoder {
  w::Envelope::Builder e;
  void operator()(const Hello& m) {
    auto b = e.initHello();
    b.setProtocolVersion(m.protocol_version);
    b.setClientName(m.client_name);
    b.setSession(m.session);
  }
  void operator()(const HelloReply& m) {
    auto b = e.initHelloReply();
    b.setProtocolVersion(m.protocol_version);
    b.setServerName(m.server_name);
    auto d = b.initDatasets(static_cast<unsigned>(m.datasets.size()));
    for (size_t i = 0; i < m.datasets.size(); ++i) d.set(static_cast<unsigned>(i), m.datasets[i]);
    b.setMemorySocket(m.memory_socket);
    b.setHeartbeatMillis(m.heartbeat_millis);
    b.setServerHeartbeatMillis(m.server_heartbeat_millis);
  }
  void operator()(const OpenStream& m) {
    auto b = e.initOpenStream();
    b.setDataset(m.dataset);
    b.setProfile(m.profile);
    auto o = b.initOverrides(static_cast<unsigned>(m.overrides.size()));
    for (size_t i = 0; i < m.overrides.size(); ++i) {
      o[static_cast<unsigned>(i)].setName(m.overrides[i].first);
      o[static_cast<unsigned>(i)].setValue(m.overrides[i].second);
    }
    b.setSeed(m.seed);
    b.setEpoch(m.epoch);
    b.setStartBatch(m.start_batch);
    b.setBatchSize(m.batch_size);
    b.setRank(m.rank);
    b.setWorldSize(m.world_size);
    b.setShuffle(m.shuffle);
    b.setDropLast(m.drop_last);
    b.setDtype(to_wire(m.dtype));
    b.setTransport(to_wire(m.transport));
    b.setOnBadSample(m.on_bad_sample == WireOnBadSample::kFail ? w::OnBadSample::FAIL : w::OnBadSample::SKIP);
  }
  void operator()(const AttachMemory& m) {
    auto b = e.initAttachMemory();
    b.setStreamId(m.stream_id);
    b.setSlots(m.slots);
    b.setSlotStride(m.slot_stride);
  }
  void operator()(const MemoryAttached& m) { e.initMemoryAttached().setStreamId(m.stream_id); }
  void operator()(const Closed& m) {
    auto b = e.initClosed();
    b.setStreamId(m.stream_id);
    b.setBatchesDelivered(m.batches_delivered);
  }
  void operator()(const StatsRequest&) { e.initStatsRequest(); }
  void operator()(const Stats& m) {
    auto b = e.initStats();
    auto streams = b.initStreams(static_cast<unsigned>(m.streams.size()));
    for (size_t i = 0; i < m.streams.size(); ++i) {
      const StreamStats& s = m.streams[i];
      auto x = streams[static_cast<unsigned>(i)];
      x.setStreamId(s.stream_id);
      x.setDataset(s.dataset);
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
      x.setTransport(to_wire(s.transport));
      x.setClient(s.client);
      set_doubles(x.initStageMs(static_cast<unsigned>(s.stage_ms.size())), s.stage_ms);
    }
    b.setSamplesPerSecond(m.samples_per_second);
    set_doubles(b.initStageMs(static_cast<unsigned>(m.stage_ms.size())), m.stage_ms);
    b.setQueueDepth(m.queue_depth);
    auto names = b.initStageNames(static_cast<unsigned>(m.stage_names.size()));
    for (size_t i = 0; i < m.stage_names.size(); ++i) names.set(static_cast<unsigned>(i), m.stage_names[i]);
    b.setSamples(m.samples);
    b.setSkippedSamples(m.skipped_samples);
    b.setUptimeSeconds(m.uptime_seconds);
    b.setThreads(m.threads);
    b.setClients(m.clients);
  }
  void operator()(const StreamOpened& m) {
    auto b = e.initStreamOpened();
    b.setStreamId(m.stream_id);
    b.setBatchesPerEpoch(m.batches_per_epoch);
    b.setDatasetSize(m.dataset_size);
    b.setSlotBytes(m.slot_bytes);
    set_tensors(b.initTensors(static_cast<unsigned>(m.tensors.size())), m.tensors);
    b.setMaxCredits(m.max_credits);
    b.setMemoryToken(kj::arrayPtr(reinterpret_cast<const kj::byte*>(m.memory_token.data()), m.memory_token.size()));
    b.setDatasetFingerprint(m.dataset_fingerprint);
  }
  void operator()(const Credit& m) {
    auto b = e.initCredit();
    b.setStreamId(m.stream_id);
    auto s = b.initSlots(static_cast<unsigned>(m.slots.size()));
    for (size_t i = 0; i < m.slots.size(); ++i) s.set(static_cast<unsigned>(i), m.slots[i]);
    b.setCount(m.count);
  }
  void operator()(const BatchHeader& m) {
    auto b = e.initBatch();
    b.setStreamId(m.stream_id);
    b.setEpoch(m.epoch);
    b.setBatch(m.batch);
    b.setSlot(m.slot);
    set_tensors(b.initTensors(static_cast<unsigned>(m.tensors.size())), m.tensors);
    auto idx = b.initIndices(static_cast<unsigned>(m.indices.size()));
    for (size_t i = 0; i < m.indices.size(); ++i) idx.set(static_cast<unsigned>(i), m.indices[i]);
    auto errs = b.initErrors(static_cast<unsigned>(m.errors.size()));
    for (size_t i = 0; i < m.errors.size(); ++i) {
      auto x = errs[static_cast<unsigned>(i)];
      x.setIndex(m.errors[i].index);
      x.setReplacedBy(m.errors[i].replaced_by);
      x.setCode(to_wire(m.errors[i].code));
      x.setMessage(m.errors[i].message);
    }
  }
  void operator()(const EndOfEpoch& m) {
    auto b = e.initEndOfEpoch();
    b.setStreamId(m.stream_id);
    b.setEpoch(m.epoch);
  }
  void operator()(const ErrorReply& m) {
    auto b = e.initError();
    b.setCode(to_wire(m.code));
    b.setMessage(m.message);
    b.setStreamId(m.stream_id);
  }
  void operator()(const Close& m) { e.initClose().setStreamId(m.stream_id); }
  void operator()(const Heartbeat& m) { e.initHeartbeat().setUnixMillis(m.unix_millis); }
};

// An enumerant past the last one this build knows makes the message invalid (protocol.capnp):
// it is refused rather than read as a default.
template <class E>
Status known(E value, E last, const char* field) {
  if (static_cast<uint16_t>(value) <= static_cast<uint16_t>(last)) return Status();
  return Status::invalid_argument(std::string(field) + " = " + std::to_string(static_cast<uint16_t>(value)) +
                                  " is not a value this daemon or client knows");
}

// No list is longer than the protocol can mean (protocol.capnp's bounds on its fields). Cap'n Proto
// lets a small frame hold a long list of empty elements, which the traversal limit counts as one
// word each: bounding the lengths keeps what a frame decodes to proportional to the frame, and
// what decodes also re-encodes within the limits.
template <class List>
Status bounded(List list, size_t max, const char* field) {
  if (list.size() <= max) return Status();
  return Status::corrupt(std::string(field) + " has " + std::to_string(list.size()) + " entries, at most " +
                         std::to_string(max) + " are allowed");
}

constexpr size_t kMaxTensors = 16, kMaxShape = 8, kMaxNames = 4096, kMaxRows = 4096, kMaxListed = 65536;

Status check_tensors(capnp::List<w::TensorDesc>::Reader list, const char* field) {  // one read of the list
  TF_RETURN_IF_ERROR(bounded(list, kMaxTensors, field));
  for (auto t : list) {
    TF_RETURN_IF_ERROR(bounded(t.getShape(), kMaxShape, "TensorDesc.shape"));
    TF_RETURN_IF_ERROR(known(t.getDtype(), w::DType::UINT8, "TensorDesc.dtype"));
  }
  return Status();
}

// What decoding reads beyond Cap'n Proto's own checks: enumerants this build knows, and list
// lengths within the protocol's bounds.
Status check_fields(w::Envelope::Reader e) {
  switch (e.which()) {
    case w::Envelope::HELLO_REPLY:
      return bounded(e.getHelloReply().getDatasets(), kMaxNames, "HelloReply.datasets");
    case w::Envelope::OPEN_STREAM: {
      auto r = e.getOpenStream();
      TF_RETURN_IF_ERROR(bounded(r.getOverrides(), kMaxNames, "OpenStream.overrides"));
      TF_RETURN_IF_ERROR(known(r.getDtype(), w::DType::UINT8, "OpenStream.dtype"));
      TF_RETURN_IF_ERROR(known(r.getTransport(), w::Transport::SHARED_MEMORY, "OpenStream.transport"));
      return known(r.getOnBadSample(), w::OnBadSample::FAIL, "OpenStream.onBadSample");
    }
    case w::Envelope::STREAM_OPENED:
      return check_tensors(e.getStreamOpened().getTensors(), "StreamOpened.tensors");
    case w::Envelope::CREDIT:
      return bounded(e.getCredit().getSlots(), kMaxRows, "Credit.slots");
    case w::Envelope::BATCH: {
      auto r = e.getBatch();
      TF_RETURN_IF_ERROR(bounded(r.getIndices(), kMaxRows, "Batch.indices"));
      TF_RETURN_IF_ERROR(bounded(r.getErrors(), kMaxRows, "Batch.errors"));
      return check_tensors(r.getTensors(), "Batch.tensors");
    }
    case w::Envelope::STATS: {
      auto r = e.getStats();
      const auto streams = r.getStreams();
      TF_RETURN_IF_ERROR(bounded(streams, kMaxListed, "Stats.streams"));
      TF_RETURN_IF_ERROR(bounded(r.getStageMs(), kMaxTensors * 4, "Stats.stageMs"));
      TF_RETURN_IF_ERROR(bounded(r.getStageNames(), kMaxTensors * 4, "Stats.stageNames"));
      for (auto x : streams) {
        TF_RETURN_IF_ERROR(bounded(x.getStageMs(), kMaxTensors * 4, "StreamStats.stageMs"));
        TF_RETURN_IF_ERROR(known(x.getTransport(), w::Transport::SHARED_MEMORY, "StreamStats.transport"));
      }
      return Status();
    }
    default:
      return Status();
  }
}

Message decode_envelope(w::Envelope::Reader e) {
  switch (e.which()) {
    case w::Envelope::HELLO: {
      auto r = e.getHello();
      return Hello{r.getProtocolVersion(), r.getClientName(), r.getSession()};
    }
    case w::Envelope::HELLO_REPLY: {
      auto r = e.getHelloReply();
      HelloReply m{r.getProtocolVersion(), r.getServerName(), {}, r.getMemorySocket(), r.getHeartbeatMillis(),
                   r.getServerHeartbeatMillis()};
      for (auto d : r.getDatasets()) m.datasets.emplace_back(d);
      return m;
    }
    case w::Envelope::OPEN_STREAM: {
      auto r = e.getOpenStream();
      OpenStream m;
      m.dataset = r.getDataset();
      m.profile = r.getProfile();
      for (auto o : r.getOverrides()) m.overrides.emplace_back(o.getName(), o.getValue());
      m.seed = r.getSeed();
      m.epoch = r.getEpoch();
      m.start_batch = r.getStartBatch();
      m.batch_size = r.getBatchSize();
      m.rank = r.getRank();
      m.world_size = r.getWorldSize();
      m.shuffle = r.getShuffle();
      m.drop_last = r.getDropLast();
      m.dtype = from_wire(r.getDtype());
      m.transport = from_wire(r.getTransport());
      m.on_bad_sample = r.getOnBadSample() == w::OnBadSample::FAIL ? WireOnBadSample::kFail : WireOnBadSample::kSkip;
      return m;
    }
    case w::Envelope::ATTACH_MEMORY: {
      auto r = e.getAttachMemory();
      return AttachMemory{r.getStreamId(), r.getSlots(), r.getSlotStride()};
    }
    case w::Envelope::MEMORY_ATTACHED:
      return MemoryAttached{e.getMemoryAttached().getStreamId()};
    case w::Envelope::CLOSED:
      return Closed{e.getClosed().getStreamId(), e.getClosed().getBatchesDelivered()};
    case w::Envelope::STATS_REQUEST:
      return StatsRequest{};
    case w::Envelope::STATS: {
      auto r = e.getStats();
      Stats m;
      for (auto x : r.getStreams()) {
        StreamStats s;
        s.stream_id = x.getStreamId();
        s.dataset = x.getDataset();
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
        s.transport = from_wire(x.getTransport());
        s.client = x.getClient();
        for (double v : x.getStageMs()) s.stage_ms.push_back(v);
        m.streams.push_back(std::move(s));
      }
      m.samples_per_second = r.getSamplesPerSecond();
      for (double v : r.getStageMs()) m.stage_ms.push_back(v);
      m.queue_depth = r.getQueueDepth();
      for (auto n : r.getStageNames()) m.stage_names.emplace_back(n);
      m.samples = r.getSamples();
      m.skipped_samples = r.getSkippedSamples();
      m.uptime_seconds = r.getUptimeSeconds();
      m.threads = r.getThreads();
      m.clients = r.getClients();
      return m;
    }
    case w::Envelope::STREAM_OPENED: {
      auto r = e.getStreamOpened();
      const auto token = r.getMemoryToken();
      return StreamOpened{r.getStreamId(),          r.getBatchesPerEpoch(),       r.getDatasetSize(),
                          r.getSlotBytes(),         get_tensors(r.getTensors()), r.getMaxCredits(),
                          {token.begin(), token.end()}, r.getDatasetFingerprint()};
    }
    case w::Envelope::CREDIT: {
      auto r = e.getCredit();
      Credit m{r.getStreamId(), {}, r.getCount()};
      for (uint32_t s : r.getSlots()) m.slots.push_back(s);
      return m;
    }
    case w::Envelope::BATCH: {
      auto r = e.getBatch();
      BatchHeader m{r.getStreamId(), r.getEpoch(), r.getBatch(), r.getSlot(), get_tensors(r.getTensors()), {}, {}};
      for (uint32_t i : r.getIndices()) m.indices.push_back(i);
      for (auto x : r.getErrors())
        m.errors.push_back({x.getIndex(), x.getReplacedBy(), from_wire(x.getCode()), x.getMessage()});
      return m;
    }
    case w::Envelope::END_OF_EPOCH:
      return EndOfEpoch{e.getEndOfEpoch().getStreamId(), e.getEndOfEpoch().getEpoch()};
    case w::Envelope::ERROR: {
      auto r = e.getError();
      return ErrorReply{from_wire(r.getCode()), r.getMessage(), r.getStreamId()};
    }
    case w::Envelope::CLOSE:
      return Close{e.getClose().getStreamId()};
    case w::Envelope::HEARTBEAT:
      return Heartbeat{e.getHeartbeat().getUnixMillis()};
    default:
      break;
  }
  KJ_FAIL_REQUIRE("unhandled envelope member", static_cast<int>(e.which()));
}

}  // namespace

Result<std::vector<uint8_t>> encode(const Message& message) {
  try {
    capnp::MallocMessageBuilder builder;
    std::visit(Encoder{builder.initRoot<w::Envelope>()}, message);
    const kj::Array<capnp::word> words = capnp::messageToFlatArray(builder);
    const auto bytes = words.asBytes();
    if (bytes.size() > kMaxEnvelopeBytes)
      return Status::invalid_argument("envelope of " + std::to_string(bytes.size()) + " bytes exceeds the limit");
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
  } catch (const kj::Exception& e) {
    return Status::internal(std::string("encoding an envelope: ") + e.getDescription().cStr());
  }
}

Result<Message> decode(std::span<const uint8_t> frame) {
  if (frame.size() > kMaxEnvelopeBytes)
    return Status::corrupt("envelope of " + std::to_string(frame.size()) + " bytes exceeds the limit of " +
                           std::to_string(kMaxEnvelopeBytes));
  if (frame.empty() || frame.size() % sizeof(capnp::word) != 0)
    return Status::corrupt("envelope of " + std::to_string(frame.size()) + " bytes is not whole 8-byte words");
  // ZeroMQ frames carry no alignment promise: copy into words (at most kMaxEnvelopeBytes).
  kj::Array<capnp::word> words = kj::heapArray<capnp::word>(frame.size() / sizeof(capnp::word));
  std::memcpy(words.begin(), frame.data(), frame.size());
  try {
    capnp::ReaderOptions options;
    // Each list is read twice (check_fields, then the copy), and the traversal limit counts every
    // read: four times the frame's largest size bounds the work and never refuses what encode()
    // made.
    options.traversalLimitInWords = 4 * kMaxEnvelopeBytes / sizeof(capnp::word);
    options.nestingLimit = 16;
    capnp::FlatArrayMessageReader reader(words, options);
    auto envelope = reader.getRoot<w::Envelope>();
    if (static_cast<unsigned>(envelope.which()) > static_cast<unsigned>(w::Envelope::CLOSED))
      return Status::unimplemented("envelope member " + std::to_string(static_cast<int>(envelope.which())) +
                                   " is not handled by this build");
    TF_RETURN_IF_ERROR(check_fields(envelope));
    return decode_envelope(envelope);
  } catch (const kj::Exception& e) {
    return Status::corrupt(std::string("malformed envelope: ") + e.getDescription().cStr());
  }
}

}  // namespace textfeed::transport
