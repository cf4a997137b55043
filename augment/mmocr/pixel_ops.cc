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
    // A rotation's fill (code 0) is applied with its warp (apply_folded); a pad's comes after it.
    if (op.code != 1 || prev == nullptr || prev->kind != K::kPad)
      return Status::invalid_argument("a fill patch of code " + std::to_string(op.code) +
                                      " must follow its warp (code 0) or its pad (code 1)");
    fill_pad(cur, before, op, s);
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

namespace {

// a := b * a (b applied after a), 2 x 3 affine matrices.
void then(double a[6], const double b[6]) {
  const double r[6] = {b[0] * a[0] + b[1] * a[3],        b[0] * a[1] + b[1] * a[4],
                       b[0] * a[2] + b[1] * a[5] + b[2], b[3] * a[0] + b[4] * a[3],
                       b[3] * a[1] + b[4] * a[4],        b[3] * a[2] + b[4] * a[5] + b[5]};
  std::copy(r, r + 6, a);
}

// The matrix of one foldable op on a w x h image, and its output size; false if it does not fold.
bool op_matrix(const PixelOp& op, int& w, int& h, double m[6]) {
  using K = PixelOp::Kind;
  switch (op.kind) {
    case K::kResize: {
      const double sx = static_cast<double>(op.out_w) / w, sy = static_cast<double>(op.out_h) / h;
      const double r[6] = {sx, 0, 0.5 * (sx - 1), 0, sy, 0.5 * (sy - 1)};
      std::copy(r, r + 6, m);
      w = op.out_w, h = op.out_h;
      return true;
    }
    case K::kFlip: {
      const double fx = op.code != 1 ? -1 : 1, fy = op.code != 0 ? -1 : 1;
      const double r[6] = {fx, 0, fx < 0 ? w - 1.0 : 0, 0, fy, fy < 0 ? h - 1.0 : 0};
      std::copy(r, r + 6, m);
      return true;
    }
    case K::kAffine:
      std::copy(op.matrix, op.matrix + 6, m);
      w = op.out_w, h = op.out_h;
      return true;
    case K::kCrop: {
      const int x0 = std::clamp(op.rect[0], 0, w), y0 = std::clamp(op.rect[1], 0, h);
      const int x1 = std::clamp(op.rect[2], x0, w), y1 = std::clamp(op.rect[3], y0, h);
      const double r[6] = {1, 0, -static_cast<double>(x0), 0, 1, -static_cast<double>(y0)};
      std::copy(r, r + 6, m);
      w = std::max(x1 - x0, 1), h = std::max(y1 - y0, 1);
      return true;
    }
    case K::kPad: {
      const double r[6] = {1, 0, 0, 0, 1, 0};
      std::copy(r, r + 6, m);
      w = op.out_w, h = op.out_h;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

FoldedOps fold_warp_prefix(std::span<const PixelOp> ops, int w, int h) {
  FoldedOps f;
  f.out_w = w, f.out_h = h;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (i + 1 < ops.size() && ops[i + 1].kind == PixelOp::Kind::kFillPatch) break;
    double m[6];
    int ow = f.out_w, oh = f.out_h;
    if (!op_matrix(ops[i], ow, oh, m)) break;
    then(f.matrix, m);
    f.out_w = ow, f.out_h = oh;
    f.count = i + 1;
  }
  return f;
}

namespace {

cv::Mat matrix_of(const double m[6]) {
  return cv::Mat(2, 3, CV_64F, const_cast<double*>(m)).clone();  // NOLINT: copied at once
}

// A canvas rotation (`rot`, a kAffine) and its fill patch (`fill`), followed by the ops `after`
// folds, as one warp of `cur` at the final size: the turned image, the border mask, and the patch
// (cut from `cur`, resized to the canvas) carried through the same ops, added where the mask is 1.
// The reference adds at the canvas's size before resizing; this adds after (the same picture up
// to interpolation).
void rotate_and_fill(const cv::Mat& cur, const PixelOp& rot, const PixelOp& fill,
                     const FoldedOps& after, Image& out_buffer, PixelScratch& s) {
  double m[6];
  std::copy(rot.matrix, rot.matrix + 6, m);
  then(m, after.matrix);
  const int w = after.count > 0 ? after.out_w : rot.out_w;
  const int h = after.count > 0 ? after.out_h : rot.out_h;
  cv::Mat out = sized(out_buffer, h, w);
  cv::warpAffine(cur, out, matrix_of(m), out.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT,
                 cv::Scalar::all(0));
  const cv::Rect cut =
      clipped(cur, fill.fill_x, fill.fill_y, fill.fill_x + cur.cols / kPatchDivisor,
              fill.fill_y + cur.rows / kPatchDivisor);
  if (cut.empty()) return;
  s.mask.reset(h, w, 1);
  cv::Mat mask = mat_of(s.mask);
  // The mask is the warp of a black image with a border of 1: a black image kept for it.
  if (s.zeros.height() != cur.rows || s.zeros.width() != cur.cols) {
    s.zeros.reset(cur.rows, cur.cols, 1);
    mat_of(s.zeros).setTo(cv::Scalar::all(0));
  }
  cv::warpAffine(mat_of(s.zeros), mask, matrix_of(m), mask.size(), cv::INTER_LINEAR,
                 cv::BORDER_CONSTANT, cv::Scalar::all(1));
  const double sx = static_cast<double>(rot.out_w) / cut.width;
  const double sy = static_cast<double>(rot.out_h) / cut.height;
  double p[6] = {sx, 0, 0.5 * (sx - 1), 0, sy, 0.5 * (sy - 1)};
  then(p, after.matrix);
  cv::Mat patch = sized(s.patch, h, w);
  if (after.count == 0)  // the reference's own resize of the patch to the canvas
    cv::resize(cur(cut), patch, patch.size(), 0, 0, cv::INTER_LINEAR);
  else
    cv::warpAffine(cur(cut), patch, matrix_of(p), patch.size(), cv::INTER_LINEAR,
                   cv::BORDER_REPLICATE);
  for (int y = 0; y < h; ++y) {  // numpy's uint8 arithmetic: out + patch * mask, modulo 256
    uint8_t* o = out.ptr<uint8_t>(y);
    const uint8_t* q = patch.ptr<uint8_t>(y);
    const uint8_t* k = mask.ptr<uint8_t>(y);
    for (int x = 0; x < 3 * w; ++x) o[x] = static_cast<uint8_t>(o[x] + q[x] * k[x / 3]);
  }
}

// Applies ops[i..] that fold into one warp (two or more of them, or a canvas rotation with its
// fill and what follows) into `out_buffer`; returns how many it used (0: none, apply ops[i]).
size_t apply_folded(std::span<const PixelOp> ops, size_t i, const cv::Mat& cur, Image& out_buffer,
                    PixelScratch& s) {
  using K = PixelOp::Kind;
  if (ops[i].kind == K::kAffine && i + 1 < ops.size() && ops[i + 1].kind == K::kFillPatch &&
      ops[i + 1].code == 0) {
    const FoldedOps after = fold_warp_prefix(ops.subspan(i + 2), ops[i].out_w, ops[i].out_h);
    rotate_and_fill(cur, ops[i], ops[i + 1], after, out_buffer, s);
    return 2 + after.count;
  }
  const FoldedOps f = fold_warp_prefix(ops.subspan(i), cur.cols, cur.rows);
  if (f.count < 2) return 0;
  // Without a warp or a pad in the run, every output pixel lies on the image: its edge pixels are
  // repeated rather than blended with black, as cv2.resize and a crop do.
  bool blank_outside = false;
  for (size_t k = i; k < i + f.count; ++k)
    blank_outside = blank_outside || ops[k].kind == K::kAffine || ops[k].kind == K::kPad;
  cv::Mat out = sized(out_buffer, f.out_h, f.out_w);
  cv::warpAffine(cur, out, matrix_of(f.matrix), out.size(), cv::INTER_LINEAR,
                 blank_outside ? cv::BORDER_CONSTANT : cv::BORDER_REPLICATE, cv::Scalar::all(0));
  return f.count;
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
    for (size_t i = 0; i < ops.size();) {
      bool fresh = true;
      size_t used = apply_folded(ops, i, cur, *buffers[next], scratch);
      if (used == 0) {
        auto one = apply_one(ops[i], prev, cur, before, *buffers[next], scratch);
        if (!one.ok()) return one.status();
        fresh = *one;
        used = 1;
      }
      if (fresh) {
        before = cur;
        cur = mat_of(*buffers[next]);
        next = 1 - next;
      }
      prev = &ops[i + used - 1];
      i += used;
    }
    return ImageView{cur.data, cur.rows, cur.cols, 3, static_cast<int>(cur.step[0]), DType::kU8};
  } catch (const std::exception& e) {
    return Status::internal(std::string("mmocr pixel ops: OpenCV failed: ") + e.what());
  }
}

}  // namespace textfeed::augment::mmocr
