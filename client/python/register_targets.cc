// Python bindings of the EAST targets: east_targets, shrink_poly, find_min_rect_angle.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "augment/shrink.h"
#include "augment/targets.h"
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
  for (const auto& [name, value] : {std::pair{"fill_rule", fill_rule}, std::pair{"overlap", overlap},
                                     std::pair{"ignored_targets", ignored_targets},
                                     std::pair{"roi_resize", roi_resize}, std::pair{"angle_error", angle_error}})
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
  m.def(
      "shrink_poly",
      [](const DArray& q) {
        const augment::Quad8 r = augment::shrink_quad(quad_of(q));
        py::array_t<double> out(8);
        std::copy(r.begin(), r.end(), out.mutable_data());
        return out;
      },
      py::arg("quad"), "The quad shrunk by 0.3 of each vertex's shorter edge (docs/targets.md §3.1).");
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
