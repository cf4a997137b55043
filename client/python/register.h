// The register_*() functions that module.cc calls, one per binding file.
#pragma once

#include <pybind11/pybind11.h>

#include "augment/family_python.h"
#include "base/status.h"

namespace textfeed::python {

void register_errors(pybind11::module_& m);
// warp_crop, photometric, color_jitter: the replay steps every family shares. Each family's own
// are its folder's (augment/family_python.h register_family_replays).
void register_geometry(pybind11::module_& m);
void register_spec(pybind11::module_& m);    // PipelineSpec, its enums and options, the bounds
void register_loader(pybind11::module_& m);  // Feed, SlotLease: what textfeed.Loader drives
void register_log(pybind11::module_& m);     // the C++ log lines, queued for Python's logging

// Raises the Python exception class mapped from status.code() (textfeed.errors.*).
[[noreturn]] void throw_status(const Status& status);

}  // namespace textfeed::python
