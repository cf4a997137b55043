// mmocr's DBNet binding of textfeed.reference: mmocr_db_mmocr_targets, the targets of given
// polygons (augment/db/mmocr_targets.h) under the golden files' field names.
#include "augment/db/mmocr_python_reference.h"

#include "augment/db/mmocr_targets.h"
#include "augment/mmocr_python.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

// {"gt_shrink", "gt_shrink_mask", "gt_thr", "gt_thr_mask"}: (1, H, W) float32; "ignored_out":
// (N,) bool.
py::dict db_mmocr_dict(const augment::DbMmocrTargets& t) {
  py::dict d;
  d["gt_shrink"] = numpy_chw<float>(t.shrink, 1, t.height, t.width);
  d["gt_shrink_mask"] = numpy_chw<float>(t.shrink_mask, 1, t.height, t.width);
  d["gt_thr"] = numpy_chw<float>(t.thr, 1, t.height, t.width);
  d["gt_thr_mask"] = numpy_chw<float>(t.thr_mask, 1, t.height, t.width);
  d["ignored_out"] = numpy_vector<bool>(t.ignored);
  return d;
}

}  // namespace

void register_db_mmocr_reference(py::module_& m) {
  def_mmocr_targets(
      m, "mmocr_db_mmocr_targets", &augment::make_db_mmocr_targets, &db_mmocr_dict,
      "mmocr 1.x DBModuleLoss targets of polygons (as mmocr_pse_targets): float32 'gt_shrink', "
      "'gt_shrink_mask', 'gt_thr', 'gt_thr_mask' (1, H, W) and bool 'ignored_out' (N,), the "
      "ignore flags after the function. Raises InvalidArgumentError where mmocr raises (a "
      "threshold box starting at the canvas' right or bottom edge).");
}

}  // namespace textfeed::python
