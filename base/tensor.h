// The value types a batch is described with on every side of the wire: an element type (DType),
// where one tensor of a batch lives in its slot (TensorDesc), what went wrong with one sample
// (SampleError) and which batch of which epoch a thing is (Position). The pipeline produces them,
// the wire codec maps them to and from protocol.capnp, the feeds and Python hand them out.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace textfeed {

// Element type of a tensor. The ordinals are the wire's (protocol.capnp enum DType).
enum class DType : unsigned char { kF32 = 0, kU8 = 1 };

inline constexpr size_t dtype_size(DType t) { return t == DType::kU8 ? 1 : 4; }
// "float32" | "uint8": the names every edge (CLI, Python, logs) uses.
std::string_view dtype_name(DType t);
// Errors: kInvalidArgument naming the accepted names.
Result<DType> parse_dtype(std::string_view name);

// One tensor of a batch inside a slot: C-contiguous, little-endian, rows of `sample_bytes`.
struct TensorDesc {
  std::string name;  // "image", "score", "geo", "roi" / "ignored"
  DType dtype = DType::kF32;
  std::array<int64_t, 4> shape{};  // [rows, channels, height, width]
  size_t offset_bytes = 0;         // from the start of the slot
  size_t size_bytes = 0;           // the whole tensor: shape[0] * sample_bytes
  size_t sample_bytes = 0;         // one row

  // The same tensor with `rows` rows (a short last batch).
  TensorDesc with_rows(size_t rows) const {
    TensorDesc t = *this;
    t.shape[0] = static_cast<int64_t>(rows);
    t.size_bytes = sample_bytes * rows;
    return t;
  }
  friend bool operator==(const TensorDesc&, const TensorDesc&) = default;
};

// What went wrong with one sample of a batch, and what was done about it.
struct SampleError {
  uint32_t index = 0;        // dataset index of the bad sample
  uint32_t replaced_by = 0;  // dataset index written in its place (== index if none)
  Code code = Code::kOk;
  std::string message;  // names the file and the reason
  friend bool operator==(const SampleError&, const SampleError&) = default;
};

// "sample I replaced by J: message", or "sample I missing (not replaced): message" when it was
// reported in its own row (eval's OnBadSample report), for logs.
std::string describe(const SampleError& e);

// The words of a sample (or, summed, of a batch) that the invalid_polygon policy
// (augment/geometry/polygon_policy.h) found defective, by defect, and what it did with them:
// `repaired` (a new ring) and `ignored` (made ignored words, or dropped when non-finite).
struct PolygonCounts {
  uint32_t non_finite = 0;
  uint32_t degenerate = 0;
  uint32_t out_of_image = 0;
  uint32_t self_intersecting = 0;
  uint32_t repaired = 0;
  uint32_t ignored = 0;

  uint32_t invalid() const { return non_finite + degenerate + out_of_image + self_intersecting; }
  void add(const PolygonCounts& o) {
    non_finite += o.non_finite, degenerate += o.degenerate, out_of_image += o.out_of_image;
    self_intersecting += o.self_intersecting, repaired += o.repaired, ignored += o.ignored;
  }
  friend bool operator==(const PolygonCounts&, const PolygonCounts&) = default;
};

// Batch `batch` (within the epoch, for one rank) of epoch `epoch`.
struct Position {
  uint64_t epoch = 0;
  uint64_t batch = 0;
  friend auto operator<=>(const Position&, const Position&) = default;  // epoch first
};

// One sample's metadata (base/batch_info.h BatchInfo::samples, the wire's Batch.samples, the
// feeds): in eval batches always, in training batches with PipelineSpec::return_polygons.
struct SampleMeta {
  std::string image_id;  // the sample's name: its image path below the dataset root
  int32_t height = 0;    // eval: the original image, px; training: the crop
  int32_t width = 0;
  double scale_x = 1;  // eval: canvas px per original px (augment/inference.h); training 1
  double scale_y = 1;
  // The sample's words: eval, as the reader gives them in original px; training, after the
  // augmentation in crop px (words outside the crop included, as the targets see them).
  std::vector<float> xy;         // every word's points, x y interleaved
  std::vector<uint32_t> points;  // points of each word (sum = xy.size() / 2)
  std::vector<uint8_t> ignore;   // per word: 1 = ignored (label 0), 0 = a valid word
  friend bool operator==(const SampleMeta&, const SampleMeta&) = default;
};

// What one batch's metadata may hold (the pipeline refuses a batch past them, naming the sample;
// the wire decoder refuses a message past them): a hostile dataset's huge polygons stay bounded,
// and a full batch's metadata fits one wire envelope (1 MiB) beside its other fields.
inline constexpr size_t kMaxBatchWords = size_t{1} << 14;
inline constexpr size_t kMaxBatchPoints = size_t{1} << 16;
inline constexpr size_t kMaxImageIdBytes = 4096;                  // one image id
inline constexpr size_t kMaxBatchImageIdBytes = size_t{1} << 17;  // all of a batch's

// Checks `samples` against the bounds above and their own consistency. Errors: kInvalidArgument
// naming the row (and its image id) that crosses a bound.
Status check_sample_meta(const std::vector<SampleMeta>& samples);

}  // namespace textfeed
