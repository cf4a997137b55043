// PANet's binding of textfeed.reference: mmocr_pan_targets, the targets of given polygons
// (augment/panet/targets.h) under the golden files' field names, drawn straight into new numpy
// arrays.
#include "augment/panet/python_reference.h"

#include <memory>

#include "augment/mmocr_python.h"
#include "augment/panet/targets.h"

namespace py = pybind11;

namespace textfeed::python {

void register_pan_reference(py::module_& m) {
  // {"gt_kernels": (2, H, W), "gt_mask": (H, W)}, float32.
  def_mmocr_drawn_targets<augment::TextKernelScratch>(
      m, "mmocr_pan_targets", &augment::check_pan_words,
      [](const augment::TextKernelWords& w) {
        return std::make_unique<TextKernelArrays>(
            static_cast<int>(augment::kPanShrinkRatios.size()), w.height, w.width);
      },
      [](const augment::TextKernelWords& w, const TextKernelArrays& out,
         augment::TextKernelScratch& scratch) {
        return augment::draw_pan_targets(w, out.planes(), scratch);
      },
      "mmocr 1.x PANModuleLoss targets of polygons (as mmocr_pse_targets): float32 "
      "'gt_kernels' (2, H, W), the text and kernel instance maps (id = 1 + word index, 0 "
      "background), and 'gt_mask' (H, W).");
}

}  // namespace textfeed::python
