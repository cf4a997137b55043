// The Python side of the detector families: each family folder's replay bindings of
// textfeed.reference (its steps one at a time), registered from one list. Compiled into the Python
// module only (client/python/CMakeLists.txt): the augment library itself needs no pybind11.
#pragma once

#include <pybind11/pybind11.h>

namespace textfeed::python {

// Defines every family's replay functions on `m` (textfeed._core), in registration order.
void register_family_replays(pybind11::module_& m);

}  // namespace textfeed::python
