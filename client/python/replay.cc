// What the replay bindings share (client/python/replay.h).
#include "client/python/replay.h"

#include "client/python/register.h"

namespace py = pybind11;

namespace textfeed::python {

MutableImageView f32_view(py::array_t<float>& a, int h, int w) {
  return MutableImageView{reinterpret_cast<uint8_t*>(a.mutable_data()), h,          w, 1,
                          static_cast<ptrdiff_t>(w * sizeof(float)),    DType::kF32};
}

augment::Profile profile_or_raise(const std::string& name) {
  auto p = augment::parse_profile(name);
  if (!p.has_value()) throw_status(p.error());
  return *p;
}

augment::AugmentOptions options_for(const std::string& profile, std::optional<int> crop_size,
                                    std::optional<int> image_size) {
  augment::AugmentOptions o = augment::profile_defaults(profile_or_raise(profile));
  if (crop_size) o.crop_size = *crop_size;
  if (image_size) o.image_size = *image_size;
  if (Status s = augment::validate(o); !s.ok()) throw_status(s);
  return o;
}

py::dict color_dict(const ColorParams& c) {
  static const char* names[] = {"brightness", "contrast", "saturation", "hue"};
  py::list order;
  for (auto op : c.order) order.append(names[static_cast<int>(op)]);
  return py::dict(py::arg("applied") = c.applied, py::arg("brightness") = c.brightness,
                  py::arg("contrast") = c.contrast, py::arg("saturation") = c.saturation,
                  py::arg("hue") = c.hue, py::arg("order") = order);
}

}  // namespace textfeed::python
