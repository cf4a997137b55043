// PANet's Python reference binding (textfeed.reference.mmocr_targets("pan", ...)). Compiled into
// the Python module only (client/python/CMakeLists.txt).
#pragma once

#include <pybind11/pybind11.h>

namespace textfeed::python {

// Defines _core.mmocr_pan_targets(polys_xy, npts, ignored, img_hw) on `m`
// (augment/panet/targets.h).
void register_pan_reference(pybind11::module_& m);

}  // namespace textfeed::python
