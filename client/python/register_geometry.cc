// Python bindings of the steps every family shares (replay and tests): the one warp and the
// photometric pass. Each family's own steps are bound in its folder (augment/family_python.h).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <string>

#include "augment/colour/photometric.h"
#include "augment/geometry/warp.h"
#include "client/python/register.h"
#include "client/python/replay.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

// Colour jitter drawn from `rng` (nothing drawn before it) + normalize: (float32 (3, H, W),
// params).
py::tuple jitter_crop(const U8Array& crop, const augment::AugmentOptions& o, Rng& rng) {
  if (crop.ndim() != 3 || crop.shape(2) != 3)
    throw_status(Status::invalid_argument("crop must be (H, W, 3) uint8"));
  const int h = static_cast<int>(crop.shape(0)), w = static_cast<int>(crop.shape(1));
  const ColorParams c = augment::draw_color_params(o, rng);
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
