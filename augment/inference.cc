// Inference preprocessing: the plan of a profile's style, its checks, the placement of the planes
// with the normalization, and PIL's bilinear resize (the sizes and the resize of each reference are
// its family's: augment/family.h Family::inference_style).
#include "augment/inference.h"

#include <algorithm>
#include <exception>
#include <string>

#include "augment/family.h"

namespace textfeed::augment {
namespace {

std::string size_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

// Writes the HWC uint8 canvas as 3 planes in the style's order, normalized (float32) or as they
// are (uint8).
void write_planes(const MutableImageView& out, const Image& canvas, const InferenceStyle& style) {
  const int side = canvas.width(), ch = canvas.channels();
  const bool bgr = style.planes == ChannelOrder::kBgr;
  for (int c = 0; c < 3; ++c) {
    const float scale = 1.0f / (255.0f * style.std[c]), shift = -style.mean[c] / style.std[c];
    for (int y = 0; y < side; ++y) {
      const uint8_t* src = canvas.data() + y * canvas.stride_bytes() + (bgr ? 2 - c : c);
      uint8_t* row = out.row(c * side + y);
      if (out.dtype == DType::kU8) {
        for (int x = 0; x < side; ++x) row[x] = src[x * ch];
      } else {
        float* f = reinterpret_cast<float*>(row);
        for (int x = 0; x < side; ++x) f[x] = static_cast<float>(src[x * ch]) * scale + shift;
      }
    }
  }
}

// An image larger than the canvas: what size it got, and what the style says fixes that.
Status oversize_error(const InferenceStyle& style, int src_width, int src_height,
                      const InferencePlan& p) {
  const int needed = std::max(p.width, p.height);
  const std::string fix = style.oversize_fix != nullptr
                              ? style.oversize_fix(needed)
                              : "raise image_size to at least " + std::to_string(needed);
  return Status::invalid_argument("inference: an image of " + size_text(src_width, src_height) +
                                  " px is " + size_text(p.width, p.height) + " px after " +
                                  std::string(style.size_rule) + ", larger than the " +
                                  std::to_string(p.canvas) + " px canvas (" + fix + ")");
}

}  // namespace

const InferenceStyle& inference_style(Profile profile) {
  return family_of(profile).inference_style(profile);
}

Result<InferencePlan> plan_inference(Profile profile, int src_width, int src_height, int canvas) {
  if (src_width < 1 || src_height < 1 || canvas < 1)
    return Status::invalid_argument("inference: an image of " + size_text(src_width, src_height) +
                                    " px on a canvas of " + std::to_string(canvas));
  const InferenceStyle& style = inference_style(profile);
  const InferenceSize size = style.size(src_width, src_height, canvas);
  InferencePlan p;
  p.canvas = canvas;
  p.width = size.width;
  p.height = size.height;
  if (p.width < 1 || p.height < 1)
    return Status::invalid_argument("inference: an image of " + size_text(src_width, src_height) +
                                    " px resizes to " + size_text(p.width, p.height) + " px");
  if (p.width > canvas || p.height > canvas) return oversize_error(style, src_width, src_height, p);
  p.scale_x = static_cast<double>(p.width) / size.base_width;
  p.scale_y = static_cast<double>(p.height) / size.base_height;
  return p;
}

bool inference_keeps_size(Profile profile) { return inference_style(profile).keeps_size; }

int inference_canvas_needed(Profile profile, int src_width, int src_height) {
  const InferenceStyle& style = inference_style(profile);
  if (!style.keeps_size || src_width < 1 || src_height < 1) return 0;
  // A style that keeps the size gives the same one on any canvas.
  const InferenceSize size = style.size(src_width, src_height, std::max(src_width, src_height));
  return std::max(size.width, size.height);
}

void inference_normalization(Profile profile, float mean[3], float std[3]) {
  const InferenceStyle& style = inference_style(profile);
  std::copy_n(style.mean, 3, mean);
  std::copy_n(style.std, 3, std);
}

void pil_bilinear_resize(const ImageView& src, const MutableImageView& out, InferenceScratch& s) {
  const bool horizontal = out.width != src.width, vertical = out.height != src.height;
  if (!horizontal && !vertical) {
    for (int y = 0; y < src.height; ++y)
      std::copy_n(src.row(y), static_cast<size_t>(src.width) * 3, out.row(y));
    return;
  }
  const uint8_t* in = src.data;
  ptrdiff_t in_stride = src.stride_bytes;
  if (horizontal) {
    uint8_t* dst = out.data;
    ptrdiff_t dst_stride = out.stride_bytes;
    if (vertical) {  // the horizontal pass into scratch, then the vertical one into `out`
      s.pass.resize(static_cast<size_t>(src.height) * out.width * 3);
      dst = s.pass.data();
      dst_stride = static_cast<ptrdiff_t>(out.width) * 3;
    }
    internal::pil_taps(src.width, out.width, 0, out.width, true, s.taps);
    internal::pil_horizontal(in, in_stride, 0, src.height, s.taps, dst, dst_stride);
    if (!vertical) return;
    in = dst;
    in_stride = dst_stride;
  }
  internal::pil_taps(src.height, out.height, 0, out.height, false, s.taps);
  internal::pil_vertical(in, in_stride, 0, out.width * 3, s.taps, out.data, out.stride_bytes, 0,
                         out.height);
}

Status render_inference(const MutableImageView& out, const ImageView& src,
                        const InferencePlan& plan, Profile profile, InferenceScratch& scratch) {
  if (src.dtype != DType::kU8 || src.channels != 3 || src.empty() || plan.canvas < 1)
    return Status::invalid_argument("inference: the source must be RGB uint8 pixels");
  if (out.channels != 1 || out.width != plan.canvas || out.height != 3 * plan.canvas ||
      (out.dtype != DType::kU8 && out.dtype != DType::kF32))
    return Status::invalid_argument("inference: the output row is not 3 planes of " +
                                    std::to_string(plan.canvas) + " px");
  const InferenceStyle& style = inference_style(profile);
  try {
    scratch.resized.reset(plan.height, plan.width, 3);
    scratch.canvas.reset(plan.canvas, plan.canvas, 3);
    style.fill_canvas(src, plan, scratch);
  } catch (const std::exception& e) {  // cv::Exception, std::bad_alloc
    return Status::internal(std::string("inference: ") + e.what());
  }
  write_planes(out, scratch.canvas, style);
  return Status();
}

}  // namespace textfeed::augment
