// DB geometry: PaddleOCR's IaaAugment (imgaug 0.4.0 Fliplr(p=0.5), Affine(rotate=(-10, 10)),
// Resize(size=(0.5, 3))) followed by EastRandomCropData, planned on the polygons only.
//
// The polygons follow imgaug's keypoint mapping step by step (docs/targets.md "DB crop and imgaug
// geometry": x -> W - x for the flip, rotation about (W/2, H/2), x * W'/W for the resize), then
// the crop of db_crop.h. The pixels are made afterwards from ONE affine map of source pixel
// indices to canvas pixel indices that composes the image-side conventions of the same steps
// (flip to W - 1 - x, rotation about (W/2 - 0.5, H/2 - 0.5), OpenCV's pixel-centre resizes).
// Pure functions; safe to call concurrently on distinct outputs.
#pragma once

#include <span>

#include "augment/db/crop.h"
#include "base/image.h"
#include "base/rng.h"
#include "base/status.h"

namespace textfeed::augment {

struct DbGeometryOptions {
  double flip_p = 0.5;         // Fliplr's p, in [0, 1]
  double max_rotate_deg = 10;  // angle ~ U(-max, max) degrees, max in [0, 180]
  double min_resize = 0.5;     // factor ~ U(min, max), 0 < min <= max <= 16
  double max_resize = 3;
  DbCropOptions crop;
};
Status validate(const DbGeometryOptions& o);

// The three draws of one sample, as imgaug holds them (angle and factor are float32 values).
struct DbDraws {
  bool flip = false;
  double angle_deg = 0;  // positive turns the image clockwise on screen (y down)
  double resize = 1;     // relative size of both sides
};

// Draws flip, angle, resize from `rng` in that order (one uniform() each).
DbDraws draw_db_geometry(const DbGeometryOptions& o, Rng& rng);

// Resize's new size: int(np.round(side * factor)) (half to even), at least 1.
int db_resized_side(int side, double factor);

// imgaug's keypoint mapping of the three steps, in place on xy (x, y pairs, source px), for an
// src_w x src_h image. Returns the image size after the resize through out_w/out_h. A rotation so
// small that imgaug takes its matrix for the identity (mean |I - M| <= 1e-4) moves nothing.
void map_db_keypoints(std::span<double> xy, int src_w, int src_h, const DbDraws& d, int& out_w,
                      int& out_h);

// A value type; reused across samples (the crop's vectors keep their capacity).
struct DbGeometryPlan {
  int src_w = 0;
  int src_h = 0;
  DbDraws draws;
  bool rotate_image = false;  // imgaug warps the image (its identity test on the image matrix)
  int resized_w = 0;          // after Resize
  int resized_h = 0;
  DbCrop crop;  // in the resized frame; crop.xy: the kept polygons in canvas px, crop.ignore
  // Source pixel index (x, y) -> canvas pixel index: [m0 m1 m2; m3 m4 m5]; canvas is size x size.
  double matrix[6] = {1, 0, 0, 0, 1, 0};
};

// Plans one sample: draws, keypoint mapping, crop search (CropDraws::kPipeline) and the image map.
// Errors: kInvalidArgument (source size, polygons, tags, options).
Status plan_db_geometry(DbGeometryPlan& out, int src_w, int src_h, DbPolygons polys,
                        std::span<const unsigned char> ignore, const DbGeometryOptions& o,
                        Rng& rng);

// The image map of given draws and crop (what plan_db_geometry stores in matrix).
void db_image_matrix(double m[6], int src_w, int src_h, const DbDraws& d, bool rotate_image,
                     int resized_w, int resized_h, const DbCrop& crop);

// Makes the canvas of a plan from the source pixels (u8, 1..4 channels): zero everywhere, then
// the crop region [0, out_w) x [0, out_h). With a rotation: one bilinear warp by plan.matrix.
// Without one: the reference's own ops on the (flipped) source, a cubic resize to the resized
// size and a linear resize of the crop box, so the pixels equal the reference's. `dst` is
// size x size with src's channels. Errors: kInvalidArgument (views that do not match the plan).
Status render_db_canvas(const MutableImageView& dst, const ImageView& src,
                        const DbGeometryPlan& plan);

}  // namespace textfeed::augment
