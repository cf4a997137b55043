// SampleSource: where a pipeline's samples come from, as an interface (docs/design.md "Data flow").
// Two implementations today: DatasetSource (an image folder and its annotations; the pixels are
// decoded per sample) and CacheSource (a cache file; the pixels are mapped). Both give the same
// quads for the same image, so the same seed gives the same geometry and targets from either.
// Consumers (SampleProducer, the pipeline, the daemon) see only this interface, so a source made
// of several others (a weighted mixture of data sets) is one more implementation: it maps a
// sample index to a member and an index there, and forwards.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/image.h"
#include "base/quad.h"
#include "base/status.h"
#include "loader/readers/dataset.h"

namespace textfeed::loader {

// One sample as a source gives it: its words, and its pixels either encoded (an image file's
// bytes, a JPEG-coded cache record) for the caller's decoder, or decoded (RGB uint8, e.g. a raw
// cache record in the mapping). A resource the caller reuses from sample to sample: `name` and
// `file` keep their capacity, so a worker that keeps one allocates nothing per sample once warm.
// The views are valid until the next read() into it, and while the source lives.
struct SampleRead {
  std::string name;             // for messages: the image's path, or the record's name
  int width = 0;                // full size in px; 0 when only the header of `encoded`
  int height = 0;               //   says it (the caller's decoder reads it, with its limits)
  bool pre_resized = false;     // pixels and quads already went through resize_img
                                //   (to the source's stored_image_size())
  std::span<const Quad> quads;  // the words, in the pixels' frame. The readers reduce a
                                //   polygon to its quad (PolyPolicy) before it gets here
  std::span<const unsigned char> labels;  // one per quad (base/quad.h)
  // The words with all their points (SampleRecord::poly_*), in the pixels' frame as the quads;
  // empty spans mean the quads are the words (a cache written before polygons were kept).
  std::span<const float> poly_xy;
  std::span<const uint32_t> poly_points;
  std::span<const unsigned char> poly_labels;
  std::span<const uint8_t> encoded;  // the pixels to decode; empty when `pixels` holds them
  ImageView pixels;                  // decoded pixels; data == nullptr when `encoded` holds them
  std::vector<uint8_t> file;         // storage a source may read `encoded` into

  bool decoded() const { return pixels.data != nullptr; }
};

// A part of a source as the sampler sees it: a source is one part of its whole size (weight 0);
// a MixtureSource is one part per member.
struct SourcePart {
  size_t size = 0;
  double weight = 0;
  std::string label;
};

// Immutable after it is made; every method is const and safe to call from many threads at once
// (read() writes only the caller's SampleRead).
class SampleSource {
 public:
  virtual ~SampleSource() = default;

  // A path ending in ".tfc" or starting with the cache magic is a cache, one ending in
  // ".tfmanifest" or starting as a cache manifest does (cache/manifest.h) is the shards it lists
  // (CacheSource::open both); anything else is a dataset (DatasetSource::open). Errors: theirs.
  static Result<std::shared_ptr<const SampleSource>> open(const std::string& path,
                                                          const ReaderOptions& options);

  // Number of samples; indexes are [0, size()).
  virtual size_t size() const = 0;

  // Reads sample i (< size()) into `out`. Errors: kNotFound, kIo, kInvalidArgument (an image
  // file that cannot be read, naming it), kCorrupt (a damaged cache record). After an error the
  // word spans hold the sample's words when the source knows them without its pixels (a
  // dataset's index does), else none: an eval row reported missing keeps them.
  virtual Status read(size_t i, SampleRead& out) const = 0;

  // Name of sample i (its image path relative to the dataset root), for messages.
  virtual std::string name(size_t i) const = 0;

  // One line naming the source and its size, for logs.
  virtual std::string describe() const = 0;

  // A stable 64-bit hash of the sample index, computed once when the source is made: the same
  // on every machine and run; a checkpoint names its dataset with it (the same size is not the
  // same dataset). Each implementation says what it covers.
  virtual uint64_t fingerprint() const = 0;

  // The longer side the stored pixels were resized to (0: kept at the source size), or -1 when
  // the pixels are decoded from the original images at their own size.
  virtual int stored_image_size() const = 0;

  // The parts the sampler draws from, in index order (their sizes sum to size()).
  virtual std::vector<SourcePart> parts() const { return {{size(), 0.0, describe()}}; }
};

}  // namespace textfeed::loader
