// The DB family's replay bindings of textfeed.reference (compiled into the Python module only;
// augment/family_python.cc registers them).
#pragma once

#include <pybind11/pybind11.h>

namespace textfeed::python {

// replay_db_crop, db_map_keypoints, db_sample_params (augment/db/crop.h, geometry.h) and
// db_targets_flat (augment/db/targets.h; textfeed.reference.db_targets wraps it).
void register_db_replay(pybind11::module_& m);

}  // namespace textfeed::python
