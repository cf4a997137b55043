// Wire codec: every message survives a round trip; hostile frames give a Status, never a crash.
#include "transport/wire.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <random>

#include "transport/protocol.capnp.h"

namespace textfeed::transport {
namespace {

// The bytes of a hand-built envelope, as a peer would send them.
std::vector<uint8_t> frame_of(capnp::MallocMessageBuilder& b) {
  const auto words = capnp::messageToFlatArray(b);
  const auto bytes = words.asBytes();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

// A valid OpenStream (one source "train", a recipe with its three means and stds, batch 2),
// changed by `set` before it is framed.
template <class Set>
std::vector<uint8_t> open_stream_frame(Set set) {
  capnp::MallocMessageBuilder b;
  auto o = b.initRoot<wire::Envelope>().initOpenStream();
  auto spec = o.initSpec();
  spec.initSources(1)[0].setPath("train");
  auto recipe = spec.initRecipe();
  recipe.initMean(3);
  recipe.initStd(3);
  spec.initSampler().setBatchSize(2);
  set(o);
  return frame_of(b);
}

Message round_trip(const Message& m) {
  auto bytes = encode(m);
  EXPECT_TRUE(bytes.has_value()) << bytes.error().to_string();
  EXPECT_EQ(bytes->size() % 8, 0u);
  auto back = decode(*bytes);
  EXPECT_TRUE(back.has_value()) << back.error().to_string();
  return *back;
}

TEST(WireTest, HandshakeAndStreamMessagesRoundTrip) {
  auto h = std::get<Hello>(round_trip(Hello{kProtocolVersion, "rank 1", 0xfeedbeef12345678ull}));
  EXPECT_EQ(h.client_name, "rank 1");
  EXPECT_EQ(h.session, 0xfeedbeef12345678ull);
  auto r = std::get<HelloReply>(round_trip(HelloReply{1, "daemon", {"train", "val"}}));
  EXPECT_EQ(r.datasets, (std::vector<std::string>{"train", "val"}));

  OpenStream o;
  o.spec = loader::default_spec(augment::Profile::kSakura, "train");
  o.spec.sources[0].reader.ignore_tags = {"stamp"};
  o.spec.sources[0].reader.poly_policy = loader::PolyPolicy::kMaskIgnore;
  o.spec.sources[0].reader.ignore_under_area = 12.5;
  o.spec.augment.crop_size = 768;
  o.spec.augment.dtype = DType::kU8;
  o.spec.augment.fill_rule = augment::FillRule::kUnion;
  o.spec.augment.mean[2] = 0.25f;
  o.spec.sampler = {1ull << 40, 16, 1, 4, false, false};
  o.spec.on_bad_sample = loader::OnBadSample::kFail;
  o.start = {3, 17};
  o.transport = Transport::kSharedMemory;
  auto o2 = std::get<OpenStream>(round_trip(o));
  EXPECT_EQ(o2.spec.sources, o.spec.sources);
  EXPECT_EQ(o2.spec.sampler, o.spec.sampler);
  EXPECT_EQ(o2.spec.augment.profile, augment::Profile::kSakura);
  EXPECT_EQ(o2.spec.augment.crop_size, 768);
  EXPECT_EQ(o2.spec.augment.map_scale, 0.25);
  EXPECT_EQ(o2.spec.augment.dtype, DType::kU8);
  EXPECT_EQ(o2.spec.augment.fill_rule, augment::FillRule::kUnion);
  EXPECT_EQ(o2.spec.augment.mean[2], 0.25f);
  EXPECT_EQ(o2.spec.augment.mask, augment::MaskKind::kIgnored);
  EXPECT_EQ(augment::describe(o2.spec.augment), augment::describe(o.spec.augment));
  EXPECT_EQ(o2.spec.on_bad_sample, loader::OnBadSample::kFail);
  EXPECT_EQ(o2.start, (Position{3, 17}));
  EXPECT_EQ(o2.transport, Transport::kSharedMemory);
  // A stream's transport is resolved before it is asked for: 'auto' never travels.
  OpenStream automatic = o;
  automatic.transport = Transport::kAuto;
  EXPECT_EQ(encode(automatic).status().code(), Code::kInvalidArgument);

  auto am = std::get<AttachMemory>(round_trip(AttachMemory{9, 6, 1ull << 28}));
  EXPECT_EQ(am.stream_id, 9u);
  EXPECT_EQ(am.slots, 6u);
  EXPECT_EQ(am.slot_stride, 1ull << 28);
  EXPECT_EQ(std::get<MemoryAttached>(round_trip(MemoryAttached{9})).stream_id, 9u);

  const TensorDesc t{
      "geo", DType::kF32, {8, 5, 512, 512}, 4096, 8ull * 5 * 512 * 512 * 4, 5ull * 512 * 512 * 4};
  const std::vector<uint8_t> token = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  auto so = std::get<StreamOpened>(round_trip(StreamOpened{9, 125, 1000, 1 << 30, {t}, 16, token}));
  EXPECT_EQ(so.max_credits, 16u);
  EXPECT_EQ(so.memory_token, token);
  EXPECT_TRUE(std::get<StreamOpened>(round_trip(StreamOpened{})).memory_token.empty());
  const HelloReply hr = std::get<HelloReply>(
      round_trip(HelloReply{kProtocolVersion, "d", {"a"}, "/run/tf.sock.mem", 250}));
  EXPECT_EQ(hr.memory_socket, "/run/tf.sock.mem");
  EXPECT_EQ(hr.heartbeat_millis, 250u);
  ASSERT_EQ(so.tensors.size(), 1u);
  EXPECT_EQ(so.tensors[0].shape, t.shape);
  EXPECT_EQ(so.tensors[0], t);
}

TEST(WireTest, BatchCreditErrorAndControlRoundTrip) {
  BatchHeader b;
  b.stream_id = 9;
  b.epoch = 2;
  b.batch = 41;
  b.slot = 3;
  b.tensors = {{"image", DType::kF32, {8, 3, 1024, 1024}, 0, 8ull * 3 * 1024 * 1024 * 4}};
  b.indices = {5, 7, 11};
  b.errors = {{7, 12, Code::kCorrupt, "images/img_7.jpg: JPEG decode failed"}};
  auto b2 = std::get<BatchHeader>(round_trip(b));
  EXPECT_EQ(b2.indices, b.indices);
  ASSERT_EQ(b2.errors.size(), 1u);
  EXPECT_EQ(b2.errors[0].code, Code::kCorrupt);
  EXPECT_EQ(b2.errors[0].replaced_by, 12u);

  auto c = std::get<Credit>(round_trip(Credit{9, {0, 2}, 0}));
  EXPECT_EQ(c.slots, (std::vector<uint32_t>{0, 2}));
  auto e = std::get<ErrorReply>(round_trip(ErrorReply{Code::kNotFound, "no dataset 'x'", 0}));
  EXPECT_EQ(e.code, Code::kNotFound);
  EXPECT_EQ(std::get<EndOfEpoch>(round_trip(EndOfEpoch{9, 4})).epoch, 4u);
  EXPECT_EQ(std::get<Close>(round_trip(Close{9})).stream_id, 9u);
  EXPECT_EQ(std::get<Heartbeat>(round_trip(Heartbeat{123456789})).unix_millis, 123456789);
  auto closed = std::get<Closed>(round_trip(Closed{9, 77}));
  EXPECT_EQ(closed.batches_delivered, 77u);
  EXPECT_TRUE(std::holds_alternative<StatsRequest>(round_trip(StatsRequest{})));
}

TEST(WireTest, StatsRoundTrip) {
  Stats s;
  s.samples_per_second = 123.5;
  s.stage_names = {"read", "decode"};
  s.stage_ms = {0.25, 24.5};
  s.queue_depth = 3;
  s.samples = 1000;
  s.skipped_samples = 2;
  s.uptime_seconds = 12.5;
  s.threads = 2;
  s.clients = 1;
  StreamStats st;
  st.stream_id = 4;
  st.dataset = "train";
  st.rank = 1;
  st.world_size = 2;
  st.batches = 10;
  st.samples = 80;
  st.samples_per_second = 60.25;
  st.credits_outstanding = 2;
  st.in_flight = 1;
  st.epoch = 3;
  st.next_batch = 7;
  st.transport = Transport::kSharedMemory;
  st.client = "rank 1";
  st.stage_ms = {0.5, 20};
  s.streams = {st};
  auto b = std::get<Stats>(round_trip(s));
  EXPECT_EQ(b.stage_names, s.stage_names);
  EXPECT_EQ(b.stage_ms, s.stage_ms);
  EXPECT_EQ(b.samples, 1000u);
  EXPECT_EQ(b.clients, 1u);
  ASSERT_EQ(b.streams.size(), 1u);
  EXPECT_EQ(b.streams[0].client, "rank 1");
  EXPECT_EQ(b.streams[0].transport, Transport::kSharedMemory);
  EXPECT_EQ(b.streams[0].next_batch, 7u);
  EXPECT_DOUBLE_EQ(b.streams[0].samples_per_second, 60.25);
}

TEST(WireTest, HostileFramesAreCorruptNotCrashes) {
  EXPECT_EQ(decode({}).error().code(), Code::kCorrupt);
  const std::vector<uint8_t> odd(13, 0xAB);
  EXPECT_EQ(decode(odd).error().code(), Code::kCorrupt);
  const std::vector<uint8_t> huge(kMaxEnvelopeBytes + 8, 0);
  EXPECT_EQ(decode(huge).error().code(), Code::kCorrupt);
  // A segment table claiming a 2^31-word segment.
  std::vector<uint8_t> liar(16, 0);
  liar[4] = 0xff, liar[5] = 0xff, liar[6] = 0xff, liar[7] = 0x7f;
  EXPECT_EQ(decode(liar).error().code(), Code::kCorrupt);
  // Truncations of a real message, and random bytes: a Status every time.
  auto good = encode(BatchHeader{{2, 3, {1, 2, 3}}, 1, 4, {}});
  ASSERT_TRUE(good.has_value());
  for (size_t cut = 8; cut < good->size(); cut += 8) {
    auto r = decode(std::span<const uint8_t>(good->data(), cut));
    if (!r.has_value()) {
      EXPECT_NE(r.error().code(), Code::kOk);
    }
  }
  std::mt19937 g(7);
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> junk(8 * (1 + g() % 32));
    for (auto& x : junk) x = static_cast<uint8_t>(g());
    auto r = decode(junk);  // must return, whatever it returns
    if (!r.has_value()) {
      EXPECT_TRUE(r.error().code() == Code::kCorrupt || r.error().code() == Code::kUnimplemented);
    }
  }
}

// Issue 11 #28: an enumerant past the schema's last one was read as the default (dtype=7 became
// float32, transport=9 frames, onBadSample=9 skip); it is refused, naming the field.
TEST(WireTest, UnknownEnumerantsAreRefusedNotDefaulted) {
  const auto frame = [](auto set) { return open_stream_frame(set); };
  using O = wire::OpenStream::Builder;
  const std::vector<uint8_t> good = frame([](O) {});
  ASSERT_TRUE(decode(good).has_value());
  const std::pair<std::vector<uint8_t>, const char*> bad[] = {
      {frame([](O o) { o.getSpec().getRecipe().setDtype(static_cast<wire::DType>(7)); }),
       "Recipe.dtype"},
      {frame([](O o) { o.setTransport(static_cast<wire::Transport>(9)); }), "OpenStream.transport"},
      {frame([](O o) { o.getSpec().setOnBadSample(static_cast<wire::OnBadSample>(9)); }),
       "PipelineSpec.onBadSample"},
      {frame([](O o) { o.getSpec().getRecipe().setProfile("psenet-from-the-future"); }),
       "Recipe.profile"},
      {frame([](O o) {
         o.getSpec().getRecipe().setChannelOrder(static_cast<wire::ChannelOrder>(2));
       }),
       "Recipe.channelOrder"},
      {frame([](O o) { o.getSpec().getRecipe().setColorMath(static_cast<wire::ColorMath>(3)); }),
       "Recipe.colorMath"},
      {frame([](O o) {
         o.getSpec().getSources()[0].initReader().setPolyPolicy(static_cast<wire::PolyPolicy>(3));
       }),
       "ReaderOptions.polyPolicy"},
      {frame([](O o) {
         o.getSpec().getSources()[0].initReader().setIllegibility(
             static_cast<wire::Illegibility>(2));
       }),
       "ReaderOptions.illegibility"},
  };
  for (const auto& [bytes, field] : bad) {
    auto m = decode(bytes);
    ASSERT_FALSE(m.has_value()) << field;
    EXPECT_EQ(m.error().code(), Code::kInvalidArgument);
    EXPECT_NE(m.error().message().find(field), std::string::npos) << m.error().message();
  }
  // In tensor descriptors and stats too.
  capnp::MallocMessageBuilder b;
  auto t = b.initRoot<wire::Envelope>().initBatch().initTensors(1)[0];
  t.setDtype(static_cast<wire::DType>(2));
  EXPECT_EQ(decode(frame_of(b)).status().code(), Code::kInvalidArgument);
}

// The UFO reader options illegibility and split travel as sent; a sender that predates them
// (fields 7 and 8 unset) means the defaults, the Upstage baseline's reading of train.json.
TEST(WireTest, IllegibilityAndSplitRoundTripAndDefaultWhenUnset) {
  OpenStream o;
  o.spec = loader::default_spec(augment::Profile::kUpstage, "receipts");
  o.spec.sources[0].reader.illegibility = loader::Illegibility::kValid;
  o.spec.sources[0].reader.split = "val";
  const auto back = std::get<OpenStream>(round_trip(o));
  EXPECT_EQ(back.spec.sources, o.spec.sources);
  EXPECT_EQ(back.spec.sources[0].reader.illegibility, loader::Illegibility::kValid);
  EXPECT_EQ(back.spec.sources[0].reader.split, "val");

  auto old_sender = decode(open_stream_frame([](wire::OpenStream::Builder w) {
    w.getSpec().getSources()[0].initReader().setImagesDir("images");  // fields 0..6 only
  }));
  ASSERT_TRUE(old_sender.has_value()) << old_sender.error().to_string();
  const loader::ReaderOptions& r = std::get<OpenStream>(*old_sender).spec.sources[0].reader;
  EXPECT_EQ(r.illegibility, loader::Illegibility::kIgnore);
  EXPECT_EQ(r.split, "train");
}

// The db profile's fields travel; a message without them (an older peer) means their defaults.
TEST(WireTest, DbRecipeRoundTripsAndDefaultsWhenAbsent) {
  OpenStream o;
  o.spec = loader::default_spec(augment::Profile::kDb, "train");
  auto& a = o.spec.augment;
  a.flip_p = 0.25, a.resize = {0.75, 2.5}, a.min_crop_side = 0.2, a.shrink_ratio = 0.45;
  a.thresh_min = 0.25, a.thresh_max = 0.75, a.min_text_size = 6, a.total_epochs = 1200;
  a.invalid_polygon = augment::InvalidPolygon::kIgnore;
  const auto o2 = std::get<OpenStream>(round_trip(o));
  EXPECT_EQ(augment::describe(o2.spec.augment), augment::describe(a));
  EXPECT_EQ(o2.spec.augment.channel_order, augment::ChannelOrder::kBgr);
  EXPECT_EQ(o2.spec.augment.invalid_polygon, augment::InvalidPolygon::kIgnore);
  EXPECT_EQ(o2.spec.augment.total_epochs, 1200);
  const auto bare = decode(open_stream_frame([](wire::OpenStream::Builder) {}));
  ASSERT_TRUE(bare.has_value());
  const augment::AugmentOptions defaults;  // AugmentOptions' own defaults
  const auto& got = std::get<OpenStream>(*bare).spec.augment;
  EXPECT_EQ(got.flip_p, defaults.flip_p);
  EXPECT_EQ(got.resize, defaults.resize);
  EXPECT_EQ(got.min_crop_side, defaults.min_crop_side);
  EXPECT_EQ(got.shrink_ratio, defaults.shrink_ratio);
  EXPECT_EQ(got.thresh_min, defaults.thresh_min);
  EXPECT_EQ(got.thresh_max, defaults.thresh_max);
  EXPECT_EQ(got.min_text_size, defaults.min_text_size);
  EXPECT_EQ(got.total_epochs, 0);
  EXPECT_EQ(got.channel_order, augment::ChannelOrder::kRgb);
  const auto unknown = decode(open_stream_frame([](wire::OpenStream::Builder b) {
    b.getSpec().getRecipe().setInvalidPolygon(static_cast<wire::InvalidPolygon>(7));
  }));
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message().find("Recipe.invalidPolygon"), std::string::npos);
}

// The reader format travels as sent (issue 14); a sender that predates it (field 9 unset) means
// auto, and an ordinal this build does not know is refused naming the field.
TEST(WireTest, ReaderFormatRoundTripsAndDefaultsToAuto) {
  OpenStream o;
  o.spec = loader::default_spec(augment::Profile::kUpstage, "totaltext");
  for (loader::ReaderFormat f : {loader::ReaderFormat::kTotalText, loader::ReaderFormat::kCtw1500,
                                 loader::ReaderFormat::kPaddle, loader::ReaderFormat::kMmocr}) {
    o.spec.sources[0].reader.format = f;
    const auto back = std::get<OpenStream>(round_trip(o));
    EXPECT_EQ(back.spec.sources[0].reader.format, f);
  }
  auto old_sender = decode(open_stream_frame([](wire::OpenStream::Builder w) {
    w.getSpec().getSources()[0].initReader().setSplit("train");  // fields 0..8 only
  }));
  ASSERT_TRUE(old_sender.has_value()) << old_sender.error().to_string();
  EXPECT_EQ(std::get<OpenStream>(*old_sender).spec.sources[0].reader.format,
            loader::ReaderFormat::kAuto);
  auto unknown = decode(open_stream_frame([](wire::OpenStream::Builder w) {
    w.getSpec().getSources()[0].initReader().setFormat(static_cast<wire::ReaderFormat>(7));
  }));
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message().find("ReaderOptions.format"), std::string::npos)
      << unknown.error().message();
}

// Protocol 4: the colour jitter travels as ranges, with the profile bc7 and the colour arithmetic;
// the scalar fields of protocol 3 are not read (a v3 peer is refused at Hello).
TEST(WireTest, ColourRangesAndBc7RoundTrip) {
  OpenStream o;
  o.spec = loader::default_spec(augment::Profile::kBc7, "train");
  o.spec.augment.brightness = {0.125, 1.75};
  o.spec.augment.contrast = {0, 10};
  o.spec.augment.saturation = {1, 1};
  o.spec.augment.hue = {-0.5, 0.0625};
  o.spec.augment.color_math = augment::ColorMath::kAlbumentations131;
  auto o2 = std::get<OpenStream>(round_trip(o));
  EXPECT_EQ(o2.spec.augment.profile, augment::Profile::kBc7);
  EXPECT_EQ(o2.spec.augment.brightness, (augment::UniformRange{0.125, 1.75}));
  EXPECT_EQ(o2.spec.augment.contrast, (augment::UniformRange{0, 10}));
  EXPECT_EQ(o2.spec.augment.saturation, (augment::UniformRange{1, 1}));
  EXPECT_EQ(o2.spec.augment.hue, (augment::UniformRange{-0.5, 0.0625}));
  EXPECT_EQ(o2.spec.augment.color_math, augment::ColorMath::kAlbumentations131);
  OpenStream plain;
  plain.spec = loader::default_spec(augment::Profile::kBc7, "t");
  const auto bc7 = std::get<OpenStream>(round_trip(plain));
  EXPECT_EQ(augment::describe(bc7.spec.augment),
            augment::describe(augment::profile_defaults(augment::Profile::kBc7)));
  // Out-of-bounds ranges decode (the wire carries values) and are refused by validate() at the
  // edge.
  o.spec.augment.hue = {0.4, 0.2};
  EXPECT_EQ(augment::validate(std::get<OpenStream>(round_trip(o)).spec.augment).code(),
            Code::kInvalidArgument);
  const auto scalars = decode(open_stream_frame([](wire::OpenStream::Builder b) {
    b.getSpec().getRecipe().setObsoleteBrightness(0.9);  // protocol 3's scalar: not read
  }));
  ASSERT_TRUE(scalars.has_value());
  EXPECT_EQ(std::get<OpenStream>(*scalars).spec.augment.brightness,
            std::get<OpenStream>(*decode(open_stream_frame([](wire::OpenStream::Builder) {
            }))).spec.augment.brightness);
}

// The transport benchmark mode (OpenStream.benchmark, ordinal 15) was retired: an old client that
// still sets it gets an ordinary stream, since the field is not read.
TEST(WireTest, AnOldClientsBenchmarkFlagIsIgnored) {
  const auto frame = [](bool benchmark) {
    return open_stream_frame(
        [&](wire::OpenStream::Builder o) { o.setObsoleteBenchmark(benchmark); });
  };
  auto old_client = decode(frame(true));
  ASSERT_TRUE(old_client.has_value()) << old_client.error().to_string();
  auto plain = decode(frame(false));
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(*encode(*old_client), *encode(*plain))
      << "the retired flag changes nothing the daemon reads";
}

// Texts travel with every byte: a NUL inside a name was cut there on decode (and on encode), so the
// daemon saw a shorter path than the one sent and its NUL check never ran.
TEST(WireTest, TextsKeepTheirNulBytesSoTheReceiverRefusesThem) {
  OpenStream o;
  o.spec = loader::default_spec(augment::Profile::kSakura, std::string("icdar\0/etc/passwd", 17));
  o.spec.sources[0].reader.images_dir = std::string("images\0/../..", 13);
  o.spec.sources[0].reader.ignore_tags = {std::string("a\0b", 3)};
  const auto back = std::get<OpenStream>(round_trip(o));
  EXPECT_EQ(back.spec.sources, o.spec.sources);
  const Status refused = loader::validate(back.spec);
  EXPECT_EQ(refused.code(), Code::kInvalidArgument);
  EXPECT_NE(refused.message().find("NUL"), std::string::npos) << refused.message();
  const auto hello =
      std::get<Hello>(round_trip(Hello{kProtocolVersion, std::string("na\0me", 5), 1}));
  EXPECT_EQ(hello.client_name.size(), 5u);
}

// Protocol 3 carries the options in OpenStream.spec: an OpenStream without one (the retired
// fields of protocol 2 only) is refused, never read as a default spec.
TEST(WireTest, AnOpenStreamWithoutASpecIsRefused) {
  capnp::MallocMessageBuilder b;
  auto o = b.initRoot<wire::Envelope>().initOpenStream();
  o.setObsoleteDataset("train");
  o.setObsoleteBatchSize(2);
  auto m = decode(frame_of(b));
  ASSERT_FALSE(m.has_value());
  EXPECT_EQ(m.error().code(), Code::kInvalidArgument);
  EXPECT_NE(m.error().message().find("no spec"), std::string::npos) << m.error().message();
}

// A small frame may hold a long list of empty elements (the traversal limit counts each as one
// word): lists longer than their field can mean are refused, so that what decodes is
// proportional to the frame and re-encodes within the limits.
TEST(WireTest, ListsLongerThanTheirFieldsCanMeanAreRefused) {
  auto frame = [](auto fill) {
    capnp::MallocMessageBuilder b;
    fill(b.initRoot<wire::Envelope>());
    return frame_of(b);
  };
  EXPECT_TRUE(decode(frame([](wire::Envelope::Builder e) {
                e.initStreamOpened().initTensors(16);
              })).has_value());
  EXPECT_EQ(decode(frame([](wire::Envelope::Builder e) { e.initStreamOpened().initTensors(17); }))
                .status()
                .code(),
            Code::kCorrupt);
  EXPECT_TRUE(decode(frame([](wire::Envelope::Builder e) {
                e.initBatch().initIndices(4096);
              })).has_value());
  auto rows = decode(frame([](wire::Envelope::Builder e) { e.initBatch().initIndices(4097); }));
  EXPECT_EQ(rows.status().code(), Code::kCorrupt);
  EXPECT_NE(rows.status().message().find("Batch.indices"), std::string::npos)
      << rows.status().message();
  EXPECT_EQ(decode(frame([](wire::Envelope::Builder e) { e.initCredit().initSlots(5000); }))
                .status()
                .code(),
            Code::kCorrupt);
  EXPECT_EQ(decode(frame([](wire::Envelope::Builder e) { e.initStats().initStreams(70000); }))
                .status()
                .code(),
            Code::kCorrupt);
}

// Issue 30 #7d: an OpenStream that asks for more sources, ignore tags or resume stages than a
// stream may have is a bad argument (as validate() would say), named with its limit, not a corrupt
// frame.
TEST(WireTest, SpecListsOverTheirLimitAreInvalidArgumentsNamingFieldAndLimit) {
  struct Case {
    std::vector<uint8_t> frame;
    const char* field;
    size_t limit;
  };
  const Case cases[] = {
      {open_stream_frame([](wire::OpenStream::Builder o) {
         auto sources = o.getSpec().initSources(65);
         for (unsigned i = 0; i < 65; ++i) sources[i].setPath("train");
       }),
       "PipelineSpec.sources", loader::kMaxSources},
      {open_stream_frame([](wire::OpenStream::Builder o) {
         auto tags = o.getSpec().getSources()[0].initReader().initIgnoreTags(300);
         for (unsigned i = 0; i < 300; ++i) tags.set(i, "###");
       }),
       "ReaderOptions.ignoreTags", loader::kMaxIgnoreTags},
      {open_stream_frame(
           [](wire::OpenStream::Builder o) { o.getSpec().getSampler().initResumeStages(65); }),
       "Sampler.resumeStages", loader::kMaxResumeStages},
  };
  for (const Case& c : cases) {
    const auto m = decode(c.frame);
    ASSERT_FALSE(m.has_value()) << c.field;
    EXPECT_EQ(m.status().code(), Code::kInvalidArgument) << m.status().message();
    EXPECT_NE(m.status().message().find(c.field), std::string::npos) << m.status().message();
    EXPECT_NE(m.status().message().find("at most " + std::to_string(c.limit)), std::string::npos)
        << m.status().message();
  }
  // At the limit, the frame decodes.
  EXPECT_TRUE(decode(open_stream_frame([](wire::OpenStream::Builder o) {
                auto sources = o.getSpec().initSources(64);
                for (unsigned i = 0; i < 64; ++i) sources[i].setPath("train");
              })).has_value());
}

// Eval batches' per-sample metadata: every field survives, polygons of any number of points.
TEST(WireTest, BatchSampleMetadataRoundTrips) {
  BatchHeader b{{0, 1, {2, 4, 6}}, 9, 0, {}};
  b.samples = {{"images/a.jpg", 720, 1280, 0.5, 0.25, {1, 2, 3, 2, 3, 4, 1, 4}, {4}, {0}},
               {"images/b.png", 10, 20, 2.0, 3.0, {}, {}, {}},
               {"images/c.jpg",
                33,
                44,
                1.0,
                1.0,
                {0, 0, 9, 0, 9, 9, 5, 12, 0, 9, 1.5f, 2.5f, 3, 4, 5, 6},
                {5, 3},
                {1, 0}}};
  const auto back = std::get<BatchHeader>(round_trip(b));
  EXPECT_EQ(back.samples, b.samples);
  b.samples.clear();  // a training batch without return_polygons: no lists at all
  EXPECT_TRUE(std::get<BatchHeader>(round_trip(b)).samples.empty());
}

TEST(WireTest, BatchSampleMetadataPastItsBoundsOrInconsistentIsRefused) {
  // Too many points for one batch: the encoder's caller (the pipeline) refuses it first, and a
  // frame that claims it is refused on decode.
  BatchHeader big{{0, 1, {0}}, 9, 0, {}};
  big.samples = {{"x",
                  1,
                  1,
                  1,
                  1,
                  std::vector<float>(2 * (kMaxBatchPoints + 1)),
                  {uint32_t(kMaxBatchPoints + 1)},
                  {0}}};
  EXPECT_EQ(check_sample_meta(big.samples).code(), Code::kInvalidArgument);
  auto frame = [](auto fill) {
    capnp::MallocMessageBuilder b;
    auto batch = b.initRoot<wire::Envelope>().initBatch();
    batch.initIndices(1);
    fill(batch);
    return frame_of(b);
  };
  auto one_row = [](wire::Batch::Builder batch, uint32_t points, unsigned xy) {
    batch.initImageIds(1).set(0, "x");
    batch.initOriginalSizes(2);
    batch.initScales(2);
    batch.initWordCounts(1).set(0, 1);
    batch.initPointCounts(1).set(0, points);
    batch.initIgnore(1);
    batch.initXy(xy);
  };
  EXPECT_TRUE(decode(frame([&](wire::Batch::Builder b) { one_row(b, 3, 6); })).has_value());
  // A point count that claims more points than xy holds.
  auto liar = decode(frame([&](wire::Batch::Builder b) { one_row(b, 4, 6); }));
  EXPECT_EQ(liar.status().code(), Code::kCorrupt);
  // xy entries no word uses.
  EXPECT_EQ(decode(frame([&](wire::Batch::Builder b) { one_row(b, 3, 8); })).status().code(),
            Code::kCorrupt);
  // One row's lists for a batch of two rows.
  auto rows = decode(frame([&](wire::Batch::Builder b) {
    one_row(b, 3, 6);
    b.initIndices(2);
  }));
  EXPECT_EQ(rows.status().code(), Code::kCorrupt);
  // Past the per-batch word bound.
  EXPECT_EQ(decode(frame([&](wire::Batch::Builder b) { b.initPointCounts(kMaxBatchWords + 1); }))
                .status()
                .code(),
            Code::kCorrupt);
}

// The mode and return_polygons travel in the spec.
TEST(WireTest, SpecModeAndReturnPolygonsRoundTrip) {
  OpenStream o;
  o.spec = loader::default_spec(augment::Profile::kUpstage, "train");
  o.spec.mode = loader::Mode::kEval;
  o.spec.on_bad_sample = loader::OnBadSample::kReport;
  o.spec.return_polygons = true;
  const auto back = std::get<OpenStream>(round_trip(o));
  EXPECT_EQ(back.spec.mode, loader::Mode::kEval);
  EXPECT_EQ(back.spec.on_bad_sample, loader::OnBadSample::kReport);
  EXPECT_TRUE(back.spec.return_polygons);
  auto unknown = decode(open_stream_frame(
      [](wire::OpenStream::Builder b) { b.getSpec().setMode(static_cast<wire::Mode>(7)); }));
  EXPECT_EQ(unknown.status().code(), Code::kInvalidArgument);
}

// Assigned credits and compact rows round-trip; compact lists that disagree, or an unknown colour
// op, are refused on decode.
TEST(WireTest, AssignedCreditsAndCompactRowsRoundTripAndInconsistentOnesAreRefused) {
  Credit c{5, {1, 2}, 0, {{3, 4}, {0, 0}}};
  const auto c2 = std::get<Credit>(round_trip(c));
  EXPECT_EQ(c2.batches, c.batches);
  OpenStream o;
  o.spec = loader::default_spec(augment::Profile::kUpstage, "d");
  o.assigned = true;
  o.payload = Payload::kCompact;
  const auto o2 = std::get<OpenStream>(round_trip(o));
  EXPECT_TRUE(o2.assigned);
  EXPECT_EQ(o2.payload, Payload::kCompact);

  BatchHeader b{{0, 1, {2, 4}}, 9, 0, {}};
  b.compact.resize(2);
  b.compact[0].color = {
      true, 1.1,   0.9,
      1.2,  -0.05, {ColorOp::kHue, ColorOp::kContrast, ColorOp::kBrightness, ColorOp::kSaturation}};
  b.compact[0].quads = {1.5, 2.25, 3, 4, 5, 6, 7, 8.125};
  b.compact[0].labels = {0};
  const auto back = std::get<BatchHeader>(round_trip(b));
  ASSERT_EQ(back.compact.size(), 2u);
  EXPECT_EQ(back.compact[0].quads, b.compact[0].quads);
  EXPECT_EQ(back.compact[0].labels, b.compact[0].labels);
  EXPECT_EQ(back.compact[0].color.hue, -0.05);
  EXPECT_EQ(back.compact[0].color.order[0], ColorOp::kHue);
  EXPECT_TRUE(back.compact[0].color.applied);
  EXPECT_TRUE(back.compact[1].labels.empty());

  auto frame = [](auto fill) {
    capnp::MallocMessageBuilder m;
    auto batch = m.initRoot<wire::Envelope>().initBatch();
    batch.initIndices(1);
    batch.initCompactFactors(4);
    batch.initCompactOrders(4).set(1, 1);
    batch.initCompactApplied(1);
    batch.initCompactWords(1).set(0, 1);
    batch.initCompactQuads(8);
    batch.initCompactLabels(1);
    fill(batch);
    return frame_of(m);
  };
  EXPECT_TRUE(decode(frame([](wire::Batch::Builder) {})).has_value());
  EXPECT_EQ(decode(frame([](wire::Batch::Builder x) { x.initCompactQuads(9); })).status().code(),
            Code::kCorrupt);
  EXPECT_EQ(decode(frame([](wire::Batch::Builder x) { x.initCompactWords(1).set(0, 7); }))
                .status()
                .code(),
            Code::kCorrupt);
  EXPECT_EQ(decode(frame([](wire::Batch::Builder x) { x.initCompactFactors(3); })).status().code(),
            Code::kCorrupt);
  EXPECT_EQ(decode(frame([](wire::Batch::Builder x) { x.initCompactOrders(4).set(0, 9); }))
                .status()
                .code(),
            Code::kCorrupt);
  EXPECT_EQ(decode(frame([](wire::Batch::Builder x) { x.initCompactLabels(kMaxCompactWords + 1); }))
                .status()
                .code(),
            Code::kCorrupt);
  EXPECT_EQ(decode(frame([](wire::Batch::Builder x) { x.initCompactApplied(2); })).status().code(),
            Code::kCorrupt);
  // Credit epochs and batches of different lengths, and more than a Credit may name.
  for (const auto& [epochs, batches] : {std::pair<unsigned, unsigned>{2, 1}, {4097, 4097}}) {
    capnp::MallocMessageBuilder m;
    auto credit = m.initRoot<wire::Envelope>().initCredit();
    credit.initEpochs(epochs);
    credit.initBatches(batches);
    EXPECT_EQ(decode(frame_of(m)).status().code(), Code::kCorrupt) << epochs;
  }
}

}  // namespace
}  // namespace textfeed::transport
