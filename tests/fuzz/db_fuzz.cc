// Fuzz target: polygons -> DB targets (augment/make_db_targets), the path every DB sample takes.
// The input chooses a small canvas, the shrink ratio and up to 16 polygons of up to 63 points
// whose coordinates include NaN, infinities, values past the accepted range, repeated and
// collinear points and self-crossing rings. Beyond "no crash, no hang", it checks what
// make_db_targets promises: a refusal is kInvalidArgument naming a polygon or the options; on
// success every pixel is written and finite, the threshold map lies in [thresh_min, thresh_max],
// the masks and the shrink map hold only 0 and 1, and a polygon given as ignored stays ignored.
// Some inputs go through the invalid_polygon policy first (augment/geometry/polygon_policy.h), as
// the db profile does: then no non-finite point reaches the targets, and under `ignore` and
// `repair` no word stays valid that the policy would still call defective.
#include <cmath>
#include <limits>
#include <vector>

#include "augment/db/targets.h"
#include "augment/geometry/polygon_policy.h"
#include "base/log.h"
#include "tests/fuzz/fuzz_targets.h"

namespace textfeed::fuzz {
namespace {

// Reads the input front to back; past its end every byte reads as 0.
struct Bytes {
  std::span<const uint8_t> in;
  size_t at = 0;
  uint8_t u8() { return at < in.size() ? in[at++] : 0; }
  bool more() const { return at < in.size(); }
};

// Two bytes -> a coordinate in 1/8 px over about +-4096 px, three patterns kept for values the
// function must refuse.
double coordinate(Bytes& b) {
  const int v = static_cast<int16_t>(static_cast<uint16_t>(b.u8() | (b.u8() << 8)));
  if (v == -32768) return std::numeric_limits<double>::quiet_NaN();
  if (v == 32767) return std::numeric_limits<double>::infinity();
  if (v == -32767) return 1e7;
  return v / 8.0 + 32.0;
}

void check_maps(const std::vector<float>& planes, size_t plane, const augment::DbTargetOptions& o) {
  const float lo = static_cast<float>(o.thresh_min), hi = static_cast<float>(o.thresh_max);
  for (size_t k = 0; k < 4; ++k)
    for (size_t i = 0; i < plane; ++i) {
      const float v = planes[k * plane + i];
      TF_CHECK(std::isfinite(v)) << "map " << k << " pixel " << i << " = " << v;
      if (k == 0)
        TF_CHECK(v >= lo && v <= hi + 1e-6f) << "threshold " << v;
      else
        TF_CHECK(v == 0.f || v == 1.f) << "map " << k << " pixel " << i << " = " << v;
    }
}

// Applies policy `p` to the words and checks what it promises.
void apply_policy(augment::InvalidPolygon p, std::vector<double>& xy, std::vector<uint32_t>& ends,
                  std::vector<unsigned char>& labels, int w, int h) {
  augment::PolygonSet words{xy, ends, labels};
  augment::PolygonPolicy policy(p);
  PolygonCounts counts;
  const Status s = policy.apply(words, w, h, counts);
  TF_CHECK(s.ok()) << s.to_string();
  TF_CHECK(counts.invalid() <= ends.size() && words.ends.size() <= ends.size());
  TF_CHECK(ends.size() - words.ends.size() == counts.non_finite)
      << "only non-finite words are dropped";
  for (double v : words.xy) TF_CHECK(std::isfinite(v)) << "a non-finite point passed the policy";
  uint32_t first = 0;
  for (size_t k = 0; k < words.ends.size(); ++k) {
    const std::span<const double> ring(words.xy.data() + 2 * size_t{first},
                                       2 * size_t{words.ends[k] - first});
    first = words.ends[k];
    if (p == augment::InvalidPolygon::kKeep || words.labels[k] == 0) continue;
    const augment::PolygonDefect d = policy.inspect(ring, w, h);
    TF_CHECK(d == augment::PolygonDefect::kNone)
        << "word " << k << " stayed valid with defect " << static_cast<int>(d) << " under policy "
        << static_cast<int>(p);
  }
  xy = std::move(words.xy), ends = std::move(words.ends), labels = std::move(words.labels);
}

}  // namespace

void db_one_input(std::span<const uint8_t> input) {
  Bytes b{input};
  const int h = 1 + b.u8() % 96, w = 1 + b.u8() % 96;
  const int policy = b.u8() % 8;  // 0..2: keep, repair, ignore (InvalidPolygon); above: none
  augment::DbTargetOptions o;
  o.shrink_ratio = (1 + b.u8()) / 258.0;
  o.min_text_size = b.u8() % 16;
  std::vector<double> xy;
  std::vector<uint32_t> ends;
  std::vector<unsigned char> labels;
  while (b.more() && ends.size() < 16) {
    const int n = b.u8() % 64;
    labels.push_back(b.u8() % 4 == 0 ? 0 : 1);
    for (int i = 0; i < 2 * n; ++i) xy.push_back(coordinate(b));
    ends.push_back(static_cast<uint32_t>(xy.size() / 2));
  }
  if (policy < 3)
    apply_policy(static_cast<augment::InvalidPolygon>(policy), xy, ends, labels, w, h);
  const size_t plane = static_cast<size_t>(h) * w;
  std::vector<float> planes(4 * plane, -5.f);
  auto view = [&](size_t k) {
    return MutableImageView{reinterpret_cast<uint8_t*>(planes.data() + k * plane),
                            h,
                            w,
                            1,
                            static_cast<ptrdiff_t>(w * sizeof(float)),
                            DType::kF32};
  };
  std::vector<unsigned char> ignore(labels.size(), 7);
  augment::DbScratch scratch;
  const Status s =
      augment::make_db_targets({view(0), view(1), view(2), view(3)},
                               augment::PolygonsView{xy, ends}, labels, o, scratch, ignore);
  if (!s.ok()) {
    TF_CHECK(s.code() == Code::kInvalidArgument) << s.to_string();
    TF_CHECK(s.message().find("DB targets") == 0) << s.to_string();
    return;
  }
  check_maps(planes, plane, o);
  for (size_t k = 0; k < labels.size(); ++k) {
    TF_CHECK(ignore[k] == 0 || ignore[k] == 1) << "ignore tag " << int{ignore[k]};
    TF_CHECK(labels[k] != 0 || ignore[k] == 1)
        << "polygon " << k << " given as ignored came back valid";
  }
}

}  // namespace textfeed::fuzz
