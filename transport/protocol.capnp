# textfeed wire protocol: the single source of truth for what travels between `textfeed serve`
# and its clients. docs/protocol.md describes the conversation; this file, every field.
#
# Frame layout. Every ZeroMQ message is a multipart message:
#   frame 0        one Envelope, Cap'n Proto flat-array (unpacked) serialization, at most 1 MiB;
#   frames 1..k    only for Envelope.batch on a stream with transport = frames: the raw bytes of
#                  the tensors, in the order of Batch.tensors (little-endian, C-contiguous). Each
#                  tensor is cut into consecutive frames of at most 1 MiB (maxPayloadFrameBytes);
#                  no frame holds bytes of two tensors, so tensor i is the concatenation of the
#                  next ceil(size / 1 MiB) frames. (1 MiB: a frame the kernel has just
#                  written is still in cache when the client copies it into its slot.)
# With transport = sharedMemory no payload frame follows: the daemon has written the tensors into
# the client's slot Batch.slot, at the offsets of Batch.tensors.
# Pixel payloads never travel inside the Cap'n Proto message.
#
# Evolution: fields and union members are only appended with the next ordinal; a retired field
# keeps its slot under an `obsolete` name. protocolVersion changes only for incompatible meaning.
# An enumerant a receiver does not know (a DType, Transport or OnBadSample value past the last one
# listed) makes the message invalid: it is refused with an Error, never read as a default. An
# unknown ErrorCode reads as `internal`.
@0xa29f878fc09da2e2;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("textfeed::transport::wire");

const protocolVersion :UInt32 = 5;  # 2: shared memory is handed over by descriptor; 3: OpenStream.spec;
                                    # 4: several sources, weights, elastic resume (a daemon of 3 would drop
                                    #    them); Recipe's colour jitter as ranges (@28..@36), the old scalars obsolete;
                                    # 5: Recipe.profile by name (@48), the enum obsolete
const maxPayloadFrameBytes :UInt64 = 1048576;  # largest payload frame (1 MiB); receivers accept 2 MiB

enum DType {
  float32 @0;
  uint8 @1;
}

enum ErrorCode {
  # Mirrors textfeed::Code (base/status.h), value for value.
  ok @0;
  invalidArgument @1;
  notFound @2;
  corrupt @3;
  io @4;
  unavailable @5;
  overloaded @6;
  unimplemented @7;
  cancelled @8;
  internal @9;
}

struct Hello {
  protocolVersion @0 :UInt32;   # the sender's protocolVersion
  clientName @1 :Text;          # free text for logs, e.g. "rank 3 on host-a, pid 1234"; at most
                                # 256 bytes (longer: Error invalidArgument)
  session @2 :UInt64;           # random per client, kept across its reconnects; 0 = none. A Hello
                                # whose session an earlier connection used ends that connection's
                                # streams, and HelloReply waits until their fills have stopped:
                                # only then may the client lend the same slots again.
}

struct HelloReply {
  protocolVersion @0 :UInt32;   # the daemon's; equal to the client's, or an Error follows instead
  serverName @1 :Text;          # free text for logs
  datasets @2 :List(Text);      # names the daemon serves (its --dataset NAME=PATH list)
  memorySocket @3 :Text;        # absolute path of the datagram Unix socket that takes the
                                # descriptors of clients' shared memory (see AttachMemory); empty
                                # when the daemon offers no shared memory (a tcp endpoint)
  heartbeatMillis @4 :UInt32;   # the client sends a Heartbeat after this long without other
                                # traffic (a quarter of the daemon's client timeout, at most 1000),
                                # so that a live client is never taken for gone; 0 = its own
  serverHeartbeatMillis @5 :UInt32;  # the daemon sends a Heartbeat to a client after this long
                                # without other traffic to it: a client waits at least three of
                                # these before it takes the daemon for gone; 0 = unknown
}

struct Override {
  # Retired in version 3 (OpenStream.spec carries typed fields): kept for its ordinal.
  name @0 :Text;
  value @1 :Text;
}

enum Transport {
  frames @0;        # payload in extra ZeroMQ frames (any host)
  sharedMemory @1;  # payload written into the client's shared-memory slot (same host)
}

struct OpenStream {
  # Fields 0-3 and 6-11, 13-16 are retired (version 3 sends them in `spec`); their ordinals stay.
  obsoleteDataset @0 :Text;
  obsoleteProfile @1 :Text;
  obsoleteOverrides @2 :List(Override);
  obsoleteSeed @3 :UInt64;
  epoch @4 :UInt64;             # the epoch to start in
  startBatch @5 :UInt64;        # first batch index within that epoch (exact resume)
  obsoleteBatchSize @6 :UInt32;
  obsoleteRank @7 :UInt32;
  obsoleteWorldSize @8 :UInt32;
  obsoleteShuffle @9 :Bool = true;
  obsoleteDropLast @10 :Bool = false;
  obsoleteDtype @11 :DType;
  transport @12 :Transport;     # sharedMemory: AttachMemory must follow before any Credit;
                                # only over the daemon's ipc endpoint (refused over tcp)
  obsoleteShmName @13 :Text;    # retired: the shared memory is named by AttachMemory
  obsoleteShmSlots @14 :UInt32; # retired: see AttachMemory
  obsoleteBenchmark @15 :Bool = false;  # retired: the transport benchmark left the protocol
  obsoleteOnBadSample @16 :OnBadSample;
  spec @17 :PipelineSpec;       # what the stream is made of; the daemon validates every field
  payload @19 :Payload;         # compact: each batch as its rows' warped crops, colour draws and
                                # words (Batch.compact*), for the client to finish (frames only;
                                # training with an EAST profile). The daemon says so in
                                # StreamOpened.compactBytes (an older one ignores it)
  assigned @18 :Bool = false;   # the client names every batch it wants (Credit.epochs/batches),
                                # in any order, instead of taking the batches from `epoch` and
                                # `startBatch` on: a client fed by several producers hands each
                                # its own batch numbers. The daemon says it honours this in
                                # StreamOpened.assigned (an older one ignores it)
}

enum Payload {
  full @0;          # the batch as the client delivers it (image and targets)
  compact @1;       # the uint8 crops before the colour jitter, and what the client needs to finish
}

enum OnBadSample {
  skip @0;          # write a deterministically drawn replacement; report it in Batch.errors
  fail @1;          # end the stream with an Error naming the sample
  report @2;        # eval only: the row left blank (zeros) and reported in Batch.errors with
                    # replacedBy = index; its sample metadata names the image and holds its words
}

struct AttachMemory {
  # Sent after StreamOpened on a sharedMemory stream. Before it, the client created a memory file
  # (memfd_create(2)) of at least slots * slotStride bytes, sealed it against shrinking
  # (F_SEAL_SHRINK), touched every page of it (a sparse file is refused: the daemon never
  # allocates a client's memory), and sent its descriptor to HelloReply.memorySocket: one datagram holding the
  # 16 bytes of StreamOpened.memoryToken as data and the descriptor as SCM_RIGHTS. Slot i starts at
  # i * slotStride. The daemon maps the descriptor that came with this stream's token and answers
  # MemoryAttached, or Error (no descriptor came, not a sealed memory file, too small, sparse).
  streamId @0 :UInt64;
  obsoleteShmName @1 :Text;     # retired in version 2: memory is handed over, never named
  slots @2 :UInt32;             # 1..1024
  slotStride @3 :UInt64;        # bytes, >= StreamOpened.slotBytes, a multiple of 4096
}

struct MemoryAttached {
  streamId @0 :UInt64;
}

struct TensorDesc {
  name @0 :Text;                # "image", "score", "geo", "roi" or "ignored"
  dtype @1 :DType;
  shape @2 :List(UInt64);       # [batch, channels, height, width]
  offset @3 :UInt64;            # bytes from the start of the slot; a frames client places the
                                # payload at the same offsets of its own buffer
  size @4 :UInt64;              # bytes
}

struct StreamOpened {
  streamId @0 :UInt64;          # names the stream in every later message
  batchesPerEpoch @1 :UInt64;   # equal for every rank
  datasetSize @2 :UInt64;       # samples in the dataset
  slotBytes @3 :UInt64;         # bytes one batch needs (a shared-memory slot's size)
  tensors @4 :List(TensorDesc); # the layout of a full batch
  maxCredits @5 :UInt32;        # frames: batches the daemon accepts in flight for this stream
  memoryToken @6 :Data;         # sharedMemory: 16 random bytes that tie the descriptor the client
                                # hands over (see AttachMemory) to this stream; valid once
  datasetFingerprint @7 :UInt64;# a hash of the dataset's sample index (names, sizes, words): a
                                # client's checkpoint names the dataset it was taken on; 0 = unknown
  resumedBatches @8 :UInt64;    # batches of the epoch Sampler.resume picks up (when it has stages)
  sourceSizes @9 :List(UInt64); # samples of each source, in index order (a dataset is one source;
                                # a mixture one per member): Batch.indices locate in them
  assigned @10 :Bool;           # the stream fills the batches each Credit names (OpenStream.assigned)
  compactBytes @11 :UInt64;     # payload compact: bytes of a full compact batch's payload (the
                                # crops, [batch, crop, crop, 3] uint8); 0: full batches
}

struct Credit {
  streamId @0 :UInt64;
  slots @1 :List(UInt32);       # sharedMemory: slots the daemon may write next (each free in the
                                # client, not credited before and not yet returned in a Batch;
                                # a slot named twice, or already credited, is an Error)
  count @2 :UInt32;             # frames: how many more batches the client accepts
  epochs @3 :List(UInt64);      # assigned streams: the batch each credited slot (or each counted
  batches @4 :List(UInt64);     # batch) is to hold, as epoch and index within it, one pair per
                                # slot or per count, filled in this order; each must exist (a
                                # batch past its epoch is an Error). Other streams: empty
}

struct SampleError {
  index @0 :UInt32;             # dataset index of the bad sample
  replacedBy @1 :UInt32;        # dataset index written in its place
  code @2 :ErrorCode;
  message @3 :Text;             # names the file and the reason
}

struct Batch {
  streamId @0 :UInt64;
  epoch @1 :UInt64;
  batch @2 :UInt64;             # index within the epoch
  slot @3 :UInt32;              # sharedMemory: the slot it was written into
  tensors @4 :List(TensorDesc); # shapes of this batch (the last one may be shorter)
  indices @5 :List(UInt32);     # dataset index of each row
  errors @6 :List(SampleError);
  # Per-sample metadata: in eval streams always, in training streams with returnPolygons; else
  # every list is empty. Flat lists, so that a full batch fits one envelope: at most 2^14 words,
  # 2^16 points and 128 KiB of image ids per batch (a receiver refuses more, and a daemon fails
  # such a batch with an Error naming the sample).
  imageIds @7 :List(Text);      # per row: the image's path below the dataset root
  originalSizes @8 :List(UInt32);  # per row: height, width (px; eval: the original image,
                                # training: the crop)
  scales @9 :List(Float64);     # per row: sx, sy = canvas px per original px (training: 1, 1)
  wordCounts @10 :List(UInt32); # per row: its words
  pointCounts @11 :List(UInt32);  # per word, rows in order: its points
  xy @12 :List(Float32);        # per point: x, y (eval: original px; training: crop px)
  ignore @13 :List(Bool);       # per word: true = ignored
  # The invalid_polygon policy's counts over the batch's samples (base/tensor.h PolygonCounts):
  # nonFinite, degenerate, outOfImage, selfIntersecting, repaired, ignored; none: all zero.
  polygonCounts @14 :List(UInt32);
  # payload compact (OpenStream.payload): per row, what the client needs to finish it; the payload
  # frames then hold one tensor "crop", uint8 [rows, crop, crop, 3]. At most 8192 words per batch
  # (a daemon fails a batch with more with an Error; use payload full).
  compactFactors @15 :List(Float64);  # 4 per row: brightness, contrast, saturation, hue
  compactOrders @16 :List(UInt8);     # 4 per row: the order of the colour ops (a permutation of 0..3)
  compactApplied @17 :List(Bool);     # per row: whether the colour jitter applies
  compactWords @18 :List(UInt32);     # per row: its words
  compactQuads @19 :List(Float64);    # 8 per word, rows in order: x, y of its 4 corners, crop px;
                                      # only words the targets see, each coordinate within 64 crop
                                      # sides ([-64 C, 65 C]); a receiver refuses others (protocol.md)
  compactLabels @20 :List(UInt8);     # per word: 1 = text, 0 = ignored
}

struct EndOfEpoch {
  streamId @0 :UInt64;
  epoch @1 :UInt64;             # the epoch that ended; the stream goes on with epoch + 1
}

struct Error {
  code @0 :ErrorCode;
  message @1 :Text;             # what went wrong, for people; the daemon cuts it at 16 KiB
  streamId @2 :UInt64;          # 0 when the error concerns no stream
}

struct Close {
  # Ends a stream. The daemon finishes the fills it started for it, drops their batches, and
  # answers Closed; only then may the client reuse the stream's slots for another stream.
  streamId @0 :UInt64;
}

struct Closed {
  streamId @0 :UInt64;
  batchesDelivered @1 :UInt64;  # Batch messages the daemon sent on this stream
}

struct StatsRequest {}

struct StreamStats {
  streamId @0 :UInt64;
  dataset @1 :Text;
  rank @2 :UInt32;
  worldSize @3 :UInt32;
  batches @4 :UInt64;           # delivered
  samplesPerSecond @5 :Float64; # delivery rate, exponentially weighted over about 5 s
  creditsOutstanding @6 :UInt32;# batches the client accepts that are not being filled yet
  skippedSamples @7 :UInt64;    # bad samples replaced (or failing) on this stream
  samples @8 :UInt64;           # delivered
  inFlight @9 :UInt32;          # batches being filled or waiting to be sent
  epoch @10 :UInt64;            # position of the next batch to be filled
  nextBatch @11 :UInt64;
  transport @12 :Transport;
  client @13 :Text;             # Hello.clientName of the stream's client
  stageMs @14 :List(Float64);   # this stream's per-sample stage times, as Stats.stageMs
}

struct Stats {
  streams @0 :List(StreamStats);
  samplesPerSecond @1 :Float64;     # all streams
  stageMs @2 :List(Float64);        # wall ms per sample, summed over worker threads, in the order
                                    # of stageNames; over every stream since the daemon started
  queueDepth @3 :UInt32;            # batches being filled now, all streams
  stageNames @4 :List(Text);        # "read", "decode", "plan", "warp", "photometric", "targets"
  samples @5 :UInt64;               # delivered since start, all streams
  skippedSamples @6 :UInt64;        # since start, all streams
  uptimeSeconds @7 :Float64;
  threads @8 :UInt32;               # worker threads of the daemon's arena
  clients @9 :UInt32;               # peers seen within the heartbeat timeout
}

struct Heartbeat {
  # Either side sends one after a second (a client: HelloReply.heartbeatMillis) without other
  # traffic to the peer. A client silent for
  # the daemon's timeout (default 10 s) is gone: its streams end and its shared memory is
  # unmapped. A client that hears nothing for as long treats the daemon as gone.
  unixMillis @0 :Int64;
}

# The pipeline spec (loader/spec.h): every field typed, each with the meaning, default and bound
# written there and in augment/profile.h. Enumerants mirror the C++ enums value for value.
enum Profile {
  # Retired in protocol 5 (Recipe.profile is the profile's name); kept for Recipe.obsoleteProfile.
  upstage @0;
  sakura @1;
  bc7 @2;
  db @3;
}
enum IgnoreText {
  substring @0;
  exact @1;
}
enum PolyPolicy {
  skip @0;
  minRect @1;
  maskIgnore @2;
}
enum Illegibility {
  ignore @0;                    # an illegible UFO word is ignored (label 0): the default
  valid @1;                     # the flag is not read: every word is valid
}
enum ReaderFormat {
  auto @0;                      # detected from the path (docs/dataset_layouts.md)
  icdar15 @1;
  ufo @2;
  totaltext @3;
  ctw1500 @4;
  paddle @5;                    # PaddleOCR label file(s)
  mmocr @6;                     # mmocr OCRDataset json
}
enum CropFallback {
  keepLast @0;
  ignoreCut @1;
}
enum MaskKind {
  roi @0;
  ignored @1;
}
enum AngleError {
  sr @0;
  up @1;
}
enum FillRule {
  evenOdd @0;
  union @1;
}
enum Overlap {
  sum @0;
  last @1;
  smallest @2;
  ignore @3;
}
enum IgnoredTargets {
  keep @0;
  none @1;
}
enum RoiResize {
  linear @0;
  nearest @1;
  rasterizeAtMap @2;
}

enum ChannelOrder {
  rgb @0;
  bgr @1;
}

enum InvalidPolygon {
  keep @0;
  repair @1;
  ignore @2;
}

enum ColorMath {
  fused @0;
  albumentations131 @1;
  albumentations1412 @2;
}

struct ReaderOptions {
  ignoreText @0 :IgnoreText;
  ignoreTags @1 :List(Text);    # at most 256 tags of at most 4096 bytes
  polyPolicy @2 :PolyPolicy;
  dropUnderArea @3 :Float64;
  ignoreUnderArea @4 :Float64;
  imagesDir @5 :Text;
  gtDir @6 :Text;
  illegibility @7 :Illegibility;  # what a UFO word's "illegibility": true makes of it
  split @8 :Text = "train";     # the json stem a dataset folder reads (ufo/<split>.json); a file
                                # name stem of at most 255 bytes; a sender that predates it means "train"
  format @9 :ReaderFormat;      # which reader reads the dataset; a sender that predates it means auto
}

struct Source {
  path @0 :Text;                # to a daemon: one of HelloReply.datasets; at most 4096 bytes
  reader @1 :ReaderOptions;     # must equal the options the daemon read that dataset with
  weight @2 :Float64;           # 0 for every source, or in (0, 1e9] for every one
}

struct Recipe {
  # augment::AugmentOptions, field for field: one field per row of augment::recipe_fields()
  # (tests/transport/recipe_schema_test.cc), read and written by that table.
  obsoleteProfile @0 :Profile;  # retired in protocol 5: the profile travels by name (`profile`)
  imageSize @1 :Int32;
  cropSize @2 :Int32;
  heightJitter @3 :Float64;
  rotateDeg @4 :Float64;
  cropMaxTries @5 :Int32;
  cutLow @6 :Float64;
  cutHigh @7 :Float64;
  verticesF32 @8 :Bool;
  intVertices @9 :Bool;
  cropFallback @10 :CropFallback;
  colorJitterP @11 :Float64;
  obsoleteBrightness @12 :Float64;  # protocol 3's scalar forms; neither written nor read since 4
  obsoleteContrast @13 :Float64;
  obsoleteSaturation @14 :Float64;
  obsoleteHue @15 :Float64;
  mean @16 :List(Float32);      # 3 values
  std @17 :List(Float32);       # 3 values
  dtype @18 :DType;             # of the image tensor; maps are always float32
  mapScale @19 :Float64;
  mask @20 :MaskKind;
  angleError @21 :AngleError;
  fillRule @22 :FillRule;
  overlap @23 :Overlap;
  ignoredTargets @24 :IgnoredTargets;
  roiResize @25 :RoiResize;
  fixOrientation @26 :Bool;
  clampGeo @27 :Float64;
  brightnessLo @28 :Float64;    # the factor ~ U[lo, hi]; 0 <= lo <= hi <= 10
  brightnessHi @29 :Float64;
  contrastLo @30 :Float64;      # as brightness
  contrastHi @31 :Float64;
  saturationLo @32 :Float64;    # as brightness
  saturationHi @33 :Float64;
  hueLo @34 :Float64;           # the shift in turns ~ U[lo, hi]; -0.5 <= lo <= hi <= 0.5
  hueHi @35 :Float64;
  colorMath @36 :ColorMath;     # the colour operations' arithmetic
  # Since the db profile; the defaults are AugmentOptions' own, so a message without them means them.
  channelOrder @37 :ChannelOrder;
  flipP @38 :Float64 = 0.5;
  resizeLo @39 :Float64 = 0.5;  # the resize factor ~ U[lo, hi]; 0 < lo <= hi <= 16
  resizeHi @40 :Float64 = 3.0;
  minCropSide @41 :Float64 = 0.1;
  shrinkRatio @42 :Float64 = 0.4;
  threshMin @43 :Float64 = 0.3;
  threshMax @44 :Float64 = 0.7;
  minTextSize @45 :Int32 = 8;
  totalEpochs @46 :Int32;
  invalidPolygon @47 :InvalidPolygon;
  profile @48 :Text;            # a registered profile's name (augment/profile.h profile_entries()),
                                # so that a new detector family needs no change here; empty: upstage
  compactMasks @49 :Bool;       # the mmocr families' 0/1 targets as uint8
}

struct Sampler {
  seed @0 :UInt64;
  batchSize @1 :UInt32;         # 1..4096
  rank @2 :UInt32;              # 0 <= rank < worldSize
  worldSize @3 :UInt32;         # 1..1048576
  shuffle @4 :Bool;
  dropLast @5 :Bool;
  epochSize @6 :UInt64;         # weighted sources: draws per epoch (0: the sum of their sizes)
  resumeEpoch @7 :UInt64;       # an elastic resume (loader/spec.h ResumePoint): the epoch
  resumeStages @8 :List(ResumeStage);  # at most 64; none: no resume
}

struct ResumeStage {
  worldSize @0 :UInt32;
  batchSize @1 :UInt32;
  batches @2 :List(UInt64);     # batches each rank delivered: one entry (every rank) or worldSize
}

struct PipelineSpec {
  sources @0 :List(Source);     # 1..64: concatenated, or a weighted mixture
  recipe @1 :Recipe;
  sampler @2 :Sampler;
  onBadSample @3 :OnBadSample;
  mode @4 :Mode;                # train (default: what older clients mean) or eval
  returnPolygons @5 :Bool;      # train: batches carry the augmented polygons (crop px)
}

enum Mode {
  train @0;         # random augmentation to a crop, the profile's targets
  eval @1;          # the profile's inference resize and pad, dataset order, every sample once
                    # over the ranks (no padding), image only, per-sample metadata in Batch
}

struct Envelope {
  union {
    hello @0 :Hello;
    helloReply @1 :HelloReply;
    openStream @2 :OpenStream;
    streamOpened @3 :StreamOpened;
    credit @4 :Credit;
    batch @5 :Batch;
    endOfEpoch @6 :EndOfEpoch;
    error @7 :Error;
    close @8 :Close;
    statsRequest @9 :StatsRequest;
    stats @10 :Stats;
    heartbeat @11 :Heartbeat;
    attachMemory @12 :AttachMemory;
    memoryAttached @13 :MemoryAttached;
    closed @14 :Closed;
  }
}
