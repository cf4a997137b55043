// Python bindings of the geometry plan, the warp and the photometric pass (replay and tests).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "augment/east/plan.h"
#include "augment/photometric.h"
#include "augment/warp.h"
#include "client/python/register.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

using DArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
using LArray = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;
using U8Array = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>;

augment::AugmentOptions options_for(const std::string& profile, std::optional<int> crop_size,
                                    std::optional<int> image_size) {
  auto p = augment::parse_profile(profile);
  if (!p.has_value()) throw_status(p.error());
  augment::AugmentOptions o = augment::profile_defaults(*p);
  if (crop_size) o.crop_size = *crop_size;
  if (image_size) o.image_size = *image_size;
  if (Status s = augment::validate(o); !s.ok()) throw_status(s);
  return o;
}

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

py::dict color_dict(const augment::ColorParams& c) {
  static const char* names[] = {"brightness", "contrast", "saturation", "hue"};
  py::list order;
  for (auto op : c.order) order.append(names[static_cast<int>(op)]);
  return py::dict(py::arg("applied") = c.applied, py::arg("brightness") = c.brightness,
                  py::arg("contrast") = c.contrast, py::arg("saturation") = c.saturation,
                  py::arg("hue") = c.hue, py::arg("order") = order);
}

// Colour jitter drawn from `rng` (nothing drawn before it) + normalize: (float32 (3, H, W),
// params).
py::tuple jitter_crop(const U8Array& crop, const augment::AugmentOptions& o, Rng& rng) {
  if (crop.ndim() != 3 || crop.shape(2) != 3)
    throw_status(Status::invalid_argument("crop must be (H, W, 3) uint8"));
  const int h = static_cast<int>(crop.shape(0)), w = static_cast<int>(crop.shape(1));
  const augment::ColorParams c = augment::draw_color_params(o, rng);
  py::array_t<float> out({3, h, w});
  const ImageView src{crop.data(), h, w, 3, static_cast<ptrdiff_t>(w) * 3, DType::kU8};
  const MutableImageView dst{reinterpret_cast<uint8_t*>(out.mutable_data()),
                             3 * h,
                             w,
                             1,
                             static_cast<ptrdiff_t>(w) * 4,
                             DType::kF32};
  Status s;
  {
    py::gil_scoped_release release;
    s = augment::apply_photometric(dst, src, c, o);
  }
  if (!s.ok()) throw_status(s);
  return py::make_tuple(out, color_dict(c));
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

// warp_crop(): the one warp of `image` by `matrix` into a crop_size x crop_size RGB crop.
py::array_t<uint8_t> warp_crop(const U8Array& image, const DArray& matrix, int crop_size) {
  if (image.ndim() != 3 || image.shape(2) != 3 || matrix.size() != 6)
    throw_status(Status::invalid_argument("warp_crop: image (H, W, 3) uint8 and matrix (2, 3)"));
  if (crop_size < 1 || crop_size > 16384)
    throw_status(Status::invalid_argument("warp_crop: crop_size must be in 1..16384, got " +
                                          std::to_string(crop_size)));
  for (py::ssize_t i = 0; i < 6; ++i)
    if (!std::isfinite(matrix.data()[i]))
      throw_status(Status::invalid_argument("warp_crop: the matrix must be finite"));
  const int h = static_cast<int>(image.shape(0)), w = static_cast<int>(image.shape(1));
  py::array_t<uint8_t> out({crop_size, crop_size, 3});
  const ImageView src{image.data(), h, w, 3, static_cast<ptrdiff_t>(w) * 3, DType::kU8};
  const MutableImageView dst{
      out.mutable_data(), crop_size, crop_size, 3, static_cast<ptrdiff_t>(crop_size) * 3,
      DType::kU8};
  Status s;
  {
    py::gil_scoped_release release;
    augment::WarpScratch scratch;
    s = augment::warp_to_crop(dst, src, matrix.data(), 1.0, scratch);
  }
  if (!s.ok()) throw_status(s);
  return out;
}

// photometric(): colour jitter drawn from Rng(seed, epoch, index) + normalize.
py::tuple photometric(const U8Array& crop, const std::string& profile, uint64_t seed,
                      uint64_t epoch, uint64_t index, std::optional<double> color_jitter_p,
                      std::optional<std::string> color_math) {
  auto o = options_for(profile, std::nullopt, std::nullopt);
  if (color_jitter_p) o.color_jitter_p = *color_jitter_p;
  if (color_math)
    if (Status s = augment::set_option(o, "color_math", *color_math); !s.ok()) throw_status(s);
  Rng rng(seed, epoch, index);
  return jitter_crop(crop, o, rng);
}

// color_jitter(): photometric(image, profile, seed, 0, 0).
py::tuple color_jitter(const U8Array& image, uint64_t seed, const std::string& profile,
                       std::optional<double> color_jitter_p) {
  auto o = options_for(profile, std::nullopt, std::nullopt);
  if (color_jitter_p) o.color_jitter_p = *color_jitter_p;
  Rng rng(seed, 0, 0);
  return jitter_crop(image, o, rng);
}

}  // namespace

void register_geometry(py::module_& m) {
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
  m.def("warp_crop", &warp_crop, py::arg("image"), py::arg("matrix"), py::arg("crop_size"),
        "The one warp: source RGB -> crop RGB.");
  m.def("photometric", &photometric, py::arg("crop"), py::arg("profile"), py::arg("seed"),
        py::arg("epoch"), py::arg("index"), py::kw_only(), py::arg("color_jitter_p") = py::none(),
        py::arg("color_math") = py::none(),
        "Colour jitter drawn from Rng(seed, epoch, index) (no geometric draws before it) + "
        "normalize: "
        "(float32 (3, H, W), params). color_math: 'fused', 'albumentations_1_3_1' or "
        "'albumentations_1_4_12' instead of the profile's.");
  m.def("color_jitter", &color_jitter, py::arg("image"), py::arg("seed"),
        py::arg("profile") = "upstage", py::kw_only(), py::arg("color_jitter_p") = py::none(),
        "photometric(image, profile, seed, 0, 0): colour jitter of an RGB uint8 (H, W, 3) image "
        "drawn from "
        "Rng(seed, 0, 0), then the profile's normalize: (float32 (3, H, W), params dict with "
        "'applied', the four "
        "factors and 'order').");
}

}  // namespace textfeed::python
