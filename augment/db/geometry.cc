// DB geometry: IaaAugment's draws and keypoint mapping, the crop, and the one image map
// (see db_geometry.h; the formulas are derived in docs/targets.md "DB crop and imgaug geometry").
#include "augment/db/geometry.h"

#include <cmath>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

namespace textfeed::augment {
namespace {

// imgaug keeps Uniform samples as float32, and np.deg2rad of a float32 array stays float32.
double as_f32(double v) { return static_cast<double>(static_cast<float>(v)); }

double radians_f32(double deg) {
  return static_cast<double>(static_cast<float>(deg) * static_cast<float>(M_PI / 180.0));
}

// imgaug's _is_identity_matrix: mean over the 3x3 entries of |I - M| <= 1e-4, for the rotation
// about (cx, cy) that Affine builds.
bool rotation_is_identity(double rad, double cx, double cy) {
  const double c = std::cos(rad), s = std::sin(rad);
  const double tx = cx - c * cx + s * cy, ty = cy - s * cx - c * cy;
  const double sum = 2 * std::abs(1 - c) + 2 * std::abs(s) + std::abs(tx) + std::abs(ty);
  return sum / 9 <= 1e-4;
}

// out = a ∘ b (apply b first), 2x3 affine matrices.
void compose(double out[6], const double a[6], const double b[6]) {
  const double r[6] = {a[0] * b[0] + a[1] * b[3],        a[0] * b[1] + a[1] * b[4],
                       a[0] * b[2] + a[1] * b[5] + a[2], a[3] * b[0] + a[4] * b[3],
                       a[3] * b[1] + a[4] * b[4],        a[3] * b[2] + a[4] * b[5] + a[5]};
  std::copy(r, r + 6, out);
}

// The rotation about (cx, cy) by rad (skimage's AffineTransform: x' = c x - s y, y' = s x + c y).
void rotation(double m[6], double rad, double cx, double cy) {
  const double c = std::cos(rad), s = std::sin(rad);
  const double r[6] = {c, -s, cx - c * cx + s * cy, s, c, cy - s * cx - c * cy};
  std::copy(r, r + 6, m);
}

// OpenCV's resize of a src_n-pixel axis to dst_n pixels maps pixel index x to
// (x + 0.5) * dst_n / src_n - 0.5.
void resize_map(double m[6], double kx, double ky) {
  const double r[6] = {kx, 0, 0.5 * kx - 0.5, 0, ky, 0.5 * ky - 0.5};
  std::copy(r, r + 6, m);
}

}  // namespace

Status validate(const DbGeometryOptions& o) {
  if (!(o.flip_p >= 0 && o.flip_p <= 1))
    return Status::invalid_argument("db geometry: flip_p must be in [0, 1], got " +
                                    std::to_string(o.flip_p));
  if (!(o.max_rotate_deg >= 0 && o.max_rotate_deg <= 180))
    return Status::invalid_argument("db geometry: max_rotate_deg must be in [0, 180], got " +
                                    std::to_string(o.max_rotate_deg));
  if (!(o.min_resize > 0 && o.min_resize <= o.max_resize && o.max_resize <= 16))
    return Status::invalid_argument(
        "db geometry: resize range must satisfy 0 < min <= max <= 16, got [" +
        std::to_string(o.min_resize) + ", " + std::to_string(o.max_resize) + "]");
  return validate(o.crop);
}

DbDraws draw_db_geometry(const DbGeometryOptions& o, Rng& rng) {
  DbDraws d;
  d.flip = rng.uniform() < o.flip_p;
  d.angle_deg = as_f32(rng.uniform(-o.max_rotate_deg, o.max_rotate_deg));
  d.resize = as_f32(rng.uniform(o.min_resize, o.max_resize));
  return d;
}

int db_resized_side(int side, double factor) {
  const double v = std::nearbyint(static_cast<double>(side) * factor);
  return v > 0 ? static_cast<int>(v) : 1;
}

void map_db_keypoints(std::span<double> xy, int src_w, int src_h, const DbDraws& d, int& out_w,
                      int& out_h) {
  const double w = src_w, h = src_h;
  const double rad = radians_f32(d.angle_deg);
  const bool rotate = !rotation_is_identity(rad, w / 2, h / 2);
  double rot[6];
  rotation(rot, rad, w / 2, h / 2);
  out_w = db_resized_side(src_w, d.resize);
  out_h = db_resized_side(src_h, d.resize);
  const bool resize = out_w != src_w || out_h != src_h;
  for (size_t k = 0; k + 1 < xy.size(); k += 2) {
    double x = xy[k], y = xy[k + 1];
    if (d.flip) x = w - x;
    if (rotate) {
      const double rx = rot[0] * x + rot[1] * y + rot[2], ry = rot[3] * x + rot[4] * y + rot[5];
      x = rx;
      y = ry;
    }
    if (resize) {
      x = x / w * out_w;
      y = y / h * out_h;
    }
    xy[k] = x;
    xy[k + 1] = y;
  }
}

void db_image_matrix(double m[6], int src_w, int src_h, const DbDraws& d, bool rotate_image,
                     int resized_w, int resized_h, const DbCrop& crop) {
  const double w = src_w, h = src_h;
  const double flip[6] = {d.flip ? -1.0 : 1.0, 0, d.flip ? w - 1 : 0, 0, 1, 0};
  std::copy(flip, flip + 6, m);
  if (rotate_image) {
    double rot[6];
    rotation(rot, radians_f32(d.angle_deg), w / 2 - 0.5, h / 2 - 0.5);
    compose(m, rot, m);
  }
  double step[6];
  resize_map(step, resized_w / w, resized_h / h);
  compose(m, step, m);
  const double kx = static_cast<double>(crop.out_w) / crop.crop.w,
               ky = static_cast<double>(crop.out_h) / crop.crop.h;
  const double place[6] = {kx, 0,  (0.5 - crop.crop.x) * kx - 0.5,
                           0,  ky, (0.5 - crop.crop.y) * ky - 0.5};
  compose(m, place, m);
}

Status plan_db_geometry(DbGeometryPlan& out, int src_w, int src_h, DbPolygons polys,
                        std::span<const unsigned char> ignore, const DbGeometryOptions& o,
                        Rng& rng) {
  TF_RETURN_IF_ERROR(validate(o));
  TF_RETURN_IF_ERROR(validate_polygons(polys));
  if (src_w < 1 || src_h < 1 || src_w > (1 << 16) || src_h > (1 << 16))
    return Status::invalid_argument("db geometry: source size " + std::to_string(src_w) + "x" +
                                    std::to_string(src_h) + " is not in 1..65536");
  out.src_w = src_w;
  out.src_h = src_h;
  out.draws = draw_db_geometry(o, rng);
  out.rotate_image =
      !rotation_is_identity(radians_f32(out.draws.angle_deg), src_w / 2.0 - 0.5, src_h / 2.0 - 0.5);
  std::vector<double> moved(polys.xy.begin(), polys.xy.end());
  map_db_keypoints(moved, src_w, src_h, out.draws, out.resized_w, out.resized_h);
  TF_RETURN_IF_ERROR(db_crop(out.crop, out.resized_w, out.resized_h, {moved, polys.ends}, ignore,
                             o.crop, rng, CropDraws::kPipeline));
  db_image_matrix(out.matrix, src_w, src_h, out.draws, out.rotate_image, out.resized_w,
                  out.resized_h, out.crop);
  return Status();
}

Status render_db_canvas(const MutableImageView& dst, const ImageView& src,
                        const DbGeometryPlan& plan) {
  const int size = std::max(plan.crop.out_w, plan.crop.out_h);
  if (src.dtype != DType::kU8 || dst.dtype != DType::kU8 || src.channels < 1 || src.channels > 4 ||
      dst.channels != src.channels || src.width != plan.src_w || src.height != plan.src_h ||
      dst.width < size || dst.height < size || src.empty())
    return Status::invalid_argument("db canvas: source " + std::to_string(src.width) + "x" +
                                    std::to_string(src.height) + " or canvas " +
                                    std::to_string(dst.width) + "x" + std::to_string(dst.height) +
                                    " does not match the plan (u8, same channels)");
  const int type = CV_8UC(src.channels);
  const cv::Mat in(src.height, src.width, type, const_cast<uint8_t*>(src.data),
                   static_cast<size_t>(src.stride_bytes));
  cv::Mat canvas(dst.height, dst.width, type, dst.data, static_cast<size_t>(dst.stride_bytes));
  canvas.setTo(cv::Scalar::all(0));
  const DbCrop& c = plan.crop;
  cv::Mat region = canvas(cv::Rect(0, 0, c.out_w, c.out_h));
  if (plan.rotate_image) {
    const cv::Mat m(2, 3, CV_64F, const_cast<double*>(plan.matrix));
    cv::warpAffine(in, region, m, region.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT,
                   cv::Scalar::all(0));
    return Status();
  }
  cv::Mat flipped = in;
  if (plan.draws.flip) cv::flip(in, flipped, 1);
  cv::Mat resized = flipped;
  if (plan.resized_w != plan.src_w || plan.resized_h != plan.src_h)
    cv::resize(flipped, resized, cv::Size(plan.resized_w, plan.resized_h), 0, 0, cv::INTER_CUBIC);
  cv::resize(resized(cv::Rect(c.crop.x, c.crop.y, c.crop.w, c.crop.h)), region, region.size(), 0, 0,
             cv::INTER_LINEAR);
  return Status();
}

}  // namespace textfeed::augment
