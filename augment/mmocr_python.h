// What the mmocr target bindings of textfeed.reference share (augment/<family>/
// python_reference.cc; compiled into the Python module only): the words of one sample taken from
// numpy arrays, the target function run on them without the GIL, and the definition of a binding
// either from a target function and its dict of fields (values copied out into new numpy arrays)
// or from a function that draws into numpy arrays made with zeros in advance.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "augment/geometry/text_kernels.h"
#include "base/image.h"
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

// A new numpy array of `shape` made by numpy.zeros, as the reference makes its planes: fresh
// pages are zeroed by the kernel on first touch, memory the allocator reuses is cleared whole.
// For arrays the drawing covers densely. Call with the GIL held.
template <class T>
pybind11::array_t<T> numpy_zeros(const std::vector<pybind11::ssize_t>& shape) {
  using pybind11::literals::operator""_a;
  pybind11::object zeros = pybind11::module_::import("numpy").attr("zeros");
  return zeros(pybind11::cast(shape), "dtype"_a = pybind11::dtype::of<T>())
      .template cast<pybind11::array_t<T>>();
}

namespace internal {

// The mapping behind a numpy_lazy_zeros array: one page holding its length in bytes, then the
// values.
inline constexpr size_t kMappingHeaderBytes = 4096;
// Below this, numpy_lazy_zeros leaves the array to numpy.zeros (a mapping costs two system calls).
inline constexpr size_t kLazyZerosMinBytes = size_t{1} << 16;

inline void unmap_values(void* values) {
  auto* base = static_cast<unsigned char*>(values) - kMappingHeaderBytes;
  size_t bytes = 0;
  std::memcpy(&bytes, base, sizeof(bytes));
  munmap(base, bytes);
}

}  // namespace internal

// A new C-contiguous numpy array of `shape` that reads as zeros and whose pages cost nothing until
// written: its values lie on an anonymous mapping of their own (unmapped when the array dies),
// which the kernel zeroes page by page on first touch, however the allocator would reuse memory
// freed before. For arrays the drawing touches sparsely (a first touch costs several times what
// clearing a page does). Arrays under 64 KiB come from numpy_zeros. Raises MemoryError when the
// mapping fails. Call with the GIL held.
template <class T>
pybind11::array_t<T> numpy_lazy_zeros(const std::vector<pybind11::ssize_t>& shape) {
  size_t count = 1;
  for (pybind11::ssize_t n : shape) count *= static_cast<size_t>(n);
  if (count * sizeof(T) < internal::kLazyZerosMinBytes) return numpy_zeros<T>(shape);
  const size_t bytes = internal::kMappingHeaderBytes + count * sizeof(T);
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  std::memcpy(base, &bytes, sizeof(bytes));
  auto* values =
      reinterpret_cast<T*>(static_cast<unsigned char*>(base) + internal::kMappingHeaderBytes);
  // The capsule owns the mapping from here on; if it cannot be made, the mapping goes back here.
  auto unmap = [bytes](void* p) { munmap(p, bytes); };
  std::unique_ptr<void, decltype(unmap)> guard(base, unmap);
  pybind11::capsule owner(values, &internal::unmap_values);
  guard.release();
  return pybind11::array_t<T>(shape, values, owner);
}

// A new C-contiguous numpy array of `shape` whose values are unspecified: for planes the caller
// writes whole. Call with the GIL held.
template <class T>
pybind11::array_t<T> numpy_uninitialized(const std::vector<pybind11::ssize_t>& shape) {
  return pybind11::array_t<T>(shape);
}

// Rows [first_row, first_row + rows) of the C-contiguous array `a` seen as rows of `width` values
// (a plane of a (..., H, W) array, or channels stacked as rows): a one-channel view, valid while
// `a` lives. Call with the GIL held; the view may then be written without it.
template <class T>
MutableImageView numpy_rows(pybind11::array_t<T>& a, int64_t first_row, int rows, int width) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, uint8_t>);
  T* data = a.mutable_data() + first_row * static_cast<int64_t>(width);
  return {reinterpret_cast<uint8_t*>(data),
          rows,
          width,
          1,
          static_cast<ptrdiff_t>(width) * static_cast<ptrdiff_t>(sizeof(T)),
          std::is_same_v<T, float> ? DType::kF32 : DType::kU8};
}

// The outputs of the text kernel families (PSENet, PANet): {"gt_kernels": (K, H, W), "gt_mask":
// (H, W)}, float32 arrays (the kernels by numpy_zeros, the mask, written whole, uninitialized)
// and the planes over them. Made with the GIL held;
// planes() may be drawn on without it. Not copyable (the planes point into kernel_views_).
class TextKernelArrays {
 public:
  TextKernelArrays(int num_kernels, int height, int width)
      : kernels_(numpy_zeros<float>({num_kernels, height, width})),
        mask_(numpy_uninitialized<float>({height, width})) {
    for (int k = 0; k < num_kernels; ++k)
      kernel_views_.push_back(numpy_rows(kernels_, int64_t{k} * height, height, width));
    mask_view_ = numpy_rows(mask_, 0, height, width);
  }
  TextKernelArrays(const TextKernelArrays&) = delete;
  TextKernelArrays& operator=(const TextKernelArrays&) = delete;

  augment::TextKernelPlanes planes() const { return {kernel_views_, mask_view_, true}; }
  pybind11::dict dict() const {
    pybind11::dict d;
    d["gt_kernels"] = kernels_;
    d["gt_mask"] = mask_;
    return d;
  }

 private:
  pybind11::array_t<float> kernels_, mask_;
  std::vector<MutableImageView> kernel_views_;
  MutableImageView mask_view_;
};

// Defines m.<name>(polys_xy, npts, ignored, img_hw) -> dict for targets drawn straight into numpy
// arrays made in advance. The words are read by mmocr_words_from_numpy (its errors name `name`);
// then, with the GIL held, check(words) (a Status: the refusals before any drawing, raised as
// textfeed.errors' exceptions before anything is allocated) and make(words) (a std::unique_ptr to
// the outputs: arrays made in advance and views over them); then draw(words, outputs,
// scratch) (a Status; views only, no Python) with the GIL released; then outputs->dict() with the
// GIL held. The Scratch is one per Python thread, reused from call to call (it holds buffers
// only, never results). `name` and `doc` are literals.
template <class Scratch, class Check, class Make, class Draw>
void def_mmocr_drawn_targets(pybind11::module_& m, const char* name, Check check, Make make,
                             Draw draw, const char* doc) {
  m.def(
      name,
      [name, check, make, draw](const CArray<float>& polys_xy, const IArray& npts,
                                const BArray& ignored,
                                std::pair<int64_t, int64_t> img_hw) -> pybind11::dict {
        MmocrWords in;
        mmocr_words_from_numpy(in, polys_xy, npts, ignored, img_hw, name);
        if (Status s = check(in.words); !s.ok()) throw_status(s);
        auto outputs = make(in.words);
        Status drawn;
        {
          pybind11::gil_scoped_release release;
          thread_local Scratch scratch;
          drawn = draw(in.words, *outputs, scratch);
        }
        if (!drawn.ok()) throw_status(drawn);
        return outputs->dict();
      },
      pybind11::arg("polys_xy"), pybind11::arg("npts"), pybind11::arg("ignored"),
      pybind11::arg("img_hw"), doc);
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
