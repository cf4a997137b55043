// Inference preprocessing: the reference resizes (OpenCV bilinear; PIL bilinear), the top-left
// placement on the canvas and the normalization.
#include "augment/inference.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

namespace textfeed::augment {
namespace {

// upstage and bc7 infer with the Boostcamp baseline's detect() (the 7th generation's inference.py
// calls the same function); sakura with SakuraRiven's resize_img.
bool baseline_detect(Profile profile) {
  return profile == Profile::kUpstage || profile == Profile::kBc7;
}

std::string size_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

// SakuraRiven's resize_img: a side already a multiple of 32 stays, else int(side / 32) * 32.
int floor32(int side) { return side % 32 == 0 ? side : side / 32 * 32; }

// PaddleOCR's DetResizeForTest pads an image whose sides add up to less than 64 with zeros at the
// bottom and right to at least 32 x 32 before it resizes (its image_padding).
bool paddle_pads(int width, int height) { return width + height < 64; }
int paddle_padded(int side, bool pads) { return pads ? std::max(side, 32) : side; }

// DetResizeForTest (limit_type 'max'): a side after int() truncation of side * ratio, rounded to
// the nearest multiple of 32 (Python's round, half to even), at least 32.
int paddle_side(int side, double ratio) {
  const int truncated = static_cast<int>(side * ratio);
  return std::max(static_cast<int>(std::nearbyint(truncated / 32.0)) * 32, 32);
}

cv::Mat mat_of(const ImageView& v) {
  return cv::Mat(v.height, v.width, CV_8UC(v.channels),
                 const_cast<uint8_t*>(v.data),  // NOLINT: read only
                 static_cast<size_t>(v.stride_bytes));
}
cv::Mat mat_of(Image& image) {
  return cv::Mat(image.height(), image.width(), CV_8UC(image.channels()), image.data(),
                 static_cast<size_t>(image.stride_bytes()));
}

// Writes the HWC uint8 canvas as 3 planes, normalized (float32) or as they are (uint8).
void write_planes(const MutableImageView& out, const Image& canvas, Profile profile) {
  const int side = canvas.width(), ch = canvas.channels();
  float mean[3], stdev[3];
  inference_normalization(profile, mean, stdev);
  // db: PaddleOCR's planes follow OpenCV's BGR decode, so plane 0 is blue.
  const bool bgr = profile == Profile::kDb;
  for (int c = 0; c < 3; ++c) {
    const float scale = 1.0f / (255.0f * stdev[c]), shift = -mean[c] / stdev[c];
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

Status render_unguarded(const ImageView& src, const InferencePlan& plan, Profile profile,
                        InferenceScratch& s) {
  s.resized.reset(plan.height, plan.width, 3);
  s.canvas.reset(plan.canvas, plan.canvas, 3);
  cv::Mat canvas = mat_of(s.canvas);
  if (baseline_detect(profile)) {
    cv::Mat resized = mat_of(s.resized);
    if (plan.width == src.width && plan.height == src.height)
      mat_of(src).copyTo(resized);  // the reference skips the resize at scale 1
    else
      cv::resize(mat_of(src), resized, resized.size(), 0, 0, cv::INTER_LINEAR);
    cv::copyMakeBorder(resized, canvas, 0, plan.canvas - plan.height, 0, plan.canvas - plan.width,
                       cv::BORDER_REFLECT_101);
    return Status();
  }
  canvas.setTo(cv::Scalar::all(0));
  if (profile == Profile::kDb) {  // cv2.resize's default (bilinear), also at the same size
    cv::Mat resized = mat_of(s.resized);
    cv::Mat from = mat_of(src);
    cv::Mat padded;
    if (const bool pads = paddle_pads(src.width, src.height); pads) {
      padded =
          cv::Mat::zeros(paddle_padded(src.height, pads), paddle_padded(src.width, pads), CV_8UC3);
      from.copyTo(padded(cv::Rect(0, 0, src.width, src.height)));
      from = padded;
    }
    cv::resize(from, resized, resized.size(), 0, 0, cv::INTER_LINEAR);
    resized.copyTo(canvas(cv::Rect(0, 0, plan.width, plan.height)));
    return Status();
  }
  MutableImageView top_left = s.canvas.mutable_view();  // the resized image's part of the canvas
  top_left.width = plan.width;
  top_left.height = plan.height;
  pil_bilinear_resize(src, top_left, s);
  return Status();
}

}  // namespace

Result<InferencePlan> plan_inference(Profile profile, int src_width, int src_height, int canvas) {
  if (src_width < 1 || src_height < 1 || canvas < 1)
    return Status::invalid_argument("inference: an image of " + size_text(src_width, src_height) +
                                    " px on a canvas of " + std::to_string(canvas));
  InferencePlan p;
  p.canvas = canvas;
  int base_w = src_width, base_h = src_height;  // the size the scales are of
  if (baseline_detect(profile)) {
    // albumentations' LongestMaxSize: scale = size / longer side; each side round()ed (half to
    // even, as Python 3 rounds) unless the scale is exactly 1.
    const double scale = canvas / static_cast<double>(std::max(src_width, src_height));
    p.width = scale == 1.0 ? src_width : static_cast<int>(std::nearbyint(src_width * scale));
    p.height = scale == 1.0 ? src_height : static_cast<int>(std::nearbyint(src_height * scale));
  } else if (profile == Profile::kDb) {
    // A small image padded first; the longer side limited to the canvas (never enlarged), then
    // each side to a multiple of 32; the scales are of the padded size, whose top left the image
    // is.
    const bool pads = paddle_pads(src_width, src_height);
    base_w = paddle_padded(src_width, pads);
    base_h = paddle_padded(src_height, pads);
    const int longer = std::max(base_w, base_h);
    const double ratio = longer > canvas ? static_cast<double>(canvas) / longer : 1.0;
    p.width = paddle_side(base_w, ratio);
    p.height = paddle_side(base_h, ratio);
  } else {
    p.width = floor32(src_width);
    p.height = floor32(src_height);
  }
  if (p.width < 1 || p.height < 1)
    return Status::invalid_argument("inference: an image of " + size_text(src_width, src_height) +
                                    " px resizes to " + size_text(p.width, p.height) + " px");
  if (p.width > canvas || p.height > canvas) {
    // sakura keeps the image's size; db's rounding passes only a canvas off the multiples of 32.
    const std::string fix =
        profile == Profile::kDb
            ? "make image_size a multiple of 32"
            : "raise image_size to at least " + std::to_string(std::max(p.width, p.height));
    return Status::invalid_argument("inference: an image of " + size_text(src_width, src_height) +
                                    " px is " + size_text(p.width, p.height) +
                                    " px after rounding to multiples of 32, larger "
                                    "than the " +
                                    std::to_string(canvas) + " px canvas (" + fix + ")");
  }
  p.scale_x = static_cast<double>(p.width) / base_w;
  p.scale_y = static_cast<double>(p.height) / base_h;
  return p;
}

bool inference_keeps_size(Profile profile) { return profile == Profile::kSakura; }

int inference_canvas_needed(Profile profile, int src_width, int src_height) {
  return inference_keeps_size(profile) ? std::max(floor32(src_width), floor32(src_height)) : 0;
}

void inference_normalization(Profile profile, float mean[3], float std[3]) {
  // upstage: albumentations' Normalize() defaults (ImageNet); db: PaddleOCR's NormalizeImage,
  // the same constants per plane (its planes are BGR); sakura: load_pil's 0.5 / 0.5.
  const bool imagenet = baseline_detect(profile) || profile == Profile::kDb;
  const float m[3] = {0.485f, 0.456f, 0.406f}, s[3] = {0.229f, 0.224f, 0.225f};
  for (int c = 0; c < 3; ++c) {
    mean[c] = imagenet ? m[c] : 0.5f;
    std[c] = imagenet ? s[c] : 0.5f;
  }
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
  try {
    TF_RETURN_IF_ERROR(render_unguarded(src, plan, profile, scratch));
  } catch (const std::exception& e) {  // cv::Exception, std::bad_alloc
    return Status::internal(std::string("inference: ") + e.what());
  }
  write_planes(out, scratch.canvas, profile);
  return Status();
}

}  // namespace textfeed::augment
