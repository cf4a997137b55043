// The recipe's field table, the part every family reads (augment/profile.h recipe_fields() adds
// each family's own rows), and the names of its enums.
#pragma once

#include <span>

#include "augment/profile.h"
#include "base/field_table.h"

namespace textfeed::augment {

inline constexpr EnumName kCropFallbackNames[] = {
    {"keep_last", static_cast<int>(CropFallback::kKeepLast)},
    {"ignore_cut", static_cast<int>(CropFallback::kIgnoreCut)}};
inline constexpr EnumName kColorMathNames[] = {
    {"fused", static_cast<int>(ColorMath::kFused)},
    {"albumentations_1_3_1", static_cast<int>(ColorMath::kAlbumentations131)},
    {"albumentations_1_4_12", static_cast<int>(ColorMath::kAlbumentations1412)}};
inline constexpr EnumName kDTypeNames[] = {{"float32", static_cast<int>(DType::kF32)},
                                           {"uint8", static_cast<int>(DType::kU8)}};
inline constexpr EnumName kMaskNames[] = {{"roi", static_cast<int>(MaskKind::kRoi)},
                                          {"ignored", static_cast<int>(MaskKind::kIgnored)}};
inline constexpr EnumName kAngleErrorNames[] = {{"sr", static_cast<int>(AngleError::kSr)},
                                                {"up", static_cast<int>(AngleError::kUp)}};
inline constexpr EnumName kFillRuleNames[] = {{"even_odd", static_cast<int>(FillRule::kEvenOdd)},
                                              {"union", static_cast<int>(FillRule::kUnion)}};
inline constexpr EnumName kOverlapNames[] = {{"sum", static_cast<int>(Overlap::kSum)},
                                             {"last", static_cast<int>(Overlap::kLast)},
                                             {"smallest", static_cast<int>(Overlap::kSmallest)},
                                             {"ignore", static_cast<int>(Overlap::kIgnore)}};
inline constexpr EnumName kIgnoredTargetsNames[] = {
    {"keep", static_cast<int>(IgnoredTargets::kKeep)},
    {"none", static_cast<int>(IgnoredTargets::kNone)}};
inline constexpr EnumName kRoiResizeNames[] = {
    {"linear", static_cast<int>(RoiResize::kLinear)},
    {"nearest", static_cast<int>(RoiResize::kNearest)},
    {"rasterize_at_map", static_cast<int>(RoiResize::kRasterizeAtMap)}};
inline constexpr EnumName kChannelOrderNames[] = {{"rgb", static_cast<int>(ChannelOrder::kRgb)},
                                                  {"bgr", static_cast<int>(ChannelOrder::kBgr)}};
// The rows every family reads: geometry, colour, output and the EAST targets' switches.
std::span<const RecipeField> common_fields();

}  // namespace textfeed::augment
