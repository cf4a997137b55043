// The batch types Feed.next() and Feed.layout() return, bound by name and read-only
// (batch_types.h).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <string>
#include <utility>

#include "base/printable.h"
#include "client/python/batch_types.h"
#include "client/python/register.h"

namespace py = pybind11;

namespace textfeed::python {

py::str text(std::string_view s) { return py::str(valid_utf8(s)); }

namespace {

// Word k's points of `meta` as a float32 (n, 2) array each, in order.
py::list polygons_of(const SampleMeta& meta) {
  py::list polygons;
  size_t at = 0;
  for (uint32_t n : meta.points) {
    py::array_t<float> poly({static_cast<py::ssize_t>(n), py::ssize_t{2}});
    std::copy_n(meta.xy.data() + at, size_t{n} * 2, poly.mutable_data());
    at += size_t{n} * 2;
    polygons.append(std::move(poly));
  }
  return polygons;
}

py::array_t<bool> ignore_of(const SampleMeta& meta) {
  py::array_t<bool> ignore(static_cast<py::ssize_t>(meta.ignore.size()));
  for (size_t i = 0; i < meta.ignore.size(); ++i) ignore.mutable_data()[i] = meta.ignore[i] != 0;
  return ignore;
}

// The invalid_polygon policy's counts by name, as Batch.invalid_polygons gives them.
py::dict polygon_counts(const PolygonCounts& p) {
  py::dict counts;
  for (const auto& [name, n] : {std::pair{"non_finite", p.non_finite},
                                {"degenerate", p.degenerate},
                                {"out_of_image", p.out_of_image},
                                {"self_intersecting", p.self_intersecting},
                                {"repaired", p.repaired},
                                {"ignored", p.ignored}})
    counts[name] = n;
  return counts;
}

}  // namespace

// What Feed.next() and Feed.layout() return, by name: the batch and its metadata (base/
// batch_info.h, base/tensor.h), each bound once and read-only.
void register_batch_types(py::module_& m) {
  py::class_<SampleError>(m, "SampleError",
                          "A sample of a batch that could not be used (base/tensor.h SampleError).")
      .def_readonly("index", &SampleError::index, "the dataset index of the bad sample")
      .def_readonly("replaced_by", &SampleError::replaced_by,
                    "the index written in its place (== index: none, eval's report)")
      .def_property_readonly(
          "code", [](const SampleError& e) { return std::string(code_name(e.code)); },
          "its Status code's name")
      .def_property_readonly(
          "message", [](const SampleError& e) { return text(e.message); },
          "the file and the reason");
  py::class_<SampleMeta>(m, "SampleMeta",
                         "One row's image id, size, scales and words (eval, return_polygons).")
      .def_property_readonly(
          "image_id", [](const SampleMeta& s) { return text(s.image_id); },
          "the image's path below the dataset root")
      .def_property_readonly(
          "original_size", [](const SampleMeta& s) { return py::make_tuple(s.height, s.width); },
          "(h, w) of the original image, px (training: of the crop)")
      .def_property_readonly(
          "scale", [](const SampleMeta& s) { return py::make_tuple(s.scale_x, s.scale_y); },
          "(sx, sy): canvas px per original px (training: 1)")
      .def_property_readonly("polygons", &polygons_of,
                             "per word a float32 (n_points, 2) array of x y")
      .def_property_readonly("ignore", &ignore_of, "per word: True = ignored");
  py::class_<TensorDesc>(m, "TensorDesc", "One tensor of a batch slot (base/tensor.h TensorDesc).")
      .def_property_readonly("name", [](const TensorDesc& t) { return text(t.name); })
      .def_readonly("dtype", &TensorDesc::dtype)
      .def_readonly("shape", &TensorDesc::shape, "[rows, channels, height, width]")
      .def_readonly("offset_bytes", &TensorDesc::offset_bytes, "from the start of the slot")
      .def_readonly("size_bytes", &TensorDesc::size_bytes, "the whole tensor")
      .def_readonly("sample_bytes", &TensorDesc::sample_bytes, "one row");
  py::class_<DeliveredBatch>(m, "DeliveredBatch", "One batch from Feed.next(): slot and metadata.")
      .def_readonly("lease", &DeliveredBatch::lease, "the SlotLease its tensors are made over")
      .def_property_readonly("epoch", [](const DeliveredBatch& b) { return b.info.epoch; })
      .def_property_readonly(
          "batch", [](const DeliveredBatch& b) { return b.info.batch; },
          "its index within the epoch for this rank")
      .def_property_readonly(
          "indices", [](const DeliveredBatch& b) { return b.info.indices; },
          "the dataset index written into each row")
      .def_property_readonly("errors", [](const DeliveredBatch& b) { return b.info.errors; })
      .def_property_readonly(
          "samples",
          [](const DeliveredBatch& b) {
            return b.info.samples.empty() ? py::object(py::none()) : py::cast(b.info.samples);
          },
          "one SampleMeta per row in eval or with return_polygons, else None")
      .def_property_readonly(
          "invalid_polygons",
          [](const DeliveredBatch& b) { return polygon_counts(b.info.polygons); },
          "the invalid_polygon policy's counts, by defect and by what it did");
}

}  // namespace textfeed::python
