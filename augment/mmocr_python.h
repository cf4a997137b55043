// What the mmocr target bindings of textfeed.reference share (augment/<family>/
// python_reference.cc; compiled into the Python module only): the words of one sample taken from
// numpy arrays, the target function run on them without the GIL, planes copied out into new numpy
// arrays, and the definition of a binding from its target function and its dict of fields.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "augment/geometry/text_kernels.h"
#include "client/python/register.h"
#include "client/python/replay.h"

namespace textfeed::python {

// The words of one sample over the caller's arrays: `words` borrows `xy` and `npts` (valid while
// they live) and this object's `flags`, so it must not be copied or moved once `words` is used.
struct MmocrWords {
  std::vector<uint8_t> flags;
  augment::TextKernelWords words;
};

// polys_xy (points, 2) float32, npts (N,) int32, ignored (N,) bool, img_hw (H, W): raises
// textfeed.errors' InvalidArgumentError naming `who` for a wrong shape or a canvas side outside
// int; the rest is checked by the target function (check_text_kernel_words).
inline void mmocr_words_from_numpy(MmocrWords& out, const CArray<float>& xy, const IArray& npts,
                                   const BArray& ignored, std::pair<int64_t, int64_t> img_hw,
                                   std::string_view who) {
  const std::string prefix(who);
  if (xy.size() != 0 && (xy.ndim() != 2 || xy.shape(1) != 2))
    throw_status(Status::invalid_argument(prefix + ": polys_xy must be (points, 2) float32"));
  if (npts.ndim() != 1 || ignored.ndim() != 1)
    throw_status(Status::invalid_argument(prefix + ": npts and ignored must be 1-D"));
  auto side_ok = [](int64_t v) { return v >= 1 && v <= augment::kMaxTextKernelCanvasSide; };
  if (!side_ok(img_hw.first) || !side_ok(img_hw.second))
    throw_status(Status::invalid_argument(prefix + ": img_hw (" + std::to_string(img_hw.first) +
                                          ", " + std::to_string(img_hw.second) + ") outside 1.." +
                                          std::to_string(augment::kMaxTextKernelCanvasSide)));
  out.flags.resize(static_cast<size_t>(ignored.size()));
  std::transform(ignored.data(), ignored.data() + ignored.size(), out.flags.begin(),
                 [](bool b) { return static_cast<uint8_t>(b ? 1 : 0); });
  out.words = {std::span<const float>(xy.data(), static_cast<size_t>(xy.size())),
               std::span<const int32_t>(npts.data(), static_cast<size_t>(npts.size())), out.flags,
               static_cast<int>(img_hw.first), static_cast<int>(img_hw.second)};
}

// Runs `build`, a target function (Result<T> of const augment::TextKernelWords&), on in.words with
// the GIL released, so that other Python threads run meanwhile. Returns its T; raises the
// textfeed.errors exception mapped from its Status where it fails. Call with the GIL held.
template <class Build>
auto build_without_gil(const MmocrWords& in, const Build& build) {
  auto r = [&] {
    pybind11::gil_scoped_release release;
    return build(in.words);
  }();
  if (!r.ok()) throw_status(r.status());
  return std::move(r).value();
}

// A new numpy array of `shape` holding a copy of `v` (v.size() must equal the shape's product).
template <class T, class U = T>
pybind11::array_t<T> numpy_copy(const std::vector<U>& v, std::vector<pybind11::ssize_t> shape) {
  pybind11::array_t<T> a(std::move(shape));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// A new (n,) numpy array holding a copy of `v`.
template <class T, class U = T>
pybind11::array_t<T> numpy_vector(const std::vector<U>& v) {
  return numpy_copy<T>(v, {static_cast<pybind11::ssize_t>(v.size())});
}

// A new (height, width) numpy array holding a copy of the row-major plane `v`.
template <class T, class U = T>
pybind11::array_t<T> numpy_hw(const std::vector<U>& v, pybind11::ssize_t height,
                              pybind11::ssize_t width) {
  return numpy_copy<T>(v, {height, width});
}

// A new (planes, height, width) numpy array holding a copy of the row-major planes `v`.
template <class T, class U = T>
pybind11::array_t<T> numpy_chw(const std::vector<U>& v, pybind11::ssize_t planes,
                               pybind11::ssize_t height, pybind11::ssize_t width) {
  return numpy_copy<T>(v, {planes, height, width});
}

// {"gt_kernels": (K, H, W), "gt_mask": (H, W)}, float32: the fields of text kernels (PSENet's
// targets, PANet's kernels).
inline pybind11::dict text_kernels_dict(const augment::TextKernels& k) {
  pybind11::dict d;
  d["gt_kernels"] = numpy_chw<float>(k.kernels, k.num_kernels, k.height, k.width);
  d["gt_mask"] = numpy_hw<float>(k.mask, k.height, k.width);
  return d;
}

// Defines m.<name>(polys_xy, npts, ignored, img_hw) -> dict: the words read by
// mmocr_words_from_numpy (its errors name `name`), `build` run on them by build_without_gil, and
// `to_dict` of the value it returns (called with the GIL held). `name` and `doc` are literals.
template <class Build, class ToDict>
void def_mmocr_targets(pybind11::module_& m, const char* name, Build build, ToDict to_dict,
                       const char* doc) {
  m.def(
      name,
      [name, build, to_dict](const CArray<float>& polys_xy, const IArray& npts,
                             const BArray& ignored,
                             std::pair<int64_t, int64_t> img_hw) -> pybind11::dict {
        MmocrWords in;
        mmocr_words_from_numpy(in, polys_xy, npts, ignored, img_hw, name);
        return to_dict(build_without_gil(in, build));
      },
      pybind11::arg("polys_xy"), pybind11::arg("npts"), pybind11::arg("ignored"),
      pybind11::arg("img_hw"), doc);
}

}  // namespace textfeed::python
