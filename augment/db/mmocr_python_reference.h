// mmocr's DBNet Python reference binding (textfeed.reference.mmocr_targets("db_mmocr", ...)).
// Compiled into the Python module only (client/python/CMakeLists.txt).
#pragma once

#include <pybind11/pybind11.h>

namespace textfeed::python {

// Defines _core.mmocr_db_mmocr_targets(polys_xy, npts, ignored, img_hw) on `m`
// (augment/db/mmocr_targets.h).
void register_db_mmocr_reference(pybind11::module_& m);

}  // namespace textfeed::python
