// PSENet's binding of textfeed.reference: mmocr_pse_targets, the targets of given polygons
// (augment/psenet/targets.h) under the golden files' field names, drawn straight into new numpy
// arrays.
#include "augment/psenet/python_reference.h"

#include <memory>

#include "augment/mmocr_python.h"
#include "augment/psenet/targets.h"

namespace py = pybind11;

namespace textfeed::python {

void register_pse_reference(py::module_& m) {
  // {"gt_kernels": (7, H, W), "gt_mask": (H, W)}, float32.
  def_mmocr_drawn_targets<augment::TextKernelScratch>(
      m, "mmocr_pse_targets", &augment::check_pse_words,
      [](const augment::TextKernelWords& w) {
        return std::make_unique<TextKernelArrays>(
            static_cast<int>(augment::kPseShrinkRatios.size()), w.height, w.width);
      },
      [](const augment::TextKernelWords& w, const TextKernelArrays& out,
         augment::TextKernelScratch& scratch) {
        return augment::draw_pse_targets(w, out.planes(), scratch);
      },
      "mmocr 1.x PSEModuleLoss targets of polygons polys_xy (points, 2) float32 with npts (N,) "
      "int32 points each and ignored (N,) bool, on an (H, W) canvas: float32 'gt_kernels' "
      "(7, H, W), 1 + the index of the last word covering a pixel, and 'gt_mask' (H, W).");
}

}  // namespace textfeed::python
