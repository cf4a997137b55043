// Profiles and validation of AugmentOptions.
#include "augment/profile.h"

#include <cmath>
#include <sstream>

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
  }
  return o;
}

Result<Profile> parse_profile(std::string_view name) {
  if (name == "upstage") return Profile::kUpstage;
  if (name == "sakura") return Profile::kSakura;
  return Status::invalid_argument("unknown profile '" + std::string(name) +
                                  "' (expected 'upstage' or 'sakura')");
}

std::string_view profile_name(Profile profile) {
  return profile == Profile::kSakura ? "sakura" : "upstage";
}

Status validate(const AugmentOptions& o) {
  auto bad = [](const std::string& field, double value, const char* rule) {
    std::ostringstream s;
    s << "augment option " << field << " = " << value << ": " << rule;
    return Status::invalid_argument(s.str());
  };
  if (o.image_size < 0 || o.image_size > 32768) return bad("image_size", o.image_size, "must be 0 (off) or 1..32768");
  if (o.crop_size < 8 || o.crop_size > 16384) return bad("crop_size", o.crop_size, "must be in 8..16384");
  if (!(o.map_scale > 0 && o.map_scale <= 1)) return bad("map_scale", o.map_scale, "must be in (0, 1]");
  const double inv = 1.0 / o.map_scale;
  if (std::abs(inv - std::round(inv)) > 1e-9)
    return bad("map_scale", o.map_scale, "1 / map_scale must be an integer (0.5, 0.25, ...)");
  if (!(o.height_jitter >= 0 && o.height_jitter < 1)) return bad("height_jitter", o.height_jitter, "must be in [0, 1)");
  if (!(o.rotate_deg >= 0 && o.rotate_deg <= 180)) return bad("rotate_deg", o.rotate_deg, "must be in [0, 180]");
  if (o.crop_max_tries < 1) return bad("crop_max_tries", o.crop_max_tries, "must be >= 1");
  if (!(o.cut_low >= 0 && o.cut_low <= o.cut_high && o.cut_high <= 1))
    return bad("cut_low", o.cut_low, "need 0 <= cut_low <= cut_high <= 1");
  if (!(o.color_jitter_p >= 0 && o.color_jitter_p <= 1)) return bad("color_jitter_p", o.color_jitter_p, "must be in [0, 1]");
  if (!(o.brightness >= 0 && o.brightness <= 1)) return bad("brightness", o.brightness, "must be in [0, 1]");
  if (!(o.contrast >= 0 && o.contrast <= 1)) return bad("contrast", o.contrast, "must be in [0, 1]");
  if (!(o.saturation >= 0 && o.saturation <= 1)) return bad("saturation", o.saturation, "must be in [0, 1]");
  if (!(o.hue >= 0 && o.hue <= 0.5)) return bad("hue", o.hue, "must be in [0, 0.5]");
  for (int c = 0; c < 3; ++c)
    if (!(o.std[c] > 0)) return bad("std", o.std[c], "must be > 0");
  if (o.clamp_geo < 0) return bad("clamp_geo", o.clamp_geo, "must be >= 0 (0 = off)");
  return Status();
}

std::string describe(const AugmentOptions& o) {
  std::ostringstream s;
  s << "profile=" << profile_name(o.profile) << " image_size=" << o.image_size
    << " crop_size=" << o.crop_size << " map_scale=" << o.map_scale
    << " height_jitter=" << o.height_jitter << " rotate_deg=" << o.rotate_deg
    << " crop_max_tries=" << o.crop_max_tries << " color_jitter_p=" << o.color_jitter_p
    << " jitter=(" << o.brightness << "," << o.contrast << "," << o.saturation << "," << o.hue << ")"
    << " mask=" << (o.mask == MaskKind::kRoi ? "roi" : "ignored")
    << " dtype=" << (o.dtype == OutputDType::kF32 ? "float32" : "uint8")
    << " fill_rule=" << (o.fill_rule == FillRule::kEvenOdd ? "even_odd" : "union")
    << " overlap=" << static_cast<int>(o.overlap) << " ignored_targets="
    << (o.ignored_targets == IgnoredTargets::kKeep ? "keep" : "none")
    << " fix_orientation=" << o.fix_orientation << " clamp_geo=" << o.clamp_geo;
  return s.str();
}

}  // namespace textfeed::augment
