# textfeed cache file: the Cap'n Proto messages inside it. The byte layout around them (header,
# index, footer) is in docs/cache_format.md and cache/format.h. Fields are only ever appended.
@0xcd68c0d902fd077b;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("textfeed::cache::wire");

enum Codec {
  raw @0;   # pixels = height * width * 3 bytes, RGB, row-major (HWC), no row padding
  jpeg @1;  # pixels = a baseline JPEG file (YCbCr 4:2:0 or 4:4:4), decoding to RGB
}

struct Sample {
  # One image of the dataset with its annotation, as stored.
  name @0 :Text;           # image path relative to the dataset root, "/" separated
  origWidth @1 :UInt32;    # size of the source image before any resize, px
  origHeight @2 :UInt32;
  width @3 :UInt32;        # size of the stored pixels, px (after the profile's resize)
  height @4 :UInt32;
  codec @5 :Codec;
  pixels @6 :Data;         # see Codec
  quads @7 :Data;          # n * 8 float32 little-endian: x1,y1,...,x4,y4 in STORED pixel
                           # coordinates (already multiplied by the resize factor, as the reference
                           # does: float32(v) * float32(image_size / max(w, h)))
  labels @8 :Data;         # n bytes: 1 = valid word, 0 = ignored
  texts @9 :Data;          # n transcriptions, each followed by one NUL byte (UTF-8)
  index @10 :UInt32;       # position of this sample in the cache (equals its index entry)
  polyXy @11 :Data;        # every word's points, float32 little-endian x,y interleaved, in STORED
                           # pixel coordinates (scaled as quads); empty in records written before
                           # this field existed (the quads are then the words)
  polyPoints @12 :Data;    # m uint32 little-endian: points of each polygon (>= 3); their sum * 2
                           # floats make polyXy
  polyLabels @13 :Data;    # m bytes: 1 = valid, 0 = ignored
}

struct QuarantineEntry {
  file @0 :Text;           # dataset-relative path of the input that was left out
  reason @1 :Text;         # why (decode error, unreadable file, ...)
}

struct Meta {
  # Written once, after the last sample; the footer points at it.
  profile @0 :Text;        # "upstage", "sakura" or "bc7": the profile whose deterministic steps shaped pixels
  imageSize @1 :UInt32;    # longer side after resize; 0 = pixels kept at source size
  codec @2 :Codec;
  jpegQuality @3 :UInt8;   # 1..100 when codec = jpeg, else 0
  buildUnixSeconds @4 :Int64;
  buildSeconds @5 :Float64;    # wall time of the build
  datasetRoot @6 :Text;    # absolute path of the dataset the cache was built from
  datasetFormat @7 :Text;  # "icdar15" or "ufo"
  numWords @8 :UInt64;
  numIgnored @9 :UInt64;
  pixelBytes @10 :UInt64;  # sum of all samples' pixels field sizes
  quarantine @11 :List(QuarantineEntry);
  rawPixelBytes @12 :UInt64;   # sum of height * width * 3 over all samples: the pixel bytes codec raw
                               # stores (equals pixelBytes when codec = raw). 0 in files written
                               # before this field existed.
  # Where the samples came from and how they were built, so that `textfeed cache merge` can tell
  # whether shard files make one dataset (docs/cache_format.md "Sharded caches and manifests").
  # All 0 / empty in files written before these fields existed: such a file opens as before but
  # is never merged.
  shardIndex @13 :UInt32;      # K of `cache build --shard K/N`; 0 for a whole build
  shardCount @14 :UInt32;      # N; 1 for a whole build (0: written before shards existed)
  firstInput @15 :UInt64;      # dataset index (reader order) of the first input this file covers:
                               # floor(K * datasetSamples / N)
  numInputs @16 :UInt64;       # inputs covered: the samples here plus those quarantined
  datasetSamples @17 :UInt64;  # samples the reader listed for the whole dataset (every shard's)
  datasetFingerprint @18 :UInt64;  # hash of the reader's whole index (names, sizes, words), as
                                   # DatasetSource::fingerprint(): the same dataset read the same way
  readerOptions @19 :Text;     # the reader options the dataset was read with, one "name=value"
                               # per option, space separated, in a fixed order
  restartRows @20 :Bool;       # codec jpeg built with --restart-rows
  maxBadShare @21 :Float64;    # the build's --max-bad: quarantined inputs allowed, as a share of
                               # datasetSamples (a shard's budget is the whole dataset's)
}
