// Placeholder; bindings come with the augment work.
#include "client/python/register.h"

namespace textfeed::python {
void register_geometry(pybind11::module_& m) { (void)m; }
}  // namespace textfeed::python
