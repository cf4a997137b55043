// Maps Status codes to the exception classes of textfeed.errors.
#include <pybind11/pybind11.h>

#include "client/python/register.h"

namespace py = pybind11;

namespace textfeed::python {

void throw_status(const Status& status) {
  py::module_ errors = py::module_::import("textfeed.errors");
  py::object cls = errors.attr("error_for_code")(std::string(code_name(status.code())));
  PyErr_SetString(cls.ptr(), status.message().c_str());
  throw py::error_already_set();
}

void register_errors(py::module_& m) {
  (void)m;  // the classes live in textfeed/errors.py; nothing to bind yet
}

}  // namespace textfeed::python
