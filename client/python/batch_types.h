// The batch types textfeed._core's Feed.next() and Feed.layout() return (register_batch.cc binds
// them; register_loader.cc makes them).
#pragma once

#include <pybind11/pybind11.h>

#include <string_view>

#include "base/batch_info.h"

namespace textfeed::python {

// One delivered batch, as Feed.next() returns it: the lease over its slot and its metadata.
struct DeliveredBatch {
  pybind11::object lease;  // a SlotLease: the slot goes back when the last reference to it does
  BatchInfo info;          // base/batch_info.h; `compact` is empty (a feed expands compact rows)
};

// Text from a feed (sample errors name files, whose names may be any bytes; a daemon's strings)
// as a Python str: never a UnicodeDecodeError.
pybind11::str text(std::string_view s);

// Binds DeliveredBatch, SampleMeta, SampleError and TensorDesc, each read-only, by name.
void register_batch_types(pybind11::module_& m);

}  // namespace textfeed::python
