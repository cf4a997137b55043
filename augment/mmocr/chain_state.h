// What mmocr 1.x's text-detection training chains carry from one transform to the next, reduced to
// geometry (docs/targets.md §9.4): the image size, the polygons with the dtype mmocr holds each in,
// the flags, the random streams with a log of every draw, the pixel operations a render must
// apply in order, and a trace after every top-level transform. The transforms of the four chains
// (augment/mmocr/transforms_*.h) read and write a ChainState; augment/mmocr/chains.h runs them in
// the order of each config. Value types; not thread-safe (one per worker thread).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "augment/mmocr/random_streams.h"
#include "base/status.h"

namespace textfeed::augment::mmocr {

// One polygon as mmocr holds it: the flat x, y list (its point count is xy.size() / 2) and whether
// mmocr's array is float32 (values then are float32 values, exact in double) or float64.
struct ChainPolygon {
  std::vector<double> xy;
  bool f32 = true;
  int src = 0;  // the input polygon it came from (golden field out_src)
};

// One random draw, as the goldens' draw records list them.
struct ChainDraw {
  std::string step;  // the transform, e.g. "RandomFlip"
  std::string name;  // what it decides, e.g. "direction"
  char rng = 'n';    // 'n' numpy legacy, 'p' python random, 'i' imgaug
  std::vector<double> values;
};

// A pixel operation a render applies to the image, in chain order (sizes in px, (h, w) order of
// the image after the operation in out_h, out_w).
struct PixelOp {
  enum class Kind {
    kResize,      // resize the whole image to out_h x out_w (cv2 bilinear)
    kFlip,        // code: 0 left-right, 1 up-down, 2 both (the whole image)
    kAffine,      // warp through matrix (old px -> new px) into out_h x out_w, black beyond;
                  // code 0: bilinear (cv2's default), 1: nearest (imgaug's order 0)
    kCrop,        // keep rect = (x0, y0, x1, y1), x1/y1 exclusive (clipped to the image)
    kPad,         // pad right/bottom with zeros to out_h x out_w
    kRegionFlip,  // flip (code as kFlip) the region rect in place
    kFillPatch,   // fill what the previous op left empty from a patch of the image before that
                  // op, of h x w, whose top left is (fill_y, fill_x):
                  // code 0 (RandomRotate's canvas, after a kAffine): the patch of h // 9 x w // 9,
                  //   resized to the canvas, added (uint8, wrapping) where the previous op's warp
                  //   of a black image with a border of 1 gives 1;
                  // code 1 (SourceImagePad, after a kPad): the patch of int(h / 9) x int(w / 9)
                  //   rows and columns resized to the output, the old image at its top left.
  };
  Kind kind = Kind::kResize;
  int out_h = 0, out_w = 0;
  double matrix[6] = {1, 0, 0, 0, 1, 0};
  int rect[4] = {0, 0, 0, 0};
  int code = 0;
  int fill_y = 0, fill_x = 0;
};

// The polygons after one top-level transform (golden fields trace_*).
struct ChainTrace {
  std::string step;
  int h = 0, w = 0;
  std::vector<ChainPolygon> polygons;
};

// The streams of the goldens' seeding protocol: np.random.seed(seed), random.seed(seed),
// imgaug.random.seed(seed), each advanced only by the transforms that draw from it. Every draw
// goes through these methods, which log it.
class ChainStreams {
 public:
  explicit ChainStreams(uint32_t seed);

  double np_random_sample(std::string_view step, std::string_view name);
  // np.random.randint(lo, hi); requires lo < hi (check data-derived ranges first).
  int64_t np_randint(std::string_view step, std::string_view name, int64_t lo, int64_t hi);
  // np.random.randint(lo, hi, size=2): two calls logged as one record of two values.
  std::array<int64_t, 2> np_randint2(std::string_view step, std::string_view name, int64_t lo,
                                     int64_t hi);
  double py_random(std::string_view step, std::string_view name);
  // random.randint(a, b); requires a <= b.
  int64_t py_randint(std::string_view step, std::string_view name, int64_t a, int64_t b);
  // imgaug's Affine angle on the global generator, uniform(lo, hi) as float32 (logs three
  // records: angle.derive_affine, angle.derive_sequential, angle).
  float imgaug_angle(std::string_view step, double lo, double hi);

  const std::vector<ChainDraw>& draws() const { return draws_; }

 private:
  void log(std::string_view step, std::string_view name, char rng, std::vector<double> values);

  NumpyLegacyRandom np_;
  PythonRandom py_;
  NumpyGenerator imgaug_;
  std::vector<ChainDraw> draws_;
};

// The state between transforms.
struct ChainState {
  int h = 0, w = 0;                    // the image size now
  std::vector<ChainPolygon> polygons;  // gt_polygons
  std::vector<unsigned char>
      ignored;                    // gt_ignored (keeps its own order, see TextDetRandomCropFlip)
  std::vector<int> labels;        // gt_bboxes_labels, loaded as 0..N-1
  std::string dropped;            // the step that returned None, else empty
  std::vector<PixelOp> ops;       // what a render applies, in order
  std::vector<ChainTrace> trace;  // after each top-level transform
  bool record_trace = true;

  // Appends a trace entry named `step` (if record_trace).
  void mark(std::string_view step);
  // Keeps the polygons, flags and labels whose `keep` is nonzero (same length as polygons).
  void keep_only(std::span<const unsigned char> keep);
};

// Input to a chain: the image size and the annotated polygons (float32 values, any point count
// >= 3), one ignored flag each.
struct ChainInput {
  int h = 0, w = 0;
  std::span<const float> xy;
  std::span<const uint32_t> points;
  std::span<const unsigned char> ignored;
};

// A state holding `input` as LoadOCRAnnotations leaves it (float32 polygons, labels 0..N-1).
// Errors: kInvalidArgument (sizes not positive, points/ignored/xy that do not agree, a polygon of
// fewer than 3 points, a coordinate not finite).
Result<ChainState> load_chain_input(const ChainInput& input);

// ---- Steps shared by several chains --------------------------------------------------------

// mmocr.utils.crop_polygon(xy, (x0, y0, x1, y1)): the polygon, as float32 and made valid (buffer 0,
// or the convex hull of a multipolygon), intersected with the box made valid likewise; empty when
// the intersection has zero area or is not one polygon; otherwise its exterior ring reversed,
// closing point included, as float32 values. Thread-safety: reentrant (per-thread GEOS context).
// Errors: kInternal (GEOS failed).
Result<std::vector<double>> crop_polygon(std::span<const double> xy, const double box[4]);

// mmocr's Resize to new_w x new_h (scale factors new/old): every polygon scaled in float64 from
// its float32 values, clipped to the new image by crop_polygon, float32 after; one that crop
// refuses becomes zeros of its old length. Appends a kResize op. Errors: kInvalidArgument (a new
// side under 1 px, e.g. a 1 x 4096 image scaled down, where the reference's cv2.resize raises);
// kInternal (GEOS failed).
Status resize_to(ChainState& state, int new_w, int new_h);

// mmcv.rescale_size((w, h), (long, short)) with mmcv's _scale_size rounding: the size that fits
// the image into a long x short box keeping its aspect ratio.
void rescale_keep_ratio(int w, int h, double long_side, double short_side, int& new_w, int& new_h);

// mmocr's RandomFlip(prob 0.5, horizontal): one np random_sample, flip iff < 0.5 (x -> w - x in
// the polygon's dtype). Appends a kFlip op when it flips.
void random_flip(ChainState& state, ChainStreams& streams, std::string_view step = "RandomFlip");

// The polygon's dtype after arithmetic with a float64 scalar array: values rounded to float32 if
// it is float32.
double round_as(const ChainPolygon& polygon, double value);

}  // namespace textfeed::augment::mmocr
