// The EAST family's replay bindings of textfeed.reference (compiled into the Python module only;
// augment/family_python.cc registers them).
#pragma once

#include <pybind11/pybind11.h>

namespace textfeed::python {

// replay_geometry, sample_params (the geometry plan of augment/east/plan.h), east_targets,
// shrink_poly and find_min_rect_angle (augment/east/targets.h, shrink.h).
void register_east_replay(pybind11::module_& m);

}  // namespace textfeed::python
