// Python bindings of the EAST family's steps one at a time (textfeed.reference): the geometry plan
// with numpy's legacy RNG or the pipeline's, the targets of final vertices, and the per-quad units.
#include "augment/east/python_replay.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "augment/colour/photometric.h"
#include "augment/east/plan.h"
#include "augment/east/shrink.h"
#include "augment/east/targets.h"
#include "client/python/register.h"
#include "client/python/replay.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

py::dict plan_dict(const augment::GeometryPlan& p) {
  py::dict d;
  d["sizes"] =
      py::dict(py::arg("resized") = py::make_tuple(p.resized.width, p.resized.height),
               py::arg("adjusted") = py::make_tuple(p.adjusted.width, p.adjusted.height),
               py::arg("before_crop") = py::make_tuple(p.before_crop.width, p.before_crop.height),
               py::arg("upscaled") = py::make_tuple(p.upscaled.width, p.upscaled.height));
  d["crop"] = py::make_tuple(p.crop_x, p.crop_y);
  d["tries"] = p.tries;
  d["fallback"] = p.fallback;
  d["height_ratio"] = p.height_ratio;
  d["angle_deg"] = p.angle_deg;
  const py::ssize_t n = static_cast<py::ssize_t>(p.labels.size());
  py::array_t<double> v({n, py::ssize_t{8}});
  std::copy(p.vertices.begin(), p.vertices.end(), v.mutable_data());
  d["vertices"] = v;
  py::array_t<int64_t> lab(n);
  for (py::ssize_t i = 0; i < n; ++i) lab.mutable_data()[i] = p.labels[i];
  d["labels"] = lab;
  py::array_t<double> m({2, 3});
  std::copy(p.matrix, p.matrix + 6, m.mutable_data());
  d["matrix"] = m;
  return d;
}

augment::GeometryPlan run_plan(const augment::AugmentOptions& o, int w, int h,
                               const DArray& vertices, const LArray& labels, Rng& rng,
                               bool pre_resized) {
  const size_t n = static_cast<size_t>(labels.size());
  if (static_cast<size_t>(vertices.size()) != 8 * n)
    throw_status(Status::invalid_argument("vertices must be (n, 8)"));
  std::vector<Quad> quads(n);
  std::vector<unsigned char> lab(n);
  for (size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 8; ++k) {
      // The readers' rule: a coordinate must be finite as the float32 it becomes (NaN, inf, 1e39
      // would otherwise reach the plan as NaN or infinities and come back as impossible vertices).
      const double v = vertices.data()[8 * i + k];
      if (!(std::abs(v) <= static_cast<double>(std::numeric_limits<float>::max())))
        throw_status(Status::invalid_argument("vertices[" + std::to_string(i) + ", " +
                                              std::to_string(k) + "] = " + std::to_string(v) +
                                              " is not a finite float32 coordinate"));
      quads[i].xy[k] = static_cast<float>(v);
    }
    lab[i] = labels.data()[i] != 0;
  }
  augment::GeometryPlan p;
  Status s;
  {
    py::gil_scoped_release release;
    s = augment::plan_geometry(p, w, h, quads, lab, o, rng, pre_resized);
  }
  if (!s.ok()) throw_status(s);
  return p;
}

// replay_geometry(): the plan with numpy's legacy RNG, and the draws it consumed.
py::dict replay_geometry(const std::string& profile, int image_w, int image_h,
                         const DArray& vertices, const LArray& labels, uint32_t seed,
                         bool pre_resized, std::optional<int> crop_size,
                         std::optional<int> image_size) {
  const auto o = options_for(profile, crop_size, image_size);
  Rng rng = Rng::numpy_legacy(seed);
  const augment::GeometryPlan p = run_plan(o, image_w, image_h, vertices, labels, rng, pre_resized);
  py::dict d = plan_dict(p);
  // The plan draws only uniform() (p.draws of them), so the values it consumed are the first
  // p.draws of the same seeded stream.
  Rng again = Rng::numpy_legacy(seed);
  py::list draws;
  for (int64_t i = 0; i < p.draws; ++i) draws.append(again.uniform());
  d["draws"] = draws;
  return d;
}

// sample_params(): the plan and the colour parameters of one sample, as the loader draws them.
py::dict sample_params(const std::string& profile, int image_w, int image_h, const DArray& vertices,
                       const LArray& labels, uint64_t seed, uint64_t epoch, uint64_t index) {
  const auto o = options_for(profile, std::nullopt, std::nullopt);
  Rng rng(seed, epoch, index);
  const augment::GeometryPlan p = run_plan(o, image_w, image_h, vertices, labels, rng, false);
  py::dict d = plan_dict(p);
  d["color"] = color_dict(augment::draw_color_params(o, rng));
  return d;
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

// The profile's options for the targets, with each flag given replacing the profile's value.
augment::AugmentOptions target_options(
    const std::string& profile, int crop_size, double map_scale,
    std::initializer_list<std::pair<const char*, std::optional<std::string>>> flags,
    std::optional<bool> fix_orientation, std::optional<double> clamp_geo) {
  augment::AugmentOptions o = augment::profile_defaults(profile_or_raise(profile));
  o.crop_size = crop_size;
  o.map_scale = map_scale;
  for (const auto& [name, value] : flags)
    if (value)
      if (Status s = augment::set_option(o, name, *value); !s.ok()) throw_status(s);
  if (fix_orientation) o.fix_orientation = *fix_orientation;
  if (clamp_geo) o.clamp_geo = *clamp_geo;
  if (Status s = augment::validate(o); !s.ok()) throw_status(s);
  return o;
}

py::dict east_targets(const DArray& vertices, const LArray& labels, int crop_size, double map_scale,
                      const std::string& profile, std::optional<std::string> fill_rule,
                      std::optional<std::string> overlap,
                      std::optional<std::string> ignored_targets,
                      std::optional<std::string> roi_resize, std::optional<bool> fix_orientation,
                      std::optional<double> clamp_geo, std::optional<std::string> angle_error) {
  const augment::AugmentOptions o = target_options(profile, crop_size, map_scale,
                                                   {{"fill_rule", fill_rule},
                                                    {"overlap", overlap},
                                                    {"ignored_targets", ignored_targets},
                                                    {"roi_resize", roi_resize},
                                                    {"angle_error", angle_error}},
                                                   fix_orientation, clamp_geo);
  const bool empty = vertices.size() == 0 && labels.size() == 0;  // any empty shape: no words
  if (!empty && (labels.ndim() != 1 || vertices.ndim() != 2 || vertices.shape(1) != 8 ||
                 vertices.shape(0) != labels.shape(0)))
    throw_status(Status::invalid_argument("east_targets: vertices must be (n, 8) and labels (n,)"));
  const size_t n = static_cast<size_t>(labels.size());
  std::vector<unsigned char> lab(n);
  for (size_t i = 0; i < n; ++i) lab[i] = labels.data()[i] != 0;
  const int m = o.map_size();
  py::array_t<float> score({m, m}), geo({5, m, m}), mask({m, m});
  augment::TargetViews views{f32_view(score, m, m), f32_view(geo, 5 * m, m), f32_view(mask, m, m)};
  const std::span<const double> verts(vertices.data(), 8 * n);
  Status s;
  {
    py::gil_scoped_release release;
    augment::TargetScratch scratch;
    s = augment::make_targets(views, verts, lab, crop_size, o, scratch);
  }
  if (!s.ok()) throw_status(s);
  py::dict d;
  d["score"] = score;
  d["geo"] = geo;
  d[o.mask == augment::MaskKind::kRoi ? "roi" : "ignored"] = mask;
  return d;
}

void bind_plan(py::module_& m) {
  m.def("replay_geometry", &replay_geometry, py::arg("profile"), py::arg("image_w"),
        py::arg("image_h"), py::arg("vertices"), py::arg("labels"), py::arg("seed"),
        py::arg("pre_resized") = false, py::arg("crop_size") = py::none(),
        py::arg("image_size") = py::none(),
        "The geometric chain with numpy's legacy RNG seeded with `seed`: sizes after each step, "
        "crop, tries, "
        "fallback, final vertices and labels, the source->crop pixel matrix, and the draws "
        "consumed.");
  m.def(
      "sample_params", &sample_params, py::arg("profile"), py::arg("image_w"), py::arg("image_h"),
      py::arg("vertices"), py::arg("labels"), py::arg("seed"), py::arg("epoch"), py::arg("index"),
      "Every random decision of sample `index` in `epoch` (geometry plan and colour parameters).");
}

void bind_targets(py::module_& m) {
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

}  // namespace

void register_east_replay(py::module_& m) {
  bind_plan(m);
  bind_targets(m);
}

}  // namespace textfeed::python
