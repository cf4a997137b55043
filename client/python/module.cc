// textfeed._core: the C++ side of the Python package; one register_*() per topic.
#include <pybind11/pybind11.h>

#include "base/version.h"
#include "client/python/register.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "textfeed C++ core (decode, augmentation, EAST targets, the feeds behind Loader)";
  m.attr("__version__") = textfeed::kVersion;
  // No process-wide setting here: importing textfeed changes none. The first feed a Loader opens
  // makes the process's thread settings (register_loader.cc process_thread_settings()).
  textfeed::python::register_errors(m);
  textfeed::python::register_family_replays(m);
  textfeed::python::register_geometry(m);
  textfeed::python::register_spec(m);
  textfeed::python::register_loader(m);
  textfeed::python::register_log(m);
}
