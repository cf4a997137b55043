// textfeed._core: the C++ side of the Python package; one register_*() per topic.
#include <pybind11/pybind11.h>

#include "base/version.h"
#include "client/python/register.h"
#include "loader/worker_pool.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "textfeed C++ core (decode, augmentation, EAST targets, the feeds behind Loader)";
  m.attr("__version__") = textfeed::kVersion;
  // The process's thread settings, made here once (the Python process's composition root) and
  // kept until it exits: no Loader changes a global.
  static const textfeed::loader::ProcessThreadSettings thread_settings;
  textfeed::python::register_errors(m);
  textfeed::python::register_targets(m);
  textfeed::python::register_geometry(m);
  textfeed::python::register_db(m);
  textfeed::python::register_spec(m);
  textfeed::python::register_loader(m);
  textfeed::python::register_log(m);
}
