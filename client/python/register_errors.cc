// Maps Status codes to the exception classes of textfeed.errors.
#include <pybind11/pybind11.h>

#include "base/printable.h"
#include "client/python/register.h"

namespace py = pybind11;

namespace textfeed::python {

void throw_status(const Status& status) {
  py::module_ errors = py::module_::import("textfeed.errors");
  py::object cls = errors.attr("error_for_code")(std::string(code_name(status.code())));
  // Messages name files, whose names may be any bytes: valid UTF-8 always (PyErr_SetString would
  // raise UnicodeDecodeError instead of the error), and whole (no cut at a NUL byte).
  PyErr_SetObject(cls.ptr(), py::str(valid_utf8(status.message())).ptr());
  throw py::error_already_set();
}

void register_errors(py::module_& m) {
  (void)m;  // the classes live in textfeed/errors.py; nothing to bind yet
}

}  // namespace textfeed::python
