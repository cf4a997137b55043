// TextSnake's binding of textfeed.reference: mmocr_textsnake_targets, the targets of given
// polygons (augment/textsnake/targets.h) under the golden files' field names.
#include "augment/textsnake/python_reference.h"

#include "augment/mmocr_python.h"
#include "augment/textsnake/targets.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

// {"gt_text_mask", "gt_mask", "gt_center_region_mask"}: (H, W) uint8; {"gt_radius_map",
// "gt_sin_map", "gt_cos_map"}: (H, W) float32.
py::dict textsnake_dict(const augment::TextSnakeTargets& t) {
  py::dict d;
  d["gt_text_mask"] = numpy_hw<uint8_t>(t.text_mask, t.height, t.width);
  d["gt_mask"] = numpy_hw<uint8_t>(t.mask, t.height, t.width);
  d["gt_center_region_mask"] = numpy_hw<uint8_t>(t.center_region_mask, t.height, t.width);
  d["gt_radius_map"] = numpy_hw<float>(t.radius_map, t.height, t.width);
  d["gt_sin_map"] = numpy_hw<float>(t.sin_map, t.height, t.width);
  d["gt_cos_map"] = numpy_hw<float>(t.cos_map, t.height, t.width);
  return d;
}

}  // namespace

void register_textsnake_reference(py::module_& m) {
  def_mmocr_targets(
      m, "mmocr_textsnake_targets", &augment::make_textsnake_targets, &textsnake_dict,
      "mmocr 1.x TextSnakeModuleLoss targets of polygons polys_xy (points, 2) float32 with "
      "npts (N,) int32 points each and ignored (N,) bool, on an (H, W) canvas: a dict of the "
      "golden files' fields. Raises InvalidArgumentError where mmocr raises (a word with fewer "
      "than 4 distinct vertices).");
}

}  // namespace textfeed::python
