// The chain replay binding of textfeed.reference (replay_mmocr_chain). Compiled into the Python
// module only (client/python/CMakeLists.txt).
#pragma once

#include <pybind11/pybind11.h>

namespace textfeed::python {

// Defines _core.replay_mmocr_chain(chain, image_hw, polys_xy, npts, ignored, seed) on `m`
// (augment/mmocr/chains.h).
void register_mmocr_chain_replay(pybind11::module_& m);

}  // namespace textfeed::python
