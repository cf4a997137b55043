// The pixel ops of mmocr's chains with OpenCV (pixel_ops.h).
#include "augment/mmocr/pixel_ops.h"

#include <algorithm>
#include <exception>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

#include "augment/detail/cv_mat.h"

namespace textfeed::augment::mmocr {
namespace {

using textfeed::augment::internal::mat_of;

// The patch share of RandomRotate's and SourceImagePad's fill (1 / 9 of each side).
constexpr int kPatchDivisor = 9;
constexpr double kPatchRatio = 1.0 / 9;

cv::Mat sized(Image& buffer, int h, int w) {
  buffer.reset(h, w, 3);
  return mat_of(buffer);
}

// numpy's slice [y0:y1, x0:x1] of `m`: clipped to the image, possibly empty.
cv::Rect clipped(const cv::Mat& m, int x0, int y0, int x1, int y1) {
  return cv::Rect(cv::Point(x0, y0), cv::Point(x1, y1)) & cv::Rect(0, 0, m.cols, m.rows);
}

// RandomRotate's fill: the patch resized to the canvas, added where the border mask is 1.
void fill_rotation(cv::Mat& canvas, const cv::Mat& before, const PixelOp& warp, const PixelOp& op,
                   PixelScratch& s) {
  const cv::Rect cut =
      clipped(before, op.fill_x, op.fill_y, op.fill_x + before.cols / kPatchDivisor,
              op.fill_y + before.rows / kPatchDivisor);
  if (cut.empty()) return;  // cv2 would refuse to resize an empty patch; nothing to add
  cv::Mat patch = sized(s.patch, canvas.rows, canvas.cols);
  cv::resize(before(cut), patch, patch.size(), 0, 0, cv::INTER_LINEAR);
  cv::Mat mask = sized(s.mask, canvas.rows, canvas.cols);
  const cv::Mat m(2, 3, CV_64F, const_cast<double*>(warp.matrix));  // NOLINT: read only
  cv::warpAffine(cv::Mat::zeros(before.size(), CV_8UC3), mask, m, mask.size(), cv::INTER_LINEAR,
                 cv::BORDER_CONSTANT, cv::Scalar::all(1));
  // numpy's uint8 arithmetic: canvas + patch * mask, modulo 256.
  for (int y = 0; y < canvas.rows; ++y) {
    uint8_t* c = canvas.ptr<uint8_t>(y);
    const uint8_t* p = patch.ptr<uint8_t>(y);
    const uint8_t* k = mask.ptr<uint8_t>(y);
    for (int x = 0; x < 3 * canvas.cols; ++x)
      c[x] = static_cast<uint8_t>(c[x] + static_cast<uint8_t>(p[x] * k[x]));
  }
}

// SourceImagePad's fill: the patch resized to the output, the old image at its top left.
void fill_pad(cv::Mat& out, const cv::Mat& before, const PixelOp& op, PixelScratch& s) {
  const int y1 = static_cast<int>(op.fill_y + before.rows * kPatchRatio);
  const int x1 = static_cast<int>(op.fill_x + before.cols * kPatchRatio);
  const cv::Rect cut = clipped(before, op.fill_x, op.fill_y, x1, y1);
  if (cut.empty()) return;  // the zero padding stays
  cv::Mat patch = sized(s.patch, out.rows, out.cols);
  cv::resize(before(cut), patch, patch.size(), 0, 0, cv::INTER_LINEAR);
  before.copyTo(patch(cv::Rect(0, 0, before.cols, before.rows)));
  patch.copyTo(out);
}

int flip_code(int code) { return code == 0 ? 1 : code == 1 ? 0 : -1; }

Status check_rect(const PixelOp& op, const cv::Mat& cur) {
  if (op.rect[0] < 0 || op.rect[1] < 0 || op.rect[2] > cur.cols || op.rect[3] > cur.rows ||
      op.rect[0] > op.rect[2] || op.rect[1] > op.rect[3])
    return Status::invalid_argument(
        "pixel op rectangle (" + std::to_string(op.rect[0]) + ", " + std::to_string(op.rect[1]) +
        ", " + std::to_string(op.rect[2]) + ", " + std::to_string(op.rect[3]) + ") leaves its " +
        std::to_string(cur.cols) + "x" + std::to_string(cur.rows) + " image");
  return Status();
}

// One op from `cur` into `out` (a fresh buffer); in-place ops return false (cur is changed).
Result<bool> apply_one(const PixelOp& op, const PixelOp* prev, cv::Mat& cur, const cv::Mat& before,
                       Image& out_buffer, PixelScratch& s) {
  using K = PixelOp::Kind;
  if (op.kind == K::kRegionFlip) {
    TF_RETURN_IF_ERROR(check_rect(op, cur));
    cv::Mat roi =
        cur(cv::Rect(cv::Point(op.rect[0], op.rect[1]), cv::Point(op.rect[2], op.rect[3])));
    cv::Mat flipped;
    cv::flip(roi, flipped, flip_code(op.code));
    flipped.copyTo(roi);
    return false;
  }
  if (op.kind == K::kFillPatch) {
    if (prev != nullptr && prev->kind == K::kAffine) fill_rotation(cur, before, *prev, op, s);
    if (prev != nullptr && prev->kind == K::kPad) fill_pad(cur, before, op, s);
    return false;
  }
  if (op.kind == K::kCrop) {
    const cv::Rect r = clipped(cur, op.rect[0], op.rect[1], op.rect[2], op.rect[3]);
    cv::Mat out = sized(out_buffer, std::max(r.height, 1), std::max(r.width, 1));
    if (r.empty()) return Status::invalid_argument("pixel crop leaves nothing of the image");
    cur(r).copyTo(out);
    return true;
  }
  if (op.out_h < 1 || op.out_w < 1) return Status::invalid_argument("pixel op of an empty size");
  cv::Mat out = sized(out_buffer, op.out_h, op.out_w);
  switch (op.kind) {
    case K::kResize:
      cv::resize(cur, out, out.size(), 0, 0, cv::INTER_LINEAR);
      break;
    case K::kFlip:
      cv::flip(cur, out, flip_code(op.code));
      break;
    case K::kAffine: {
      const cv::Mat m(2, 3, CV_64F, const_cast<double*>(op.matrix));  // NOLINT: read only
      cv::warpAffine(cur, out, m, out.size(), op.code == 1 ? cv::INTER_NEAREST : cv::INTER_LINEAR,
                     cv::BORDER_CONSTANT, cv::Scalar::all(0));
      break;
    }
    case K::kPad: {
      out.setTo(cv::Scalar::all(0));
      const cv::Rect keep = clipped(out, 0, 0, cur.cols, cur.rows);
      cur(cv::Rect(0, 0, keep.width, keep.height)).copyTo(out(keep));
      break;
    }
    default:
      return Status::internal("pixel op kind out of range");
  }
  return true;
}

}  // namespace

Result<ImageView> apply_pixel_ops(const ImageView& image, std::span<const PixelOp> ops,
                                  PixelScratch& scratch) {
  if (image.channels != 3 || image.dtype != DType::kU8)
    return Status::invalid_argument("mmocr pixel ops take uint8 images of 3 channels");
  try {
    cv::Mat cur = mat_of(image);
    cv::Mat before;
    Image* buffers[2] = {&scratch.a, &scratch.b};
    int next = 0;
    const PixelOp* prev = nullptr;
    for (const PixelOp& op : ops) {
      auto fresh = apply_one(op, prev, cur, before, *buffers[next], scratch);
      if (!fresh.ok()) return fresh.status();
      if (*fresh) {
        before = cur;
        cur = mat_of(*buffers[next]);
        next = 1 - next;
      }
      prev = &op;
    }
    return ImageView{cur.data, cur.rows, cur.cols, 3, static_cast<int>(cur.step[0]), DType::kU8};
  } catch (const std::exception& e) {
    return Status::internal(std::string("mmocr pixel ops: OpenCV failed: ") + e.what());
  }
}

}  // namespace textfeed::augment::mmocr
