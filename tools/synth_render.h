// Synthetic scene-text images for `textfeed synth`: photo-like pixels with words drawn in, and
// the quads of those words. A pure function of (profile, seed, index, quality): the same inputs
// give the same bytes on any thread.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace textfeed::tools {

enum class SynthProfile : unsigned char {
  kIcdar,    // 1280x720 scene, 5-20 words rotated within +-15 deg, ~15% illegible
  kReceipt,  // ~3000x4000 portrait page, 60-150 words in lines, slight perspective, ~5% illegible
  kPhoto,    // the receipt page photographed: textured surface, paper grain, strong sensor noise
             // (about 2.5 bits per pixel at quality 95; real phone photos have 1.3-2.7)
};

struct SynthPoint {
  float x = 0;
  float y = 0;
};

struct SynthWord {
  std::array<SynthPoint, 4> quad;  // image pixels, clockwise from the word's top-left
  std::string text;                // what is drawn (also drawn, blurred, when illegible)
  bool illegible = false;
};

struct SynthImage {
  std::vector<uint8_t> jpeg;  // the encoded image
  int width = 0;
  int height = 0;
  std::vector<SynthWord> words;  // every quad lies inside the image
};

// Renders image `index` of a dataset seeded with `seed`; every random draw comes from
// textfeed::Rng(seed, 0, index). Thread-safe (no shared state). Exceptions: only OpenCV's, on
// out-of-memory or its own bugs.
SynthImage render_synth_image(SynthProfile profile, uint64_t seed, uint64_t index,
                              int jpeg_quality);

}  // namespace textfeed::tools
