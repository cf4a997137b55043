// replay_mmocr_chain: one seeded replay of an mmocr chain (augment/mmocr/chains.h) under the chain
// goldens' field names, ragged polygon lists as *_xy (points, 2) float64 plus *_len.
#include "augment/mmocr/python_replay.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "augment/mmocr/chains.h"
#include "augment/mmocr_python.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

using augment::mmocr::ChainDraw;
using augment::mmocr::ChainPolygon;

// Appends `polygons` to the ragged lists xy / len / src.
void add_ragged(const std::vector<ChainPolygon>& polygons, std::vector<double>& xy,
                std::vector<int32_t>& len, std::vector<int32_t>& src) {
  for (const ChainPolygon& p : polygons) {
    xy.insert(xy.end(), p.xy.begin(), p.xy.end());
    len.push_back(static_cast<int32_t>(p.xy.size() / 2));
    src.push_back(p.src);
  }
}

py::array_t<double> points_array(const std::vector<double>& xy) {
  return numpy_copy<double>(xy, {static_cast<py::ssize_t>(xy.size() / 2), 2});
}

void put_draws(py::dict& d, const std::vector<ChainDraw>& draws) {
  py::list step, name, rng;
  std::vector<int32_t> len;
  std::vector<double> values;
  for (const ChainDraw& draw : draws) {
    step.append(draw.step);
    name.append(draw.name);
    rng.append(draw.rng == 'n' ? "numpy" : draw.rng == 'p' ? "python" : "imgaug");
    len.push_back(static_cast<int32_t>(draw.values.size()));
    values.insert(values.end(), draw.values.begin(), draw.values.end());
  }
  d["draw_step"] = step;
  d["draw_name"] = name;
  d["draw_rng"] = rng;
  d["draw_len"] = numpy_vector<int32_t>(len);
  d["draw_values"] = numpy_vector<double>(values);
}

void put_trace(py::dict& d, const augment::mmocr::ChainState& state) {
  py::list step;
  std::vector<int32_t> hw, npoly, len, src;
  std::vector<double> xy;
  for (const auto& t : state.trace) {
    step.append(t.step);
    hw.push_back(t.h);
    hw.push_back(t.w);
    npoly.push_back(static_cast<int32_t>(t.polygons.size()));
    add_ragged(t.polygons, xy, len, src);
  }
  d["trace_step"] = step;
  d["trace_hw"] = numpy_copy<int32_t>(hw, {static_cast<py::ssize_t>(hw.size() / 2), 2});
  d["trace_npoly"] = numpy_vector<int32_t>(npoly);
  d["trace_len"] = numpy_vector<int32_t>(len);
  d["trace_xy"] = points_array(xy);
  d["trace_src"] = numpy_vector<int32_t>(src);
}

void put_outputs(py::dict& d, const augment::mmocr::ChainState& state, size_t n_inputs) {
  const bool dropped = !state.dropped.empty();
  std::vector<double> xy;
  std::vector<int32_t> len, src, labels;
  std::vector<uint8_t> f32, zero, ignored, kept(n_inputs, 0);
  if (!dropped) {
    add_ragged(state.polygons, xy, len, src);
    for (const ChainPolygon& p : state.polygons) {
      f32.push_back(p.f32 ? 1 : 0);
      bool all_zero = true;
      for (double v : p.xy) all_zero = all_zero && v == 0;
      zero.push_back(all_zero ? 1 : 0);
      if (p.src >= 0 && static_cast<size_t>(p.src) < n_inputs) kept[p.src] = 1;
    }
    ignored.assign(state.ignored.begin(), state.ignored.end());
    labels.assign(state.labels.begin(), state.labels.end());
  }
  d["dropped"] = state.dropped;
  d["out_hw"] = dropped ? numpy_vector<int32_t>(std::vector<int32_t>{})
                        : numpy_vector<int32_t>(std::vector<int32_t>{state.h, state.w});
  d["out_xy"] = points_array(xy);
  d["out_len"] = numpy_vector<int32_t>(len);
  d["out_src"] = numpy_vector<int32_t>(src);
  d["out_f32"] = numpy_vector<bool>(f32);
  d["out_zero"] = numpy_vector<bool>(zero);
  d["out_ignored"] = numpy_vector<bool>(ignored);
  d["out_labels"] = numpy_vector<int32_t>(labels);
  d["kept"] = numpy_vector<bool>(kept);
}

}  // namespace

void register_mmocr_chain_replay(py::module_& m) {
  m.def(
      "replay_mmocr_chain",
      [](const std::string& chain, std::pair<int64_t, int64_t> image_hw,
         const CArray<float>& polys_xy, const IArray& npts, const BArray& ignored,
         uint32_t seed) -> py::dict {
        auto kind = augment::mmocr::chain_kind(chain);
        if (!kind.ok()) throw_status(kind.status());
        if (polys_xy.size() != 0 && (polys_xy.ndim() != 2 || polys_xy.shape(1) != 2))
          throw_status(
              Status::invalid_argument("replay_mmocr_chain: polys_xy must be (points, 2)"));
        if (npts.ndim() != 1 || ignored.ndim() != 1)
          throw_status(
              Status::invalid_argument("replay_mmocr_chain: npts and ignored must be 1-D"));
        constexpr int64_t kMaxSide = 1 << 16;
        if (image_hw.first < 1 || image_hw.second < 1 || image_hw.first > kMaxSide ||
            image_hw.second > kMaxSide)
          throw_status(Status::invalid_argument("replay_mmocr_chain: image_hw outside 1..65536"));
        std::vector<uint32_t> points;
        for (py::ssize_t i = 0; i < npts.size(); ++i) {
          if (npts.data()[i] < 0)
            throw_status(Status::invalid_argument("replay_mmocr_chain: negative point count"));
          points.push_back(static_cast<uint32_t>(npts.data()[i]));
        }
        std::vector<unsigned char> flags(ignored.data(), ignored.data() + ignored.size());
        augment::mmocr::ChainInput input{
            static_cast<int>(image_hw.first), static_cast<int>(image_hw.second),
            std::span<const float>(polys_xy.data(), static_cast<size_t>(polys_xy.size())), points,
            flags};
        auto replay = [&] {
          py::gil_scoped_release release;
          return augment::mmocr::replay_chain(*kind, input, seed);
        }();
        if (!replay.ok()) throw_status(replay.status());
        py::dict d;
        put_outputs(d, replay->state, points.size());
        put_draws(d, replay->draws);
        put_trace(d, replay->state);
        return d;
      },
      py::arg("chain"), py::arg("image_hw"), py::arg("polys_xy"), py::arg("npts"),
      py::arg("ignored"), py::arg("seed"),
      "One seeded replay of mmocr 1.x's training chain `chain` (psenet, panet, fcenet, "
      "textsnake) on polygons polys_xy (points, 2) float32 with npts (N,) int32 points each and "
      "ignored (N,) bool, on an image of image_hw (H, W): a dict of the chain goldens' fields.");
}

}  // namespace textfeed::python
