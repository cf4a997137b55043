// Profiles and validation of AugmentOptions.
#include "augment/profile.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <sstream>
#include <utility>

namespace textfeed::augment {

AugmentOptions profile_defaults(Profile profile) {
  AugmentOptions o;
  o.profile = profile;
  if (profile == Profile::kSakura) {
    o.image_size = 0;
    o.crop_size = 512;
    o.map_scale = 0.25;
    o.vertices_f32 = false;
    o.int_vertices = true;
    o.color_jitter_p = 1.0;
    o.mask = MaskKind::kIgnored;
    o.angle_error = AngleError::kSr;
    o.ignored_targets = IgnoredTargets::kNone;
  } else if (profile == Profile::kBc7) {
    // albumentations 1.4.12 ColorJitter(): its __init__ defaults (not its schema's 0.2), p = 0.5.
    o.brightness = o.contrast = o.saturation = {0.8, 1.0};
    o.hue = {-0.5, 0.5};
    o.color_math = ColorMath::kAlbumentations1412;
  } else if (profile == Profile::kDb) {
    // PaddleOCR det_*_db.yml: IaaAugment, EastRandomCropData(640, max_tries 50), MakeBorderMap,
    // MakeShrinkMap, NormalizeImage on the BGR image as decoded.
    o.image_size = 0;
    o.crop_size = 640;
    o.map_scale = 1;
    o.height_jitter = 0;
    o.rotate_deg = 10;
    o.crop_max_tries = 50;
    o.color_jitter_p = 0;
    o.channel_order = ChannelOrder::kBgr;
    const float mean[3] = {0.485f, 0.456f, 0.406f}, std[3] = {0.229f, 0.224f, 0.225f};
    std::copy(mean, mean + 3, o.mean);
    std::copy(std, std + 3, o.std);
  }
  return o;
}

double shrink_ratio_at(const AugmentOptions& o, uint64_t epoch) {
  if (o.total_epochs <= 0) return o.shrink_ratio;
  return o.shrink_ratio + 0.2 * static_cast<double>(epoch) / static_cast<double>(o.total_epochs);
}

namespace {
constexpr std::pair<std::string_view, Profile> kProfiles[] = {
    {"upstage", Profile::kUpstage}, {"sakura", Profile::kSakura}, {"bc7", Profile::kBc7}, {"db", Profile::kDb}};
}  // namespace

Result<Profile> parse_profile(std::string_view name) {
  for (const auto& [text, value] : kProfiles)
    if (name == text) return value;
  return Status::invalid_argument("unknown profile '" + std::string(name) +
                                  "' (expected 'upstage', 'sakura', 'bc7' or 'db')");
}

std::string_view profile_name(Profile profile) {
  for (const auto& [text, value] : kProfiles)
    if (profile == value) return text;
  return "unknown";
}

std::string_view color_math_name(ColorMath math) {
  switch (math) {
    case ColorMath::kFused:
      return "fused";
    case ColorMath::kAlbumentations131:
      return "albumentations_1_3_1";
    case ColorMath::kAlbumentations1412:
      return "albumentations_1_4_12";
  }
  return "unknown";
}

namespace {

// `!(lo <= v && v <= hi)` so that NaN fails too.
Status check_range(const char* field, UniformRange r, double min, double max) {
  if (min <= r.lo && r.lo <= r.hi && r.hi <= max) return Status();
  std::ostringstream s;
  s << "augment option " << field << " = [" << r.lo << ", " << r.hi << "]: need " << min << " <= lo <= hi <= " << max;
  return Status::invalid_argument(s.str());
}

// Two fields, each within its bounds, in the wrong order: both named, since either may be the one
// that was set.
Status bad_pair(const char* low_field, double low, const char* high_field, double high) {
  std::ostringstream s;
  s << "augment options " << low_field << " = " << low << ", " << high_field << " = " << high << ": need "
    << low_field << " <= " << high_field;
  return Status::invalid_argument(s.str());
}

Status check_colour(const AugmentOptions& o) {
  TF_RETURN_IF_ERROR(check_range("brightness", o.brightness, 0, kMaxJitterFactor));
  TF_RETURN_IF_ERROR(check_range("contrast", o.contrast, 0, kMaxJitterFactor));
  TF_RETURN_IF_ERROR(check_range("saturation", o.saturation, 0, kMaxJitterFactor));
  TF_RETURN_IF_ERROR(check_range("hue", o.hue, -0.5, 0.5));
  if (static_cast<unsigned>(o.color_math) > static_cast<unsigned>(ColorMath::kAlbumentations1412))
    return Status::invalid_argument("augment option color_math = " + std::to_string(static_cast<unsigned>(o.color_math)) +
                                    ": not a ColorMath");
  return Status();
}

// The DB fields (profile.h): each against its bound, NaN failing as everywhere.
Status check_db(const AugmentOptions& o) {
  auto bad = [](const char* field, double value, const char* rule) {
    std::ostringstream s;
    s << "augment option " << field << " = " << value << ": " << rule;
    return Status::invalid_argument(s.str());
  };
  if (!(o.flip_p >= 0 && o.flip_p <= 1)) return bad("flip_p", o.flip_p, "must be in [0, 1]");
  if (!(o.resize.lo > 0)) return bad("resize", o.resize.lo, "the lower factor must be above 0");
  TF_RETURN_IF_ERROR(check_range("resize", o.resize, 0, 16));
  if (!(o.min_crop_side >= 0 && o.min_crop_side <= 1)) return bad("min_crop_side", o.min_crop_side, "must be in [0, 1]");
  if (!(o.shrink_ratio > 0 && o.shrink_ratio < 1)) return bad("shrink_ratio", o.shrink_ratio, "must be in (0, 1)");
  if (!(o.thresh_min >= 0 && o.thresh_min <= 1)) return bad("thresh_min", o.thresh_min, "must be in [0, 1]");
  if (!(o.thresh_max >= 0 && o.thresh_max <= 1)) return bad("thresh_max", o.thresh_max, "must be in [0, 1]");
  if (o.thresh_min > o.thresh_max) return bad_pair("thresh_min", o.thresh_min, "thresh_max", o.thresh_max);
  if (!(o.min_text_size >= 0 && o.min_text_size <= 16384)) return bad("min_text_size", o.min_text_size, "must be in [0, 16384]");
  if (!(o.total_epochs >= 0 && o.total_epochs <= (1 << 30))) return bad("total_epochs", o.total_epochs, "must be in [0, 2^30]");
  if (static_cast<unsigned>(o.channel_order) > static_cast<unsigned>(ChannelOrder::kBgr))
    return bad("channel_order", static_cast<unsigned>(o.channel_order), "not a ChannelOrder");
  if (static_cast<unsigned>(o.invalid_polygon) > static_cast<unsigned>(InvalidPolygon::kIgnore))
    return bad("invalid_polygon", static_cast<unsigned>(o.invalid_polygon), "not an InvalidPolygon");
  return Status();
}

}  // namespace

Status validate(const AugmentOptions& o) {
  auto bad = [](const std::string& field, double value, const char* rule) {
    std::ostringstream s;
    s << "augment option " << field << " = " << value << ": " << rule;
    return Status::invalid_argument(s.str());
  };
  // `!(lo <= v && v <= hi)` so that NaN fails too.
  auto in = [](double v, double lo, double hi) { return lo <= v && v <= hi; };
  if (o.image_size != 0 && !in(o.image_size, 32, 32768))
    return bad("image_size", o.image_size, "must be 0 (off) or in [32, 32768]");
  if (!in(o.crop_size, 8, 16384)) return bad("crop_size", o.crop_size, "must be in [8, 16384]");
  if (!(o.map_scale > 0 && o.map_scale <= 1)) return bad("map_scale", o.map_scale, "must be in (0, 1]");
  const double inv = 1.0 / o.map_scale;
  if (std::abs(inv - std::round(inv)) > 1e-9)
    return bad("map_scale", o.map_scale, "1 / map_scale must be an integer (0.5, 0.25, ...)");
  if (o.map_size() < 1) return bad("map_scale", o.map_scale, "gives maps of 0 px for this crop_size");
  if (!(o.height_jitter >= 0 && o.height_jitter < 1)) return bad("height_jitter", o.height_jitter, "must be in [0, 1)");
  if (!in(o.rotate_deg, 0, 180)) return bad("rotate_deg", o.rotate_deg, "must be in [0, 180]");
  if (!in(o.crop_max_tries, 1, 10000)) return bad("crop_max_tries", o.crop_max_tries, "must be in [1, 10000]");
  // Each bound on its own field, so that the message names the field that is wrong (NaN included).
  if (!in(o.cut_low, 0, 1)) return bad("cut_low", o.cut_low, "must be in [0, 1]");
  if (!in(o.cut_high, 0, 1)) return bad("cut_high", o.cut_high, "must be in [0, 1]");
  if (o.cut_low > o.cut_high) return bad_pair("cut_low", o.cut_low, "cut_high", o.cut_high);
  if (!in(o.color_jitter_p, 0, 1)) return bad("color_jitter_p", o.color_jitter_p, "must be in [0, 1]");
  TF_RETURN_IF_ERROR(check_colour(o));
  for (int c = 0; c < 3; ++c) {
    if (!in(o.mean[c], -1000, 1000)) return bad("mean", o.mean[c], "must be in [-1000, 1000]");
    if (!in(o.std[c], 1e-6, 1000)) return bad("std", o.std[c], "must be in [1e-6, 1000]");
  }
  if (!in(o.clamp_geo, 0, 65536)) return bad("clamp_geo", o.clamp_geo, "must be in [0, 65536] (0 = off)");
  return check_db(o);
}

namespace {

Status bad_value(std::string_view name, std::string_view value, std::string_view expected) {
  return Status::invalid_argument("option " + std::string(name) + " = '" + std::string(value) + "': expected " +
                                  std::string(expected));
}

Status parse_int(std::string_view name, std::string_view v, int& out) {
  const auto r = std::from_chars(v.data(), v.data() + v.size(), out);
  if (r.ec != std::errc() || r.ptr != v.data() + v.size()) return bad_value(name, v, "an integer");
  return Status();
}

// from_chars, not strtod: the same text means the same number whatever the process's locale, and
// no hex floats.
Status parse_double(std::string_view name, std::string_view v, double& out) {
  double d = 0;
  const auto r = std::from_chars(v.data(), v.data() + v.size(), d);
  if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size() || !std::isfinite(d))
    return bad_value(name, v, "a finite decimal number");
  out = d;
  return Status();
}

Status parse_bool(std::string_view name, std::string_view v, bool& out) {
  if (v == "true" || v == "1") return out = true, Status();
  if (v == "false" || v == "0") return out = false, Status();
  return bad_value(name, v, "true or false");
}

// "lo,hi", or one number x >= 0 for [max(0, 1 - x), 1 + x] (a factor) or [-x, x] (a shift).
Status parse_range(std::string_view name, std::string_view v, bool factor, UniformRange& out) {
  const std::string_view expected =
      factor ? "'lo,hi' or one number b >= 0 (for [max(0, 1 - b), 1 + b])" : "'lo,hi' or one number h >= 0 (for [-h, h])";
  const size_t comma = v.find(',');
  double lo = 0, hi = 0;
  if (comma != std::string_view::npos) {
    if (!parse_double(name, v.substr(0, comma), lo).ok() || !parse_double(name, v.substr(comma + 1), hi).ok())
      return bad_value(name, v, expected);
    if (lo > hi) return bad_value(name, v, std::string(expected) + "; lo must not exceed hi");
    out = {lo, hi};
    return Status();
  }
  double x = 0;
  if (!parse_double(name, v, x).ok()) return bad_value(name, v, expected);
  if (x < 0) return bad_value(name, v, std::string(expected) + "; a single number must not be negative");
  out = factor ? UniformRange{std::max(0.0, 1 - x), 1 + x} : UniformRange{-x, x};
  return Status();
}

template <class E, size_t N>
Status parse_enum(std::string_view name, std::string_view v, const std::pair<std::string_view, E> (&table)[N],
                  E& out) {
  std::string expected;
  for (const auto& [text, value] : table) {
    if (v == text) return out = value, Status();
    if (!expected.empty()) expected += '|';
    expected += text;
  }
  return bad_value(name, v, expected);
}

}  // namespace

std::string_view option_names() {
  return "image_size, crop_size, map_scale, height_jitter, rotate_deg, crop_max_tries, cut_low, cut_high, "
         "vertices_f32, int_vertices, crop_fallback, color_jitter_p, brightness, contrast, saturation, hue, "
         "color_math, dtype, mask, angle_error, fill_rule, overlap, ignored_targets, roi_resize, fix_orientation, clamp_geo, "
         "channel_order, flip_p, resize, min_crop_side, shrink_ratio, thresh_min, thresh_max, min_text_size, total_epochs, "
         "invalid_polygon";
}

namespace {
Status set_db_option(AugmentOptions& o, std::string_view n, std::string_view v);
}  // namespace

Status set_option(AugmentOptions& o, std::string_view n, std::string_view v) {
  static constexpr std::pair<std::string_view, FillRule> kFill[] = {{"even_odd", FillRule::kEvenOdd},
                                                                   {"union", FillRule::kUnion}};
  static constexpr std::pair<std::string_view, Overlap> kOverlap[] = {
      {"sum", Overlap::kSum}, {"last", Overlap::kLast}, {"smallest", Overlap::kSmallest}, {"ignore", Overlap::kIgnore}};
  static constexpr std::pair<std::string_view, CropFallback> kFallback[] = {{"keep_last", CropFallback::kKeepLast},
                                                                           {"ignore_cut", CropFallback::kIgnoreCut}};
  static constexpr std::pair<std::string_view, IgnoredTargets> kIgnored[] = {{"keep", IgnoredTargets::kKeep},
                                                                            {"none", IgnoredTargets::kNone}};
  static constexpr std::pair<std::string_view, MaskKind> kMask[] = {{"roi", MaskKind::kRoi},
                                                                   {"ignored", MaskKind::kIgnored}};
  static constexpr std::pair<std::string_view, AngleError> kAngle[] = {{"sr", AngleError::kSr},
                                                                      {"up", AngleError::kUp}};
  static constexpr std::pair<std::string_view, RoiResize> kRoi[] = {
      {"linear", RoiResize::kLinear}, {"nearest", RoiResize::kNearest}, {"rasterize_at_map", RoiResize::kRasterizeAtMap}};
  static constexpr std::pair<std::string_view, DType> kDtype[] = {{"float32", DType::kF32}, {"uint8", DType::kU8}};
  static constexpr std::pair<std::string_view, ColorMath> kMath[] = {
      {"fused", ColorMath::kFused},
      {"albumentations_1_3_1", ColorMath::kAlbumentations131},
      {"albumentations_1_4_12", ColorMath::kAlbumentations1412}};
  if (n == "image_size") return parse_int(n, v, o.image_size);
  if (n == "crop_size") return parse_int(n, v, o.crop_size);
  if (n == "map_scale") return parse_double(n, v, o.map_scale);
  if (n == "height_jitter") return parse_double(n, v, o.height_jitter);
  if (n == "rotate_deg") return parse_double(n, v, o.rotate_deg);
  if (n == "crop_max_tries") return parse_int(n, v, o.crop_max_tries);
  if (n == "cut_low") return parse_double(n, v, o.cut_low);
  if (n == "cut_high") return parse_double(n, v, o.cut_high);
  if (n == "vertices_f32") return parse_bool(n, v, o.vertices_f32);
  if (n == "int_vertices") return parse_bool(n, v, o.int_vertices);
  if (n == "crop_fallback") return parse_enum(n, v, kFallback, o.crop_fallback);
  if (n == "color_jitter_p") return parse_double(n, v, o.color_jitter_p);
  if (n == "brightness") return parse_range(n, v, true, o.brightness);
  if (n == "contrast") return parse_range(n, v, true, o.contrast);
  if (n == "saturation") return parse_range(n, v, true, o.saturation);
  if (n == "hue") return parse_range(n, v, false, o.hue);
  if (n == "color_math") return parse_enum(n, v, kMath, o.color_math);
  if (n == "dtype") return parse_enum(n, v, kDtype, o.dtype);
  if (n == "mask") return parse_enum(n, v, kMask, o.mask);
  if (n == "angle_error") return parse_enum(n, v, kAngle, o.angle_error);
  if (n == "fill_rule") return parse_enum(n, v, kFill, o.fill_rule);
  if (n == "overlap") return parse_enum(n, v, kOverlap, o.overlap);
  if (n == "ignored_targets") return parse_enum(n, v, kIgnored, o.ignored_targets);
  if (n == "roi_resize") return parse_enum(n, v, kRoi, o.roi_resize);
  if (n == "fix_orientation") return parse_bool(n, v, o.fix_orientation);
  if (n == "clamp_geo") return parse_double(n, v, o.clamp_geo);
  return set_db_option(o, n, v);
}

namespace {

// The DB fields (profile.h) and channel_order; the last of set_option's names.
Status set_db_option(AugmentOptions& o, std::string_view n, std::string_view v) {
  static constexpr std::pair<std::string_view, ChannelOrder> kOrder[] = {{"rgb", ChannelOrder::kRgb},
                                                                        {"bgr", ChannelOrder::kBgr}};
  static constexpr std::pair<std::string_view, InvalidPolygon> kInvalid[] = {
      {"keep", InvalidPolygon::kKeep}, {"repair", InvalidPolygon::kRepair}, {"ignore", InvalidPolygon::kIgnore}};
  if (n == "channel_order") return parse_enum(n, v, kOrder, o.channel_order);
  if (n == "flip_p") return parse_double(n, v, o.flip_p);
  if (n == "resize") return parse_range(n, v, true, o.resize);
  if (n == "min_crop_side") return parse_double(n, v, o.min_crop_side);
  if (n == "shrink_ratio") return parse_double(n, v, o.shrink_ratio);
  if (n == "thresh_min") return parse_double(n, v, o.thresh_min);
  if (n == "thresh_max") return parse_double(n, v, o.thresh_max);
  if (n == "min_text_size") return parse_int(n, v, o.min_text_size);
  if (n == "total_epochs") return parse_int(n, v, o.total_epochs);
  if (n == "invalid_polygon") return parse_enum(n, v, kInvalid, o.invalid_polygon);
  return Status::invalid_argument("unknown option '" + std::string(n) + "' (known: " + std::string(option_names()) +
                                  ")");
}

}  // namespace

namespace {
std::ostream& operator<<(std::ostream& s, UniformRange r) { return s << '[' << r.lo << ',' << r.hi << ']'; }
}  // namespace

std::string describe(const AugmentOptions& o) {
  std::ostringstream s;
  s << "profile=" << profile_name(o.profile) << " image_size=" << o.image_size
    << " crop_size=" << o.crop_size << " map_scale=" << o.map_scale
    << " height_jitter=" << o.height_jitter << " rotate_deg=" << o.rotate_deg
    << " crop_max_tries=" << o.crop_max_tries << " color_jitter_p=" << o.color_jitter_p
    << " brightness=" << o.brightness << " contrast=" << o.contrast << " saturation=" << o.saturation
    << " hue=" << o.hue << " color_math=" << color_math_name(o.color_math)
    << " mask=" << (o.mask == MaskKind::kRoi ? "roi" : "ignored")
    << " dtype=" << dtype_name(o.dtype)
    << " fill_rule=" << (o.fill_rule == FillRule::kEvenOdd ? "even_odd" : "union")
    << " overlap=" << static_cast<int>(o.overlap) << " ignored_targets="
    << (o.ignored_targets == IgnoredTargets::kKeep ? "keep" : "none")
    << " fix_orientation=" << o.fix_orientation << " clamp_geo=" << o.clamp_geo
    << " channel_order=" << (o.channel_order == ChannelOrder::kRgb ? "rgb" : "bgr");
  if (o.profile == Profile::kDb)
    s << " flip_p=" << o.flip_p << " resize=" << o.resize << " min_crop_side=" << o.min_crop_side
      << " shrink_ratio=" << o.shrink_ratio << " thresh=[" << o.thresh_min << ',' << o.thresh_max
      << "] min_text_size=" << o.min_text_size << " total_epochs=" << o.total_epochs
      << " invalid_polygon=" << static_cast<int>(o.invalid_polygon);
  return s.str();
}

}  // namespace textfeed::augment
