// TextSnake's binding of textfeed.reference: mmocr_textsnake_targets, the targets of given
// polygons (augment/textsnake/targets.h) under the golden files' field names, drawn straight into
// new numpy arrays.
#include "augment/textsnake/python_reference.h"

#include <memory>

#include "augment/mmocr_python.h"
#include "augment/textsnake/targets.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

// {"gt_text_mask", "gt_mask", "gt_center_region_mask"}: (H, W) uint8; {"gt_radius_map",
// "gt_sin_map", "gt_cos_map"}: (H, W) float32; made with the GIL held (the mask, written whole,
// uninitialized; the others, drawn on a few percent of their pages, by numpy_lazy_zeros), their
// planes drawn on without it.
class TextSnakeArrays {
 public:
  TextSnakeArrays(int height, int width)
      : text_(numpy_lazy_zeros<uint8_t>({height, width})),
        mask_(numpy_uninitialized<uint8_t>({height, width})),
        center_(numpy_lazy_zeros<uint8_t>({height, width})),
        radius_(numpy_lazy_zeros<float>({height, width})),
        sin_(numpy_lazy_zeros<float>({height, width})),
        cos_(numpy_lazy_zeros<float>({height, width})),
        planes_{numpy_rows(text_, 0, height, width),
                numpy_rows(mask_, 0, height, width),
                numpy_rows(center_, 0, height, width),
                numpy_rows(radius_, 0, height, width),
                numpy_rows(sin_, 0, height, width),
                numpy_rows(cos_, 0, height, width),
                /*zeroed=*/true} {}

  const augment::TextSnakePlanes& planes() const { return planes_; }
  py::dict dict() const {
    py::dict d;
    d["gt_text_mask"] = text_;
    d["gt_mask"] = mask_;
    d["gt_center_region_mask"] = center_;
    d["gt_radius_map"] = radius_;
    d["gt_sin_map"] = sin_;
    d["gt_cos_map"] = cos_;
    return d;
  }

 private:
  py::array_t<uint8_t> text_, mask_, center_;
  py::array_t<float> radius_, sin_, cos_;
  augment::TextSnakePlanes planes_;
};

}  // namespace

void register_textsnake_reference(py::module_& m) {
  def_mmocr_drawn_targets<augment::TextSnakeScratch>(
      m, "mmocr_textsnake_targets", &augment::check_textsnake_words,
      [](const augment::TextKernelWords& w) {
        return std::make_unique<TextSnakeArrays>(w.height, w.width);
      },
      [](const augment::TextKernelWords& w, const TextSnakeArrays& out,
         augment::TextSnakeScratch& scratch) {
        return augment::draw_textsnake_targets(w, out.planes(), scratch);
      },
      "mmocr 1.x TextSnakeModuleLoss targets of polygons polys_xy (points, 2) float32 with "
      "npts (N,) int32 points each and ignored (N,) bool, on an (H, W) canvas: a dict of the "
      "golden files' fields. Raises InvalidArgumentError where mmocr raises (a word with fewer "
      "than 4 distinct vertices).");
}

}  // namespace textfeed::python
