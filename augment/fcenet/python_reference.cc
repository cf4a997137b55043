// FCENet's binding of textfeed.reference: mmocr_fce_targets, the targets of given polygons
// (augment/fcenet/targets.h) under the golden files' field names, debug fields included; the maps
// are drawn straight into new numpy arrays.
#include "augment/fcenet/python_reference.h"

#include <array>
#include <complex>
#include <memory>
#include <string>
#include <vector>

#include "augment/fcenet/targets.h"
#include "augment/mmocr_python.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

// The lvlL_* fields of one level: text_index, ignore_index (n,) int32; coeff (n, 11, 2) float64;
// resampled_n, start_index (n,) int32; start_tie (n,) bool; cw_margin (n,) float64.
void add_level_debug(py::dict& d, const augment::FceLevelInfo& t, size_t level) {
  const std::string pre = "lvl" + std::to_string(level) + "_";
  const auto n = static_cast<py::ssize_t>(t.fits.size());
  std::vector<double> coeff, margin;
  std::vector<int32_t> resampled, start;
  std::vector<bool> tie;
  for (const augment::FceFourierFit& f : t.fits) {
    for (const std::complex<double>& c : f.coeff)
      coeff.push_back(c.real()), coeff.push_back(c.imag());
    resampled.push_back(f.resampled_n);
    start.push_back(f.start_index);
    tie.push_back(f.start_tie);
    margin.push_back(f.cw_margin);
  }
  d[(pre + "text_index").c_str()] = numpy_copy<int32_t>(t.text_index, {n});
  d[(pre + "ignore_index").c_str()] = numpy_vector<int32_t>(t.ignore_index);
  d[(pre + "coeff").c_str()] = numpy_copy<double>(coeff, {n, augment::kFceCoefficients, 2});
  d[(pre + "resampled_n").c_str()] = numpy_vector<int32_t>(resampled);
  d[(pre + "start_index").c_str()] = numpy_vector<int32_t>(start);
  d[(pre + "start_tie").c_str()] = numpy_vector<bool>(tie);
  d[(pre + "cw_margin").c_str()] = numpy_vector<double>(margin);
}

// {"p3_map", "p4_map", "p5_map"}: (1, 25, H // d, W // d) float32 for d = 8, 16, 32, made by
// numpy_zeros with the GIL held and drawn on without it, and the lvlL_* debug fields (L = 0, 1,
// 2) of what the drawing reports in `levels`.
class FceArrays {
 public:
  FceArrays(int height, int width) {
    for (size_t l = 0; l < maps_.size(); ++l) {
      const int stride = augment::kFceLevelStrides[l];
      const int h = height / stride, w = width / stride;
      maps_[l] = numpy_zeros<float>({1, augment::kFceLevelChannels, h, w});
      planes_.maps[l] = numpy_rows(maps_[l], 0, augment::kFceLevelChannels * h, w);
    }
    planes_.zeroed = true;
  }

  const augment::FcePlanes& planes() const { return planes_; }
  // What the drawing reports for each level (filled without the GIL).
  std::array<augment::FceLevelInfo, augment::kFceLevels>& levels() { return levels_; }

  py::dict dict() const {
    py::dict d;
    for (size_t l = 0; l < maps_.size(); ++l) {
      d[("p" + std::to_string(l + 3) + "_map").c_str()] = maps_[l];
      add_level_debug(d, levels_[l], l);
    }
    return d;
  }

 private:
  std::array<py::array_t<float>, augment::kFceLevels> maps_;
  augment::FcePlanes planes_;
  std::array<augment::FceLevelInfo, augment::kFceLevels> levels_;
};

}  // namespace

void register_fce_reference(py::module_& m) {
  def_mmocr_drawn_targets<augment::FceScratch>(
      m, "mmocr_fce_targets", &augment::check_fce_words,
      [](const augment::TextKernelWords& w) {
        return std::make_unique<FceArrays>(w.height, w.width);
      },
      [](const augment::TextKernelWords& w, FceArrays& out, augment::FceScratch& scratch) {
        return augment::draw_fce_targets(w, out.planes(), out.levels(), scratch);
      },
      "mmocr 1.x FCEModuleLoss targets (fourier_degree 5) of polygons polys_xy (points, 2) "
      "float32 with npts (N,) int32 points each and ignored (N,) bool, on an (H, W) canvas: a "
      "dict of the golden files' fields (p3_map, p4_map, p5_map and the lvlL_* debug fields).");
}

}  // namespace textfeed::python
