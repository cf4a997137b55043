// What the replay bindings of textfeed.reference share, whatever the family: the numpy array types
// they take, float32 views over new arrays, a profile's options, and the colour draw as a dict.
// Each family's bindings (augment/<family>/python_replay.cc) and the family-free ones
// (register_geometry.cc) include it; all of them are compiled into the Python module only.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>

#include "augment/profile.h"
#include "base/compact_row.h"
#include "base/image.h"

namespace textfeed::python {

// C-contiguous arrays, converted from whatever the caller passes (numpy's forcecast).
template <class T>
using CArray = pybind11::array_t<T, pybind11::array::c_style | pybind11::array::forcecast>;
using DArray = CArray<double>;
using LArray = CArray<int64_t>;
using IArray = CArray<int32_t>;
using U32Array = CArray<uint32_t>;
using U8Array = CArray<uint8_t>;
using BArray = CArray<bool>;

// A one-channel float32 view of `a`, an (h, w) or (k, h / k, w) array the caller made.
MutableImageView f32_view(pybind11::array_t<float>& a, int h, int w);

// The profile named `name`; raises textfeed.errors' InvalidArgumentError for an unknown one.
augment::Profile profile_or_raise(const std::string& name);

// The profile's defaults with crop_size and image_size replaced where given, validated (raises
// what validate() refuses).
augment::AugmentOptions options_for(const std::string& profile, std::optional<int> crop_size,
                                    std::optional<int> image_size);

// {"applied", "brightness", "contrast", "saturation", "hue", "order"} of a colour draw.
pybind11::dict color_dict(const ColorParams& color);

}  // namespace textfeed::python
