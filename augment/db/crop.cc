// DB crop: EastRandomCropData's crop search and keep-ratio placement (see db_crop.h).
#include "augment/db/crop.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

namespace textfeed::augment {
namespace {}  // namespace

uint32_t numpy_legacy_index(Rng& rng, uint32_t n) {
  const uint32_t top = n - 1;
  if (top == 0) return 0;
  uint32_t mask = top;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  uint32_t v;
  while ((v = (rng.next_u32() & mask)) > top) {
  }
  return v;
}

namespace {

uint32_t draw_index(Rng& rng, uint32_t n, CropDraws mode) {
  return mode == CropDraws::kNumpyLegacy ? numpy_legacy_index(rng, n) : rng.below(n);
}

// Python's a[start:stop] = 1 on a list of n: negative bounds count from the end, then clamp.
void python_slice_fill(std::vector<int32_t>& a, int64_t start, int64_t stop) {
  const int64_t n = static_cast<int64_t>(a.size());
  auto norm = [n](int64_t v) {
    if (v < 0) v += n;
    return std::clamp<int64_t>(v, 0, n);
  };
  const int64_t b = norm(start), e = norm(stop);
  for (int64_t i = b; i < e; ++i) a[static_cast<size_t>(i)] = 1;
}

// The free rows/columns (np.where(array == 0)) and their runs; split_regions keeps every run but
// the last, so one run gives no region at all (a quirk the reference has).
struct Axis {
  std::vector<int32_t> free;
  std::vector<std::pair<uint32_t, uint32_t>> regions;  // [begin, end) into free
};

void build_axis(Axis& ax, const std::vector<int32_t>& covered) {
  ax.free.clear();
  ax.regions.clear();
  for (size_t i = 0; i < covered.size(); ++i)
    if (covered[i] == 0) ax.free.push_back(static_cast<int32_t>(i));
  uint32_t first = 0;
  for (uint32_t i = 1; i < ax.free.size(); ++i) {
    if (ax.free[i] != ax.free[i - 1] + 1) {
      ax.regions.emplace_back(first, i);
      first = i;
    }
  }
}

// random_select / region_wise_random_select: two values, returned ordered.
std::pair<int, int> select_pair(const Axis& ax, int max_size, Rng& rng, CropDraws mode) {
  int a, b;
  if (ax.regions.size() > 1) {
    const uint32_t nr = static_cast<uint32_t>(ax.regions.size());
    const uint32_t r0 = draw_index(rng, nr, mode), r1 = draw_index(rng, nr, mode);
    const auto pick = [&](uint32_t r) {
      const auto [begin, end] = ax.regions[r];
      return ax.free[begin + draw_index(rng, end - begin, mode)];
    };
    a = pick(r0);
    b = pick(r1);
    return {std::min(a, b), std::max(a, b)};
  }
  const uint32_t n = static_cast<uint32_t>(ax.free.size());
  a = ax.free[draw_index(rng, n, mode)];
  b = ax.free[draw_index(rng, n, mode)];
  return {std::clamp(std::min(a, b), 0, max_size - 1), std::clamp(std::max(a, b), 0, max_size - 1)};
}

struct Extent {
  double min_x, max_x, min_y, max_y;
};

Extent extent(DbPolygons p, size_t i) {
  const int32_t b = i == 0 ? 0 : p.ends[i - 1], e = p.ends[i];
  Extent x{p.xy[2 * b], p.xy[2 * b], p.xy[2 * b + 1], p.xy[2 * b + 1]};
  for (int32_t k = b + 1; k < e; ++k) {
    x.min_x = std::min(x.min_x, p.xy[2 * k]);
    x.max_x = std::max(x.max_x, p.xy[2 * k]);
    x.min_y = std::min(x.min_y, p.xy[2 * k + 1]);
    x.max_y = std::max(x.max_y, p.xy[2 * k + 1]);
  }
  return x;
}

// is_poly_outside_rect: strictly left/right of or above/below [x, x + w] x [y, y + h].
bool outside(const Extent& e, double x, double y, double w, double h) {
  return e.max_x < x || e.min_x > x + w || e.max_y < y || e.min_y > y + h;
}

// np.round(v).astype(np.int32): half to even (the default FE_TONEAREST mode of nearbyint); a
// value outside int32 becomes INT32_MIN, as NumPy's cast gives on x86-64 (cvttsd2si's "integer
// indefinite"), so a huge coordinate behaves as it does in the reference instead of being UB here.
int64_t round_i32(double v) {
  const double r = std::nearbyint(v);
  if (!(r >= -2147483648.0 && r <= 2147483647.0)) return INT32_MIN;
  return static_cast<int32_t>(r);
}

// The slices crop_area marks for polygon i: the min and max of its points rounded to int32 (not
// the rounded min and max: a value beyond int32 becomes -2^31 and may turn into the minimum).
void mark_rounded_extent(std::vector<int32_t>& w_cover, std::vector<int32_t>& h_cover, DbPolygons p,
                         size_t i) {
  const int32_t b = i == 0 ? 0 : p.ends[i - 1], e = p.ends[i];
  int64_t min_x = INT64_MAX, max_x = INT64_MIN, min_y = INT64_MAX, max_y = INT64_MIN;
  for (int32_t k = b; k < e; ++k) {
    const int64_t x = round_i32(p.xy[2 * k]), y = round_i32(p.xy[2 * k + 1]);
    min_x = std::min(min_x, x);
    max_x = std::max(max_x, x);
    min_y = std::min(min_y, y);
    max_y = std::max(max_y, y);
  }
  python_slice_fill(w_cover, min_x, max_x);
  python_slice_fill(h_cover, min_y, max_y);
}

}  // namespace

Status validate_polygons(DbPolygons p) {
  int32_t prev = 0;
  for (size_t i = 0; i < p.ends.size(); ++i) {
    if (p.ends[i] <= prev)
      return Status::invalid_argument("polygon " + std::to_string(i) +
                                      ": no points (ends must increase)");
    prev = p.ends[i];
  }
  if (p.xy.size() != 2 * static_cast<size_t>(prev))
    return Status::invalid_argument("polygons: " + std::to_string(p.xy.size()) +
                                    " coordinates for " + std::to_string(prev) + " points");
  for (size_t i = 0, k = 0; i < p.ends.size(); ++i) {
    for (; k < static_cast<size_t>(p.ends[i]); ++k) {
      for (int c = 0; c < 2; ++c) {
        const double v = p.xy[2 * k + c];
        if (!std::isfinite(v))
          return Status::invalid_argument("polygon " + std::to_string(i) + " point " +
                                          std::to_string(k) + ": coordinate " + std::to_string(v) +
                                          " is not finite");
      }
    }
  }
  return Status();
}

Status validate(const DbCropOptions& o) {
  if (o.size < 1 || o.size > 16384)
    return Status::invalid_argument("db crop: size must be in 1..16384, got " +
                                    std::to_string(o.size));
  if (o.max_tries < 0 || o.max_tries > 100000)
    return Status::invalid_argument("db crop: max_tries must be in 0..100000, got " +
                                    std::to_string(o.max_tries));
  if (!(o.min_crop_side_ratio > 0 && o.min_crop_side_ratio <= 1))
    return Status::invalid_argument("db crop: min_crop_side_ratio must be in (0, 1], got " +
                                    std::to_string(o.min_crop_side_ratio));
  return Status();
}

Status db_crop_area(CropBox& out, bool& fallback, int& tries, int img_w, int img_h, DbPolygons care,
                    const DbCropOptions& o, Rng& rng, CropDraws mode) {
  if (img_w < 1 || img_h < 1 || img_w > (1 << 20) || img_h > (1 << 20))
    return Status::invalid_argument("db crop: image size " + std::to_string(img_w) + "x" +
                                    std::to_string(img_h) + " is not in 1..2^20");
  TF_RETURN_IF_ERROR(validate(o));
  TF_RETURN_IF_ERROR(validate_polygons(care));
  out = CropBox{0, 0, img_w, img_h};
  fallback = true;
  tries = 0;
  std::vector<int32_t> w_cover(static_cast<size_t>(img_w), 0),
      h_cover(static_cast<size_t>(img_h), 0);
  std::vector<Extent> extents(care.ends.size());
  for (size_t i = 0; i < care.ends.size(); ++i) {
    extents[i] = extent(care, i);
    mark_rounded_extent(w_cover, h_cover, care, i);
  }
  Axis ax_w, ax_h;
  build_axis(ax_w, w_cover);
  build_axis(ax_h, h_cover);
  if (ax_w.free.empty() || ax_h.free.empty()) return Status();
  for (int t = 0; t < o.max_tries; ++t) {
    tries = t + 1;
    // Plain variables, not structured bindings: the lambda below captures them (C++20 allows
    // capturing bindings; clang 14 does not yet).
    const auto xs = select_pair(ax_w, img_w, rng, mode);
    const auto ys = select_pair(ax_h, img_h, rng, mode);
    const int xmin = xs.first, xmax = xs.second, ymin = ys.first, ymax = ys.second;
    if (xmax - xmin < o.min_crop_side_ratio * img_w || ymax - ymin < o.min_crop_side_ratio * img_h)
      continue;
    const bool any_inside = std::any_of(extents.begin(), extents.end(), [&](const Extent& e) {
      return !outside(e, xmin, ymin, xmax - xmin, ymax - ymin);
    });
    if (any_inside) {
      out = CropBox{xmin, ymin, xmax - xmin, ymax - ymin};
      fallback = false;
      return Status();
    }
  }
  return Status();
}

Status db_crop(DbCrop& out, int img_w, int img_h, DbPolygons polys,
               std::span<const unsigned char> ignore, const DbCropOptions& o, Rng& rng,
               CropDraws mode) {
  TF_RETURN_IF_ERROR(validate_polygons(polys));
  if (ignore.size() != polys.ends.size())
    return Status::invalid_argument("db crop: " + std::to_string(ignore.size()) +
                                    " ignore tags for " + std::to_string(polys.ends.size()) +
                                    " polygons");
  // TODO(perf): the care copy and crop_area's axis vectors are per-call allocations; a scratch
  // object reused across samples would remove them once the producer runs this per sample.
  std::vector<double> care_xy;
  std::vector<int32_t> care_ends;
  for (size_t i = 0; i < polys.ends.size(); ++i) {
    if (ignore[i]) continue;
    const int32_t b = i == 0 ? 0 : polys.ends[i - 1];
    care_xy.insert(care_xy.end(), polys.xy.begin() + 2 * b, polys.xy.begin() + 2 * polys.ends[i]);
    care_ends.push_back(static_cast<int32_t>(care_xy.size() / 2));
  }
  TF_RETURN_IF_ERROR(db_crop_area(out.crop, out.fallback, out.tries, img_w, img_h,
                                  {care_xy, care_ends}, o, rng, mode));
  const CropBox& c = out.crop;
  out.scale = std::min(static_cast<double>(o.size) / c.w, static_cast<double>(o.size) / c.h);
  out.out_w = static_cast<int>(c.w * out.scale);
  out.out_h = static_cast<int>(c.h * out.scale);
  out.kept.assign(polys.ends.size(), 0);
  out.xy.clear();
  out.ends.clear();
  out.ignore.clear();
  for (size_t i = 0; i < polys.ends.size(); ++i) {
    const int32_t b = i == 0 ? 0 : polys.ends[i - 1];
    const size_t start = out.xy.size();
    for (int32_t k = b; k < polys.ends[i]; ++k) {
      out.xy.push_back((polys.xy[2 * k] - c.x) * out.scale);
      out.xy.push_back((polys.xy[2 * k + 1] - c.y) * out.scale);
    }
    const DbPolygons moved{std::span<const double>(out.xy).subspan(start),
                           std::span<const int32_t>()};
    Extent e{moved.xy[0], moved.xy[0], moved.xy[1], moved.xy[1]};
    for (size_t k = 2; k < moved.xy.size(); k += 2) {
      e.min_x = std::min(e.min_x, moved.xy[k]);
      e.max_x = std::max(e.max_x, moved.xy[k]);
      e.min_y = std::min(e.min_y, moved.xy[k + 1]);
      e.max_y = std::max(e.max_y, moved.xy[k + 1]);
    }
    if (outside(e, 0, 0, out.out_w, out.out_h)) {
      out.xy.resize(start);
      continue;
    }
    out.kept[i] = 1;
    out.ends.push_back(static_cast<int32_t>(out.xy.size() / 2));
    out.ignore.push_back(ignore[i]);
  }
  return Status();
}

}  // namespace textfeed::augment
