// Fuzz target: mmocr's four training chains (augment/mmocr/chains.h) on polygons of any shape,
// then the family's target builder on what comes out and the pixel ops on a small image. The
// input chooses the chain (and whether to stop after the geometry checks, about ten times faster),
// the image size (1 to 4096 px a side), the seed and up to 16 polygons of 3 to 300 points in one
// of four encodings: quarter pixels around the image, raw float32 bits (NaN, infinities,
// denormals, 3e38), a regular ring or star of many points (self-intersecting when its step is not
// 1), or quarter pixels with patterns for NaN, infinity, 1e9 and FLT_MAX.
//
// Beyond "no crash, no sanitizer report, no hang", it checks what the chains promise:
// - a refusal is a Status: kInvalidArgument (always, when a coordinate is not finite) or
//   kInternal (GEOS failed);
// - a sample is dropped only by psenet (FixInvalidPolygon, RandomRotate) and panet
//   (RandomRotate);
// - otherwise the image ends side x side (736 psenet/panet, 800 fcenet/textsnake), through pixel
//   ops whose sizes chain from the input size to that side and whose rectangles stay inside their
//   image; flags and labels stay one per polygon; every polygon has 3 or more points, all finite,
//   inside the final image for fcenet and textsnake (their last resize clips) and near it for
//   psenet and panet (a 736 x 736 image skips the crop, so a rotated polygon may stick out);
// - the family's TargetBuilder either refuses (kInvalidArgument, kInternal) or writes finite
//   float planes;
// - apply_pixel_ops, when the input is at most 1024 x 1024 and no op makes an image over 2048 on a
//   side, succeeds and ends at side x side.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numbers>
#include <span>
#include <string>
#include <vector>

#include "augment/family.h"
#include "augment/mmocr/chains.h"
#include "augment/mmocr/family_chain.h"
#include "augment/mmocr/pixel_ops.h"
#include "augment/profile.h"
#include "base/image.h"
#include "base/log.h"
#include "base/quad.h"
#include "tests/fuzz/fuzz_targets.h"

namespace textfeed::fuzz {
namespace {

using augment::mmocr::ChainKind;
using augment::mmocr::PixelOp;

constexpr int kMaxSide = 4096;
constexpr int kMaxPolygons = 16;
constexpr int kMinPoints = 3, kMaxPoints = 300;
constexpr int kMaxPixelInput = 1024;  // pixel ops run only on an input this small (a side) ...
constexpr int kMaxPixelOp = 2048;     // ... and when no op makes an image larger than this
constexpr double kEdgeTolerancePx = 1e-3;

// Reads the input front to back; past its end every byte reads as 0.
struct Bytes {
  std::span<const uint8_t> in;
  size_t at = 0;
  uint8_t u8() { return at < in.size() ? in[at++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  uint32_t u32() { return u16() | (static_cast<uint32_t>(u16()) << 16); }
};

// Quarter pixels from -2 to +2 image sides.
float quarter_px(Bytes& b, int side) {
  const int v = static_cast<int16_t>(b.u16());
  return static_cast<float>(v % (side * 8)) / 4.0f;
}

// Quarter pixels, with four patterns kept for values a reader should never pass on.
float with_specials(Bytes& b, int side) {
  const int v = static_cast<int16_t>(b.u16());
  if (v == -32768) return std::numeric_limits<float>::quiet_NaN();
  if (v == 32767) return std::numeric_limits<float>::infinity();
  if (v == -32767) return 1e9f;
  if (v == 32766) return std::numeric_limits<float>::max();
  return static_cast<float>(v % (side * 8)) / 4.0f;
}

float raw_f32(Bytes& b) {
  const uint32_t bits = b.u32();
  float v = 0;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// n points on a circle about (cx, cy), visited with `step` (a star that crosses itself when
// step > 1), the radius scaled per point by one of two factors (a ring with teeth).
void ring_points(Bytes& b, int n, int h, int w, std::vector<float>& xy) {
  const float cx = quarter_px(b, w), cy = quarter_px(b, h);
  const float r = static_cast<float>(b.u16()) / 16.0f;
  const int step = 1 + b.u8() % 7;
  const float inner = static_cast<float>(b.u8()) / 255.0f;
  for (int k = 0; k < n; ++k) {
    const double a = 2 * std::numbers::pi * static_cast<double>(k) * step / n;
    const float rk = (k % 2 == 1) ? r * inner : r;
    xy.push_back(cx + rk * static_cast<float>(std::cos(a)));
    xy.push_back(cy + rk * static_cast<float>(std::sin(a)));
  }
}

struct Decoded {
  ChainKind kind = ChainKind::kPsenet;
  int h = 1, w = 1;
  uint32_t seed = 0;
  std::vector<float> xy;
  std::vector<uint32_t> points;
  std::vector<unsigned char> ignored;
  bool finite = true;
  bool geometry_only = false;  // skip the target builder and the pixel ops
};

Decoded decode(std::span<const uint8_t> input) {
  Bytes b{input};
  Decoded d;
  const uint8_t head = b.u8();
  d.kind = static_cast<ChainKind>(head % 4);
  d.geometry_only = (head & 4) != 0;
  d.h = 1 + b.u16() % kMaxSide;
  d.w = 1 + b.u16() % kMaxSide;
  d.seed = b.u32();
  const int polygons = b.u8() % (kMaxPolygons + 1);
  for (int i = 0; i < polygons; ++i) {
    const uint8_t word = b.u8();
    const int n = kMinPoints + b.u16() % (kMaxPoints - kMinPoints + 1);
    d.points.push_back(static_cast<uint32_t>(n));
    d.ignored.push_back(word >> 7);
    if ((word & 3) == 2) {
      ring_points(b, n, d.h, d.w, d.xy);
      continue;
    }
    for (int p = 0; p < n; ++p) {
      for (int axis = 0; axis < 2; ++axis) {
        const int side = axis == 0 ? d.w : d.h;
        d.xy.push_back((word & 3) == 0   ? quarter_px(b, side)
                       : (word & 3) == 1 ? raw_f32(b)
                                         : with_specials(b, side));
      }
    }
  }
  for (float v : d.xy) d.finite = d.finite && std::isfinite(v);
  return d;
}

int side_of(ChainKind kind) { return augment::mmocr::chain_output_side(kind); }

augment::Profile profile_of(ChainKind kind) {
  switch (kind) {
    case ChainKind::kPsenet:
      return augment::Profile::kPsenet;
    case ChainKind::kPanet:
      return augment::Profile::kPanet;
    case ChainKind::kFcenet:
      return augment::Profile::kFcenet;
    case ChainKind::kTextsnake:
      return augment::Profile::kTextsnake;
  }
  return augment::Profile::kPsenet;
}

bool rect_inside(const PixelOp& op, int h, int w) {
  return op.rect[0] >= 0 && op.rect[1] >= 0 && op.rect[0] <= op.rect[2] &&
         op.rect[1] <= op.rect[3] && op.rect[2] <= w && op.rect[3] <= h;
}

// Walks the ops' sizes from the input's: each op starts where the one before ended, none makes an
// empty image, and the last ends at side x side. Returns the largest side any op makes.
int check_op_sizes(std::span<const PixelOp> ops, int h, int w, int side) {
  using K = PixelOp::Kind;
  int largest = std::max(h, w);
  for (const PixelOp& op : ops)
    TF_CHECK(op.out_h >= 1 && op.out_w >= 1)
        << "an op makes a " << op.out_w << "x" << op.out_h << " image";
  for (size_t i = 0; i < ops.size(); ++i) {
    const PixelOp& op = ops[i];
    if (op.kind == K::kCrop || op.kind == K::kRegionFlip)
      TF_CHECK(rect_inside(op, h, w))
          << "op " << i << " rect " << op.rect[0] << "," << op.rect[1] << "," << op.rect[2] << ","
          << op.rect[3] << " in " << w << "x" << h;
    if (op.kind == K::kFillPatch)
      TF_CHECK(i > 0 && (ops[i - 1].kind == K::kAffine || ops[i - 1].kind == K::kPad)) << i;
    if (op.kind == K::kRegionFlip || op.kind == K::kFillPatch) {
      TF_CHECK(op.out_h == h && op.out_w == w) << "in-place op " << i << " changes the size";
      continue;
    }
    if (op.kind == K::kCrop) TF_CHECK(op.out_h == op.rect[3] - op.rect[1]) << i;
    if (op.kind == K::kCrop) TF_CHECK(op.out_w == op.rect[2] - op.rect[0]) << i;
    if (op.kind == K::kFlip) TF_CHECK(op.out_h == h && op.out_w == w) << i;
    h = op.out_h, w = op.out_w;
    largest = std::max({largest, h, w});
  }
  TF_CHECK(h == side && w == side) << "pixel ops end at " << w << "x" << h;
  return largest;
}

void check_polygons(const augment::mmocr::ChainState& s, ChainKind kind) {
  TF_CHECK(s.ignored.size() == s.polygons.size() && s.labels.size() == s.polygons.size())
      << s.polygons.size() << " polygons, " << s.ignored.size() << " flags";
  const double side = side_of(kind);
  const bool clipped = kind == ChainKind::kFcenet || kind == ChainKind::kTextsnake;
  const double lo = clipped ? -kEdgeTolerancePx : -side;
  const double hi = clipped ? side + kEdgeTolerancePx : 2 * side;
  for (size_t k = 0; k < s.polygons.size(); ++k) {
    const std::vector<double>& xy = s.polygons[k].xy;
    TF_CHECK(xy.size() % 2 == 0 && xy.size() >= 2 * kMinPoints)
        << "polygon " << k << " has " << xy.size() << " values";
    for (double v : xy)
      TF_CHECK(std::isfinite(v) && v >= lo && v <= hi) << "polygon " << k << " holds " << v;
  }
}

void check_refusal(const Status& s) {
  TF_CHECK(s.code() == Code::kInvalidArgument || s.code() == Code::kInternal) << s.to_string();
}

// The family's builder on the final polygons, into planes this target owns.
void run_targets(const augment::mmocr::ChainState& s, ChainKind kind) {
  static std::array<std::unique_ptr<augment::TargetBuilder>, 4> builders;
  static std::vector<Image> planes;
  const auto index = static_cast<size_t>(kind);
  const augment::AugmentOptions options = augment::profile_defaults(profile_of(kind));
  if (!builders[index])
    builders[index] = augment::family_of(options.profile).make_target_builder(options);
  const int side = side_of(kind);
  const std::vector<augment::TargetTensor> tensors = builders[index]->tensors(side);
  planes.resize(tensors.size());
  std::vector<MutableImageView> views;
  for (size_t t = 0; t < tensors.size(); ++t) {
    planes[t].reset(tensors[t].channels * tensors[t].side, tensors[t].side, 1, tensors[t].dtype);
    views.push_back(planes[t].mutable_view());
  }
  std::vector<double> xy;
  std::vector<uint32_t> ends;
  std::vector<unsigned char> labels;
  for (size_t k = 0; k < s.polygons.size(); ++k) {
    xy.insert(xy.end(), s.polygons[k].xy.begin(), s.polygons[k].xy.end());
    ends.push_back(static_cast<uint32_t>(xy.size() / 2));
    labels.push_back(s.ignored[k] != 0 ? kLabelIgnored : kLabelValid);
  }
  const Status built = builders[index]->build(views, {xy, ends}, labels, side);
  if (!built.ok()) return check_refusal(built);
  for (size_t t = 0; t < tensors.size(); ++t) {
    if (tensors[t].dtype != DType::kF32) continue;
    const auto* v = reinterpret_cast<const float*>(planes[t].data());
    const size_t n = planes[t].size_bytes() / sizeof(float);
    for (size_t i = 0; i < n; ++i) TF_CHECK(std::isfinite(v[i])) << tensors[t].name << " " << v[i];
  }
}

// The chain's pixel ops on an h x w image of a fixed pattern.
void run_pixels(std::span<const PixelOp> ops, int h, int w, int side) {
  static Image image;
  static augment::mmocr::PixelScratch scratch;
  image.reset(h, w, 3);
  uint8_t* p = image.data();
  for (size_t i = 0; i < image.size_bytes(); ++i) p[i] = static_cast<uint8_t>(i * 37 + (i >> 9));
  auto out = augment::mmocr::apply_pixel_ops(image.view(), ops, scratch);
  TF_CHECK(out.ok()) << out.status().to_string();
  TF_CHECK(out->height == side && out->width == side) << out->width << "x" << out->height;
}

}  // namespace

void mmocr_chain_one_input(std::span<const uint8_t> input) {
  const Decoded d = decode(input);
  const augment::mmocr::ChainInput chain_input{d.h, d.w, d.xy, d.points, d.ignored};
  auto replay = augment::mmocr::replay_chain(d.kind, chain_input, d.seed);
  if (!replay.ok()) {
    check_refusal(replay.status());
    if (!d.finite) TF_CHECK(replay.status().code() == Code::kInvalidArgument);
    return;
  }
  TF_CHECK(d.finite) << "a non-finite coordinate was accepted";
  const augment::mmocr::ChainState& s = replay->state;
  if (!s.dropped.empty()) {
    const bool may_drop = d.kind == ChainKind::kPsenet || d.kind == ChainKind::kPanet;
    TF_CHECK(may_drop && (s.dropped == "RandomRotate" || s.dropped == "FixInvalidPolygon"))
        << "dropped at " << s.dropped;
    return;
  }
  const int side = side_of(d.kind);
  TF_CHECK(s.h == side && s.w == side) << "the chain ended at " << s.w << "x" << s.h;
  check_polygons(s, d.kind);
  const int largest = check_op_sizes(s.ops, d.h, d.w, side);
  if (d.geometry_only) return;
  run_targets(s, d.kind);
  if (d.h <= kMaxPixelInput && d.w <= kMaxPixelInput && largest <= kMaxPixelOp)
    run_pixels(s.ops, d.h, d.w, side);
}

}  // namespace textfeed::fuzz
