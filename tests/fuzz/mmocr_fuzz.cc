// Fuzz target: polygons -> mmocr's targets of PSENet, PANet, TextSnake, FCENet and mmocr's DB
// (augment/<family>/targets.h, augment/db/mmocr_targets.h), the five builders on one input. The
// input chooses a small canvas and up to 8 polygons of 3 to 40 points whose coordinates include
// NaN, infinities, values past the accepted range, repeated and collinear points and self-crossing
// rings. Beyond "no crash, no hang", it checks what the builders promise: a refusal is
// kInvalidArgument (kInternal only where a polygon engine failed); on success every plane has the
// canvas's size, masks hold only 0 and 1, kernels only 0 and the 1-based word numbers, and every
// float map is finite.
#include <cmath>
#include <limits>
#include <vector>

#include "augment/db/mmocr_targets.h"
#include "augment/fcenet/targets.h"
#include "augment/panet/targets.h"
#include "augment/psenet/targets.h"
#include "augment/textsnake/targets.h"
#include "base/log.h"
#include "tests/fuzz/fuzz_targets.h"

namespace textfeed::fuzz {
namespace {

constexpr int kMaxPolygons = 8;
constexpr int kMaxPoints = 40;
constexpr int kMinSide = 24;  // below FCENet's 32 px too, which it must refuse

// Reads the input front to back; past its end every byte reads as 0.
struct Bytes {
  std::span<const uint8_t> in;
  size_t at = 0;
  uint8_t u8() { return at < in.size() ? in[at++] : 0; }
};

// Two bytes -> a coordinate in 1/4 px around the canvas, three patterns kept for refused values.
float coordinate(Bytes& b, int side) {
  const int v = static_cast<int16_t>(static_cast<uint16_t>(b.u8() | (b.u8() << 8)));
  if (v == -32768) return std::numeric_limits<float>::quiet_NaN();
  if (v == 32767) return std::numeric_limits<float>::infinity();
  if (v == -32767) return 1e9f;
  return static_cast<float>(v % (side * 8)) / 4.0f;
}

// A refusal is an argument error (or a polygon engine's internal failure), never anything else.
void check_refusal(const Status& s) {
  TF_CHECK(s.code() == Code::kInvalidArgument || s.code() == Code::kInternal) << s.to_string();
}

void check_binary(std::span<const float> v, const char* what) {
  for (float x : v) TF_CHECK(x == 0.f || x == 1.f) << what << " holds " << x;
}

void check_finite(std::span<const float> v, const char* what) {
  for (float x : v) TF_CHECK(std::isfinite(x)) << what << " holds " << x;
}

void check_kernels(const augment::TextKernels& k, int channels, const augment::TextKernelWords& w) {
  const size_t plane = static_cast<size_t>(w.height) * static_cast<size_t>(w.width);
  TF_CHECK(k.num_kernels == channels && k.kernels.size() == plane * channels &&
           k.mask.size() == plane);
  const auto words = static_cast<float>(w.npts.size());
  for (float x : k.kernels) TF_CHECK(x >= 0 && x <= words && x == std::floor(x)) << "kernel " << x;
  check_binary(k.mask, "gt_mask");
}

void run_segmentation(const augment::TextKernelWords& w) {
  if (auto r = augment::make_pse_targets(w); r.ok())
    check_kernels(*r, 7, w);
  else
    check_refusal(r.status());
  if (auto r = augment::make_pan_targets(w); r.ok())
    check_kernels(r->kernels, 2, w);
  else
    check_refusal(r.status());
  if (auto r = augment::make_db_mmocr_targets(w); r.ok()) {
    check_binary(r->shrink, "gt_shrink");
    check_binary(r->shrink_mask, "gt_shrink_mask");
    check_binary(r->thr_mask, "gt_thr_mask");
    for (float x : r->thr) TF_CHECK(x >= 0.3f - 1e-6f && x <= 0.7f + 1e-6f) << "gt_thr " << x;
  } else {
    check_refusal(r.status());
  }
}

void run_curves(const augment::TextKernelWords& w) {
  if (auto r = augment::make_textsnake_targets(w); r.ok()) {
    const size_t plane = static_cast<size_t>(w.height) * static_cast<size_t>(w.width);
    TF_CHECK(r->text_mask.size() == plane && r->radius_map.size() == plane);
    for (uint8_t m : r->center_region_mask) TF_CHECK(m <= 1);
    check_finite(r->radius_map, "gt_radius_map");
    check_finite(r->sin_map, "gt_sin_map");
    check_finite(r->cos_map, "gt_cos_map");
  } else {
    check_refusal(r.status());
  }
  if (auto r = augment::make_fce_targets(w); r.ok()) {
    for (const augment::FceLevelTargets& level : r->levels) {
      TF_CHECK(level.height == w.height / level.stride && level.width == w.width / level.stride);
      check_finite(level.maps, "an FCE level map");
    }
  } else {
    check_refusal(r.status());
  }
}

}  // namespace

void mmocr_one_input(std::span<const uint8_t> input) {
  Bytes b{input};
  const int height = kMinSide + b.u8() % 104, width = kMinSide + b.u8() % 168;
  const int polygons = b.u8() % (kMaxPolygons + 1);
  std::vector<float> xy;
  std::vector<int32_t> npts;
  std::vector<uint8_t> ignored;
  for (int i = 0; i < polygons; ++i) {
    const uint8_t head = b.u8();
    npts.push_back(3 + head % (kMaxPoints - 2));
    ignored.push_back(head >> 7);
    for (int p = 0; p < npts.back(); ++p) {
      xy.push_back(coordinate(b, width));
      xy.push_back(coordinate(b, height));
    }
  }
  const augment::TextKernelWords words{xy, npts, ignored, height, width};
  run_segmentation(words);
  run_curves(words);
}

}  // namespace textfeed::fuzz
