// TextSnake's binding of textfeed.reference (compiled into the Python module only).
#pragma once

#include <pybind11/pybind11.h>

namespace textfeed::python {

// _core.mmocr_textsnake_targets (augment/textsnake/targets.h); textfeed.reference.mmocr_targets
// wraps it for family "textsnake".
void register_textsnake_reference(pybind11::module_& m);

}  // namespace textfeed::python
