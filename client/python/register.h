// The register_*() functions that module.cc calls, one per binding file.
#pragma once

#include <pybind11/pybind11.h>

#include "base/status.h"

namespace textfeed::python {

void register_errors(pybind11::module_& m);

// Raises the Python exception class mapped from status.code() (textfeed.errors.*).
[[noreturn]] void throw_status(const Status& status);

}  // namespace textfeed::python
