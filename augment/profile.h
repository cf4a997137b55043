// AugmentOptions: every parameter of the per-sample pipeline, and the reference profiles that
// set them (docs/targets.md §2, §5). A plain value type, validated once at the edge.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/field_table.h"
#include "base/status.h"
#include "base/tensor.h"

namespace textfeed::augment {

// Which public pipeline the defaults reproduce.
enum class Profile : unsigned char {
  kUpstage,  // Upstage/boostcamp baseline: UFO, resize 2048, crop 1024, maps at 0.5, ROI mask
  kSakura,   // SakuraRiven/EAST: ICDAR-2015, no resize, crop 512, maps at 0.25, ignored map
  kBc7,  // the 7th-generation boostcamp baseline: kUpstage's geometry and targets, albumentations
         // 1.4.12 ColorJitter() defaults and arithmetic (docs/targets.md §2.6)
  kDb,   // PaddleOCR's DB detection chain: flip, rotate, resize (imgaug), crop search into a 640
        // canvas, border and shrink maps at full size, BGR ImageNet normalize (docs/targets.md §8)
  // mmocr 1.x's training chains and targets (docs/targets.md §9): augment/mmocr/chains.h.
  kPsenet,     // PSENet: 736 px, text kernels at 7 shrink ratios
  kPanet,      // PANet: 736 px, text and kernel instance maps
  kFcenet,     // FCENet: 800 px, Fourier maps at strides 8, 16, 32
  kTextsnake,  // TextSnake: 800 px, text and centre-line regions, radius, sin and cos
};

enum class FillRule : unsigned char { kEvenOdd, kUnion };                // §5 #1
enum class Overlap : unsigned char { kSum, kLast, kSmallest, kIgnore };  // §5 #2
enum class CropFallback : unsigned char { kKeepLast, kIgnoreCut };       // §5 #3
enum class IgnoredTargets : unsigned char { kKeep, kNone };  // §5 #6 (kKeep = UP quirk)
enum class MaskKind : unsigned char {
  kRoi,
  kIgnored
};                                                   // UP roi (1 = valid) / SR ignored (1 = ignore)
enum class AngleError : unsigned char { kSr, kUp };  // §5 #11
enum class RoiResize : unsigned char { kLinear, kNearest, kRasterizeAtMap };  // §5 #13
// The order of the image tensor's three planes (mean and std follow the planes: mean[0] is plane
// 0's).
enum class ChannelOrder : unsigned char { kRgb, kBgr };
// What a polygon that is not a simple valid ring (self-intersecting, degenerate, with non-finite
// points) becomes (docs/targets.md §8.6): kKeep = as the reference computes it; kRepair = the
// largest piece of GEOS's make-valid; kIgnore = an ignored word (masked out).
enum class InvalidPolygon : unsigned char { kKeep, kRepair, kIgnore };
// How the four colour operations compute pixels (docs/targets.md §2.6). kFused: in float, clamped
// to [0, 255] between operations but never rounded (one pass, fused with normalize). The other two
// repeat albumentations' uint8 arithmetic (lookup tables, truncation, OpenCV's grey, addWeighted
// and 8-bit HSV) in the version named: 1.3.1 builds the brightness and contrast tables in float64,
// 1.4.12 (albucore 0.0.13) in float32.
enum class ColorMath : unsigned char { kFused, kAlbumentations131, kAlbumentations1412 };

// The closed interval [lo, hi] a colour parameter is drawn from, uniformly (base/field_table.h).
using UniformRange = textfeed::UniformRange;
inline constexpr double kMaxJitterFactor =
    10;  // bound of a brightness, contrast or saturation factor

// Every numeric field has a bound, given after it as [min, max] and in its row of recipe_fields()
// (augment/recipe_fields.cc, and a family's own rows in its folder's profiles.cc); validate()
// enforces them, and it is the one place that does, for options from the CLI, Python and the
// wire alike. The bounds keep
// every per-sample cost finite: the largest crop search is crop_max_tries x words tries.
struct AugmentOptions {
  Profile profile = Profile::kUpstage;

  // Geometry (docs/targets.md §2.1-2.2).
  int image_size = 2048;  // longer side after resize_img; 0 = no resize (sakura). 0 or [32, 32768]
  int crop_size = 1024;   // square crop side, px. [8, 16384]
  double height_jitter = 0.2;  // adjust_height ratio in [1 - j, 1 + j). [0, 1)
  double rotate_deg = 10.0;    // rotation angle in [-r, r) degrees. [0, 180]
  int crop_max_tries = 1000;   // crop positions tried before the fallback. [1, 10000]
  double cut_low = 0.01;       // a try is rejected if low <= overlap fraction <= high
  double cut_high = 0.99;      //   for any valid word. 0 <= cut_low <= cut_high <= 1
  bool vertices_f32 = true;    // §5 #9: UP float32 vertex arithmetic in resize/adjust_height
  bool int_vertices = false;   // §5 #8: SR truncates y to integers after adjust_height
  CropFallback crop_fallback = CropFallback::kKeepLast;

  // Photometric (§2.1 step 4, §2.2 step 4), then normalize: (x / 255 - mean) / std.
  double color_jitter_p = 0.5;  // probability that colour jitter runs at all. [0, 1]
  // Factors ~ U[lo, hi], 1 = identity; 0 <= lo <= hi <= kMaxJitterFactor. set_option also takes
  // one number b for [max(0, 1 - b), 1 + b] (torchvision's and albumentations' scalar form).
  UniformRange brightness{0.5, 1.5};
  UniformRange contrast{0.5, 1.5};
  UniformRange saturation{0.5, 1.5};
  // Shift ~ U[lo, hi] in turns, 0 = identity; -0.5 <= lo <= hi <= 0.5. One number h: [-h, h].
  UniformRange hue{-0.25, 0.25};
  ColorMath color_math = ColorMath::kFused;  // kU8 and kF32 alike
  float mean[3] = {0.5f, 0.5f, 0.5f};        // [-1000, 1000]
  float std[3] = {0.5f, 0.5f, 0.5f};         // [1e-6, 1000]
  DType dtype = DType::kF32;                 // kU8: no jitter-normalize fusion; normalize on GPU

  // Targets (§3).
  double map_scale = 0.5;  // map side = int(crop_size * map_scale). (0, 1], 1 / map_scale an
                           // integer, map side >= 1
  MaskKind mask = MaskKind::kRoi;
  AngleError angle_error = AngleError::kUp;
  FillRule fill_rule = FillRule::kEvenOdd;
  Overlap overlap = Overlap::kSum;
  IgnoredTargets ignored_targets = IgnoredTargets::kKeep;
  RoiResize roi_resize = RoiResize::kLinear;
  bool fix_orientation = false;  // §5 #10: reorder quads clockwise from the top-left first
  double clamp_geo = 0.0;        // §5 #17: clamp d1..d4 to this many px; 0 = off. [0, 65536]
  ChannelOrder channel_order = ChannelOrder::kRgb;
  // DB (kDb; docs/targets.md §8). The geometry uses rotate_deg (U[-r, r]), crop_max_tries and
  // crop_size too.
  double flip_p = 0.5;            // probability of a horizontal flip. [0, 1]
  UniformRange resize{0.5, 3.0};  // the resize factor ~ U[lo, hi]. 0 < lo <= hi <= 16
  double min_crop_side = 0.1;     // min_crop_side_ratio of the crop search. (0, 1]
  double shrink_ratio = 0.4;      // (0, 1)
  double thresh_min = 0.3;        // 0 <= thresh_min <= thresh_max <= 1
  double thresh_max = 0.7;
  int min_text_size = 8;  // px; shorter words are ignored. [0, 16384]
  int total_epochs = 0;   // > 0: shrink ratio + 0.2 * epoch / total_epochs. [0, 2^30]
  InvalidPolygon invalid_polygon = InvalidPolygon::kKeep;
  // The mmocr families (docs/targets.md §9.4): their 0/1 target tensors as uint8 instead of the
  // reference's float32 (psenet's gt_kernels binarised and gt_mask, panet's gt_mask).
  bool compact_masks = false;

  int map_size() const { return static_cast<int>(crop_size * map_scale); }
};

// The defaults of a profile.
AugmentOptions profile_defaults(Profile profile);

// What a family folder says of each profile it trains, without its chain (this part links no
// OpenCV: a client that only sends a spec needs it): the name, the defaults, and the recipe checks
// of evaluation that are the family's own (beyond image_size > 0; kInvalidArgument).
struct ProfileEntry {
  std::string_view name;
  Profile profile;
  void (*set_defaults)(AugmentOptions& options);  // changes from AugmentOptions{}'s values
  Status (*validate_eval)(const AugmentOptions& options);
  // Whether the reference reads a UFO word's 'illegibility' flag and 'tags' (loader/spec/spec.h
  // reader_defaults): the 7th-generation baseline reads neither.
  bool reads_ufo_flags = true;
  std::string_view doc;  // one line: which public pipeline it reproduces
  // Whether the reference's one-channel target maps come without their channel axis ([B, H, W],
  // as PaddleOCR's DB maps, which a [B, 1, H, W] map would broadcast against in its loss); the
  // batch layout keeps [C, H, W] rows, and the Python Loader gives such maps as [B, H, W].
  bool maps_without_channel_axis = false;
  // Whether training resizes the images to image_size first, so that a cache may store them so
  // (cache build's default image_size). The mmocr profiles' image_size is the evaluation canvas
  // only: their chains start from the original pixels, and a cache for them stores those.
  bool trains_at_image_size = true;
  // The recipe checks of every mode that are the family's own (null: none; kInvalidArgument),
  // e.g. a chain that ends with images of one size only.
  Status (*validate_recipe)(const AugmentOptions& options) = nullptr;
};

// A row of the recipe's field table (base/field_table.h).
using RecipeField = Field<AugmentOptions>;

// The light half of a family's registration (its folder's profiles.cc): its profiles and the
// recipe fields only its chain reads. The other half, its chain and targets, is augment/family.h.
struct FamilyEntry {
  std::string_view name;
  std::span<const ProfileEntry> profiles;
  std::span<const RecipeField> fields;
};
// Every family's entry, in registration order (augment/profile.cc).
std::span<const FamilyEntry> family_entries();

// Every profile, in Profile order.
std::span<const ProfileEntry> profile_entries();
// Every field of the recipe: the ones every family reads, then each family's own, in
// registration order. set_option(), option_names(), validate()'s per-field bounds, describe(),
// the wire's recipe, the Python binding and the docs all come from it.
std::span<const RecipeField> recipe_fields();
// The entry of `profile`; null for a value outside the enum.
const ProfileEntry* find_profile(Profile profile);
// The last Profile enumerator (profile_entries() ends with it; tests/augment/family_test.cc).
inline constexpr Profile kLastProfile = Profile::kTextsnake;
// The recipe checks of evaluation that are the profile's family's own.
Status validate_eval_profile(const AugmentOptions& options);

// The shrink ratio of `epoch` (PaddleOCR's epoch-dependent ratio when total_epochs > 0).
double shrink_ratio_at(const AugmentOptions& options, uint64_t epoch);
// "upstage", "sakura", "bc7", "db", "psenet", "panet", "fcenet" or "textsnake". Errors:
// kInvalidArgument naming the accepted values.
Result<Profile> parse_profile(std::string_view name);
std::string_view profile_name(Profile profile);
// "fused", "albumentations_1_3_1" or "albumentations_1_4_12" (set_option's names).
std::string_view color_math_name(ColorMath math);
// Checks every field against its bound (above). Errors: kInvalidArgument naming the field, the
// value and the bound.
Status validate(const AugmentOptions& options);
// Sets the field `name` (a row of recipe_fields(), e.g. "crop_size", "map_scale", "fill_rule")
// from its text `value` ("768", "0.25", "union", "true"; base/field_table.h FieldKind says each
// kind's text: an enum takes the names of its row, a range "lo,hi" or one number, a triple
// "a,b,c"). Does not validate the whole (call validate() after the last one). Errors:
// kInvalidArgument (unknown name, unparsable value).
Status set_option(AugmentOptions& options, std::string_view name, std::string_view value);
// The names set_option accepts, comma-separated (for --help and error messages).
std::string_view option_names();
// One line listing every field ("profile=NAME" then recipe_fields()' "name=value"), for logs.
std::string describe(const AugmentOptions& options);

}  // namespace textfeed::augment
