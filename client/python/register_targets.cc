// Python bindings of the targets: east_targets, db_targets_flat (textfeed.reference.db_targets
// wraps it), shrink_poly, find_min_rect_angle.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "augment/db/targets.h"
#include "augment/east/shrink.h"
#include "augment/east/targets.h"
#include "client/python/register.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

using DArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
using LArray = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;

augment::Profile profile_or_raise(const std::string& name) {
  auto p = augment::parse_profile(name);
  if (!p.has_value()) throw_status(p.error());
  return *p;
}

template <class E>
E pick(const std::string& field, const std::string& value,
       std::initializer_list<std::pair<const char*, E>> names) {
  for (const auto& [n, e] : names)
    if (value == n) return e;
  std::string accepted;
  for (const auto& [n, e] : names) accepted += std::string(accepted.empty() ? "" : ", ") + n;
  throw_status(
      Status::invalid_argument(field + " = '" + value + "' (expected one of: " + accepted + ")"));
}

augment::Quad8 quad_of(const DArray& q) {
  if (q.size() != 8) throw_status(Status::invalid_argument("a quad has 8 coordinates"));
  augment::Quad8 v;
  std::copy_n(q.data(), 8, v.begin());
  return v;
}

py::dict east_targets(const DArray& vertices, const LArray& labels, int crop_size, double map_scale,
                      const std::string& profile, std::optional<std::string> fill_rule,
                      std::optional<std::string> overlap,
                      std::optional<std::string> ignored_targets,
                      std::optional<std::string> roi_resize, std::optional<bool> fix_orientation,
                      std::optional<double> clamp_geo, std::optional<std::string> angle_error) {
  augment::AugmentOptions o = augment::profile_defaults(profile_or_raise(profile));
  o.crop_size = crop_size;
  o.map_scale = map_scale;
  for (const auto& [name, value] :
       {std::pair{"fill_rule", fill_rule}, std::pair{"overlap", overlap},
        std::pair{"ignored_targets", ignored_targets}, std::pair{"roi_resize", roi_resize},
        std::pair{"angle_error", angle_error}})
    if (value)
      if (Status s = augment::set_option(o, name, *value); !s.ok()) throw_status(s);
  using namespace augment;
  if (fix_orientation) o.fix_orientation = *fix_orientation;
  if (clamp_geo) o.clamp_geo = *clamp_geo;
  if (Status s = validate(o); !s.ok()) throw_status(s);
  const bool empty = vertices.size() == 0 && labels.size() == 0;  // any empty shape: no words
  if (!empty && (labels.ndim() != 1 || vertices.ndim() != 2 || vertices.shape(1) != 8 ||
                 vertices.shape(0) != labels.shape(0)))
    throw_status(Status::invalid_argument("east_targets: vertices must be (n, 8) and labels (n,)"));
  const size_t n = static_cast<size_t>(labels.size());
  std::vector<unsigned char> lab(n);
  for (size_t i = 0; i < n; ++i) lab[i] = labels.data()[i] != 0;
  const int m = o.map_size();
  py::array_t<float> score({m, m}), geo({5, m, m}), mask({m, m});
  auto view = [](py::array_t<float>& a, int h, int w) {
    return MutableImageView{reinterpret_cast<uint8_t*>(a.mutable_data()), h,          w, 1,
                            static_cast<ptrdiff_t>(w * sizeof(float)),    DType::kF32};
  };
  TargetViews views{view(score, m, m), view(geo, 5 * m, m), view(mask, m, m)};
  const std::span<const double> verts(vertices.data(), 8 * n);
  Status s;
  {
    py::gil_scoped_release release;
    TargetScratch scratch;
    s = make_targets(views, verts, lab, crop_size, o, scratch);
  }
  if (!s.ok()) throw_status(s);
  py::dict d;
  d["score"] = score;
  d["geo"] = geo;
  d[o.mask == MaskKind::kRoi ? "roi" : "ignored"] = mask;
  return d;
}

using U32Array = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>;
using BArray = py::array_t<bool, py::array::c_style | py::array::forcecast>;

MutableImageView f32_view(py::array_t<float>& a, int h, int w) {
  return MutableImageView{reinterpret_cast<uint8_t*>(a.mutable_data()), h,          w, 1,
                          static_cast<ptrdiff_t>(w * sizeof(float)),    DType::kF32};
}

// xy: (T, 2) points of every polygon in turn; ends: (N,) each polygon's end in points.
py::dict db_targets_flat(const DArray& xy, const U32Array& ends, const BArray& ignore_tags,
                         std::pair<int, int> canvas_hw, double shrink_ratio, double min_text_size,
                         double thresh_min, double thresh_max, bool exact) {
  const size_t n = static_cast<size_t>(ends.size());
  if (ends.ndim() != 1 || ignore_tags.ndim() != 1 || static_cast<size_t>(ignore_tags.size()) != n ||
      (xy.size() != 0 && (xy.ndim() != 2 || xy.shape(1) != 2)))
    throw_status(
        Status::invalid_argument("db_targets: xy must be (T, 2), ends (N,) and ignore_tags (N,)"));
  if (n == 0 && xy.size() != 0)
    throw_status(Status::invalid_argument("db_targets: points given for no polygon"));
  const auto [h, w] = canvas_hw;
  if (h < 1 || w < 1 || h > augment::kMaxDbCanvasSide || w > augment::kMaxDbCanvasSide)
    throw_status(Status::invalid_argument("db_targets: canvas_hw = (" + std::to_string(h) + ", " +
                                          std::to_string(w) + "), expected 1..16384 per side"));
  std::vector<unsigned char> labels(n), ignore_out(n);
  for (size_t i = 0; i < n; ++i) labels[i] = ignore_tags.data()[i] ? 0 : 1;
  py::array_t<float> tmap({h, w}), tmask({h, w}), smap({h, w}), smask({h, w});
  const augment::DbTargetViews views{f32_view(tmap, h, w), f32_view(tmask, h, w),
                                     f32_view(smap, h, w), f32_view(smask, h, w)};
  const augment::DbTargetOptions o{shrink_ratio, thresh_min, thresh_max, min_text_size, exact};
  const augment::PolygonsView polys{std::span<const double>(xy.data(), xy.size()),
                                    std::span<const uint32_t>(ends.data(), n)};
  Status s;
  {
    py::gil_scoped_release release;
    augment::DbScratch scratch;
    s = augment::make_db_targets(views, polys, labels, o, scratch, ignore_out);
  }
  if (!s.ok()) throw_status(s);
  py::array_t<bool> tags(static_cast<py::ssize_t>(n));
  for (size_t i = 0; i < n; ++i) tags.mutable_data()[i] = ignore_out[i] != 0;
  py::dict d;
  d["threshold_map"] = tmap;
  d["threshold_mask"] = tmask;
  d["shrink_map"] = smap;
  d["shrink_mask"] = smask;
  d["ignore_tags"] = tags;
  return d;
}

}  // namespace

void register_targets(py::module_& m) {
  m.def("east_targets", &east_targets, py::arg("vertices"), py::arg("labels"), py::arg("crop_size"),
        py::arg("map_scale"), py::arg("profile") = "upstage", py::kw_only(),
        py::arg("fill_rule") = py::none(), py::arg("overlap") = py::none(),
        py::arg("ignored_targets") = py::none(), py::arg("roi_resize") = py::none(),
        py::arg("fix_orientation") = py::none(), py::arg("clamp_geo") = py::none(),
        py::arg("angle_error") = py::none(),
        "EAST targets of final crop vertices (n, 8) and labels (n,): dict of float32 arrays "
        "'score' (M, M), "
        "'geo' (5, M, M: d1 top, d2 bottom, d3 left, d4 right, angle) and 'roi' (upstage, 1 = "
        "valid) or "
        "'ignored' (sakura, 1 = ignore); M = int(crop_size * map_scale). Flags left None take the "
        "profile's value.");
  m.def("db_targets_flat", &db_targets_flat, py::arg("xy"), py::arg("ends"), py::arg("ignore_tags"),
        py::arg("canvas_hw"), py::kw_only(), py::arg("shrink_ratio") = 0.4,
        py::arg("min_text_size") = 8.0, py::arg("thresh_min") = 0.3, py::arg("thresh_max") = 0.7,
        py::arg("exact") = false,
        "PaddleOCR's DB targets (MakeBorderMap then MakeShrinkMap) of polygons given flat: xy "
        "(T, 2) float64 points, ends (N,) each polygon's end in points, ignore_tags (N,) bool. "
        "Returns float32 (H, W) 'threshold_map', 'threshold_mask', 'shrink_map', 'shrink_mask' "
        "and bool (N,) 'ignore_tags' after MakeShrinkMap. exact: the threshold map by the "
        "reference's float64 steps bit for bit (slower) instead of within a few float32 ulps. "
        "textfeed.reference.db_targets takes (N, P, 2) arrays or lists of polygons.");
  m.def(
      "shrink_poly",
      [](const DArray& q) {
        const augment::Quad8 r = augment::shrink_quad(quad_of(q));
        py::array_t<double> out(8);
        std::copy(r.begin(), r.end(), out.mutable_data());
        return out;
      },
      py::arg("quad"),
      "The quad shrunk by 0.3 of each vertex's shorter edge (docs/targets.md §3.1).");
  m.def(
      "find_min_rect_angle",
      [](const DArray& q, const std::string& metric) {
        const auto e = pick<augment::AngleError>(
            "metric", metric, {{"sr", augment::AngleError::kSr}, {"up", augment::AngleError::kUp}});
        return augment::angle_rad(augment::min_rect_angle_deg(quad_of(q), e));
      },
      py::arg("quad"), py::arg("metric") = "sr",
      "The minimum-rectangle angle in radians (docs/targets.md §3.2).");
}

}  // namespace textfeed::python
