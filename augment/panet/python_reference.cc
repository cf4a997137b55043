// PANet's binding of textfeed.reference: mmocr_pan_targets, the targets of given polygons
// (augment/panet/targets.h) under the golden files' field names.
#include "augment/panet/python_reference.h"

#include "augment/mmocr_python.h"
#include "augment/panet/targets.h"

namespace py = pybind11;

namespace textfeed::python {

void register_pan_reference(py::module_& m) {
  // {"gt_kernels": (2, H, W), "gt_mask": (H, W)}, float32.
  def_mmocr_targets(
      m, "mmocr_pan_targets", &augment::make_pan_targets,
      [](const augment::PanTargets& t) { return text_kernels_dict(t.kernels); },
      "mmocr 1.x PANModuleLoss targets of polygons (as mmocr_pse_targets): float32 "
      "'gt_kernels' (2, H, W), the text and kernel instance maps (id = 1 + word index, 0 "
      "background), and 'gt_mask' (H, W).");
}

}  // namespace textfeed::python
