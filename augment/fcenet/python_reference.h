// FCENet's binding of textfeed.reference (compiled into the Python module only).
#pragma once

#include <pybind11/pybind11.h>

namespace textfeed::python {

// _core.mmocr_fce_targets (augment/fcenet/targets.h); textfeed.reference.mmocr_targets wraps it
// for family "fce".
void register_fce_reference(pybind11::module_& m);

}  // namespace textfeed::python
