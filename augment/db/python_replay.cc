// Python bindings of the DB family's steps one at a time (textfeed.reference): the crop replay
// under numpy's legacy stream, imgaug's keypoint mapping of known draws, the pipeline plan of one
// sample (augment/db/crop.h, augment/db/geometry.h), and the DB targets of given polygons
// (augment/db/targets.h). Polygons arrive flat (xy float64, ends int32 or uint32);
// textfeed.reference checks and flattens the caller's arrays first (_checked.py, _db.py).
#include "augment/db/python_replay.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "augment/db/crop.h"
#include "augment/db/geometry.h"
#include "augment/db/targets.h"
#include "client/python/register.h"
#include "client/python/replay.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

augment::DbPolygons view_of(const DArray& xy, const IArray& ends) {
  return {std::span<const double>(xy.data(), static_cast<size_t>(xy.size())),
          std::span<const int32_t>(ends.data(), static_cast<size_t>(ends.size()))};
}

std::vector<unsigned char> tags_of(const U8Array& tags) {
  return std::vector<unsigned char>(tags.data(), tags.data() + tags.size());
}

// {"crop_xywh", "scale", "xy", "ends", "ignore_tags", "kept", "fallback", "tries", "out_wh"}.
py::dict crop_dict(const augment::DbCrop& c) {
  py::dict d;
  d["crop_xywh"] = py::make_tuple(c.crop.x, c.crop.y, c.crop.w, c.crop.h);
  d["scale"] = c.scale;
  d["out_wh"] = py::make_tuple(c.out_w, c.out_h);
  d["fallback"] = c.fallback;
  d["tries"] = c.tries;
  py::array_t<double> xy(static_cast<py::ssize_t>(c.xy.size()));
  std::copy(c.xy.begin(), c.xy.end(), xy.mutable_data());
  d["xy"] = xy;
  py::array_t<int32_t> ends(static_cast<py::ssize_t>(c.ends.size()));
  std::copy(c.ends.begin(), c.ends.end(), ends.mutable_data());
  d["ends"] = ends;
  py::array_t<bool> tags(static_cast<py::ssize_t>(c.ignore.size()));
  for (size_t i = 0; i < c.ignore.size(); ++i) tags.mutable_data()[i] = c.ignore[i] != 0;
  d["ignore_tags"] = tags;
  py::array_t<bool> kept(static_cast<py::ssize_t>(c.kept.size()));
  for (size_t i = 0; i < c.kept.size(); ++i) kept.mutable_data()[i] = c.kept[i] != 0;
  d["kept"] = kept;
  return d;
}

// The canvas of `plan` made from `image` (render_db_canvas): size x size x 3 uint8.
py::array_t<uint8_t> render(const U8Array& image, const augment::DbGeometryPlan& plan, int size) {
  const int h = static_cast<int>(image.shape(0)), w = static_cast<int>(image.shape(1));
  py::array_t<uint8_t> out({size, size, 3});
  const ImageView src{image.data(), h, w, 3, static_cast<ptrdiff_t>(w) * 3, DType::kU8};
  const MutableImageView dst{out.mutable_data(), size, size, 3, static_cast<ptrdiff_t>(size) * 3,
                             DType::kU8};
  Status s;
  {
    py::gil_scoped_release release;
    s = augment::render_db_canvas(dst, src, plan);
  }
  if (!s.ok()) throw_status(s);
  return out;
}

// The reference's pixels of a bare crop: the crop box of `image` resized (INTER_LINEAR) into the
// top-left of a zero size x size canvas, as a plan without flip, rotation or resize renders it.
py::array_t<uint8_t> crop_canvas(const U8Array& image, const augment::DbCrop& c, int size) {
  augment::DbGeometryPlan plan;
  plan.src_w = plan.resized_w = static_cast<int>(image.shape(1));
  plan.src_h = plan.resized_h = static_cast<int>(image.shape(0));
  plan.crop = c;
  return render(image, plan, size);
}

py::dict replay_db_crop(int image_h, int image_w, const DArray& xy, const IArray& ends,
                        const U8Array& tags, uint32_t seed, int size, int max_tries,
                        double min_crop_side_ratio, std::optional<U8Array> image) {
  if (image && (image->ndim() != 3 || image->shape(2) != 3 || image->shape(0) != image_h ||
                image->shape(1) != image_w))
    throw_status(Status::invalid_argument("replay_db_crop: image must be (" +
                                          std::to_string(image_h) + ", " + std::to_string(image_w) +
                                          ", 3) uint8, as image_hw says"));
  const augment::DbCropOptions o{size, max_tries, min_crop_side_ratio};
  const std::vector<unsigned char> ignore = tags_of(tags);
  Rng rng = Rng::numpy_legacy(seed);
  augment::DbCrop c;
  Status s;
  {
    py::gil_scoped_release release;
    s = augment::db_crop(c, image_w, image_h, view_of(xy, ends), ignore, o, rng,
                         augment::CropDraws::kNumpyLegacy);
  }
  if (!s.ok()) throw_status(s);
  py::dict d = crop_dict(c);
  if (image) d["image"] = crop_canvas(*image, c, size);
  return d;
}

// imgaug's keypoint mapping of known draws: (xy mapped, (new_w, new_h)).
py::tuple db_map_keypoints(const DArray& xy, int image_w, int image_h, bool flip, double angle_deg,
                           double resize) {
  if (image_w < 1 || image_h < 1 || !(resize > 0 && resize <= 16) || !(std::abs(angle_deg) <= 360))
    throw_status(Status::invalid_argument(
        "db_map_keypoints: image size >= 1, resize in (0, 16], |angle| <= 360"));
  py::array_t<double> out(xy.size());
  std::copy(xy.data(), xy.data() + xy.size(), out.mutable_data());
  int w = 0, h = 0;
  augment::map_db_keypoints(std::span<double>(out.mutable_data(), static_cast<size_t>(out.size())),
                            image_w, image_h, augment::DbDraws{flip, angle_deg, resize}, w, h);
  return py::make_tuple(out, py::make_tuple(w, h));
}

// One sample's plan as the pipeline draws it from Rng(seed, epoch, index).
py::dict db_sample_params(int image_w, int image_h, const DArray& xy, const IArray& ends,
                          const U8Array& tags, uint64_t seed, uint64_t epoch, uint64_t index,
                          int size, std::optional<U8Array> image) {
  if (image && (image->ndim() != 3 || image->shape(2) != 3 || image->shape(0) != image_h ||
                image->shape(1) != image_w))
    throw_status(Status::invalid_argument("db_sample_params: image must be (" +
                                          std::to_string(image_h) + ", " + std::to_string(image_w) +
                                          ", 3) uint8"));
  augment::DbGeometryOptions o;
  o.crop.size = size;
  const std::vector<unsigned char> ignore = tags_of(tags);
  Rng rng(seed, epoch, index);
  augment::DbGeometryPlan p;
  Status s;
  {
    py::gil_scoped_release release;
    s = augment::plan_db_geometry(p, image_w, image_h, view_of(xy, ends), ignore, o, rng);
  }
  if (!s.ok()) throw_status(s);
  py::dict d = crop_dict(p.crop);
  d["flip"] = p.draws.flip;
  d["angle_deg"] = p.draws.angle_deg;
  d["resize"] = p.draws.resize;
  d["rotate_image"] = p.rotate_image;
  d["resized_wh"] = py::make_tuple(p.resized_w, p.resized_h);
  py::array_t<double> m({2, 3});
  std::copy(p.matrix, p.matrix + 6, m.mutable_data());
  d["matrix"] = m;
  if (image) d["image"] = render(*image, p, size);
  return d;
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

void bind_geometry(py::module_& m) {
  m.def("replay_db_crop", &replay_db_crop, py::arg("image_h"), py::arg("image_w"), py::arg("xy"),
        py::arg("ends"), py::arg("ignore_tags"), py::arg("seed"), py::arg("size"),
        py::arg("max_tries"), py::arg("min_crop_side_ratio"), py::arg("image") = py::none(),
        "EastRandomCropData after np.random.seed(seed) on flat polygons (xy, ends): crop box, "
        "scale, kept "
        "polygons in canvas px (flat), their tags, the kept mask; with `image`, the canvas.");
  m.def(
      "db_map_keypoints", &db_map_keypoints, py::arg("xy"), py::arg("image_w"), py::arg("image_h"),
      py::arg("flip"), py::arg("angle_deg"), py::arg("resize"),
      "imgaug 0.4.0's keypoint mapping of Fliplr, Affine(rotate) and Resize with known parameters: "
      "(mapped xy, (new_w, new_h)).");
  m.def("db_sample_params", &db_sample_params, py::arg("image_w"), py::arg("image_h"),
        py::arg("xy"), py::arg("ends"), py::arg("ignore_tags"), py::arg("seed"), py::arg("epoch"),
        py::arg("index"), py::arg("size") = 640, py::arg("image") = py::none(),
        "The DB geometry plan of one sample drawn from Rng(seed, epoch, index): draws, sizes, "
        "crop, kept "
        "polygons in canvas px and the source->canvas pixel matrix; with `image`, the canvas made "
        "from it.");
}

void bind_targets(py::module_& m) {
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
}

}  // namespace

void register_db_replay(py::module_& m) {
  bind_geometry(m);
  bind_targets(m);
}

}  // namespace textfeed::python
