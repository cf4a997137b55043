// Fuzz target: image decode (loader/decode/decode.h). Control bytes pick the DCT scale and a
// window; the rest is the file: JPEG (TurboJPEG and the libjpeg window path), PNG, and anything
// OpenCV reads. Beyond "no crash", it checks what Decoder promises: output sizes match the header,
// a window covers what was asked inside the image, and its pixels away from its edges equal a whole
// decode's.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "base/log.h"
#include "loader/decode/decode.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/known_issues.h"

namespace textfeed::fuzz {
namespace {

using loader::Decoder;
using loader::ImageCodec;
using loader::ImageInfo;

// Low enough that a header claiming a large image costs milliseconds and tens of MB, not
// seconds and GB (the default 100M-pixel limit is a product choice, not what fuzzing needs);
// the limit check itself is exercised all the same.
constexpr int64_t kFuzzMaxPixels = int64_t{1} << 22;

// Maps a control byte to [-size/8, 9*size/8): windows reach past both edges of the image.
int window_coord(uint8_t c, int size) {
  return static_cast<int>((static_cast<int64_t>(c) - 28) * size / 199);
}

struct Rect {
  int x0, y0, x1, y1;
};

// The window as Decoder::decode_window clamps it, for a w x h scaled image.
Rect clamped(Rect r, int w, int h) {
  r.x0 = std::clamp(r.x0, 0, w - 1);
  r.y0 = std::clamp(r.y0, 0, h - 1);
  r.x1 = std::clamp(r.x1, r.x0 + 1, w);
  r.y1 = std::clamp(r.y1, r.y0 + 1, h);
  return r;
}

// A window decode of a JPEG: it covers the clamped window, lies inside the image, and away from
// its edges (8 px) holds the whole decode's pixels.
void check_window(Decoder::Window at, const Image& win, Rect asked, const Image* whole, int w,
                  int h) {
  if (at.x0 == 0 && at.y0 == 0 && win.width() == w && win.height() == h) return;  // whole image
  const Rect c = clamped(asked, w, h);
  TF_CHECK(at.x0 >= 0 && at.y0 >= 0 && at.x0 + win.width() <= w && at.y0 + win.height() <= h)
      << "window at " << at.x0 << "," << at.y0 << " of " << win.width() << "x" << win.height()
      << " leaves the " << w << "x" << h << " image";
  TF_CHECK(at.x0 <= c.x0 && at.y0 <= c.y0 && at.x0 + win.width() >= c.x1 &&
           at.y0 + win.height() >= c.y1)
      << "window at " << at.x0 << "," << at.y0 << " of " << win.width() << "x" << win.height()
      << " does not cover [" << c.x0 << "," << c.x1 << ")x[" << c.y0 << "," << c.y1 << ")";
  if (!whole) return;
  for (int y = c.y0 + 8; y < c.y1 - 8; ++y) {
    const uint8_t* a = whole->data() + (static_cast<size_t>(y) * w + c.x0 + 8) * 3;
    const uint8_t* b =
        win.data() + (static_cast<size_t>(y - at.y0) * win.width() + c.x0 + 8 - at.x0) * 3;
    const int n = c.x1 - c.x0 - 16;
    if (n > 0)
      TF_CHECK(std::memcmp(a, b, static_cast<size_t>(n) * 3) == 0)
          << "window row " << y << " differs from a whole decode";
  }
}

}  // namespace

void decode_one_input(std::span<const uint8_t> input) {
  if (input.size() < kDecodeControlBytes) return;
  const uint8_t* control = input.data();
  const std::span<const uint8_t> file = input.subspan(kDecodeControlBytes);
  const int eighths = control[0] % 8 + 1;
  Decoder decoder(loader::DecodeOptions{.max_pixels = kFuzzMaxPixels});
  const Result<ImageInfo> info = decoder.read_info(file, "input");
  Image whole;
  const Status full = decoder.decode_eighths(file, "input", eighths, whole);
  int w = 64, h = 64;  // other formats: the size is known only after a decode
  if (info.has_value() && info->codec != ImageCodec::kOther)
    Decoder::eighths_size(*info, eighths, &w, &h);
  if (full.ok()) {
    TF_CHECK(whole.channels() == 3 && whole.width() > 0 && whole.height() > 0) << "empty decode";
    TF_CHECK(static_cast<int64_t>(whole.width()) * whole.height() <= kFuzzMaxPixels)
        << "decode over max_pixels";
    if (info.has_value() && info->codec != ImageCodec::kOther)
      TF_CHECK(whole.width() == w && whole.height() == h)
          << "decode of " << whole.width() << "x" << whole.height() << ", header says " << w << "x"
          << h;
    else
      w = whole.width(), h = whole.height();
  }
  const Rect asked{window_coord(control[1], w), window_coord(control[2], h),
                   window_coord(control[3], w), window_coord(control[4], h)};
  Image win;
  const Result<Decoder::Window> at =
      decoder.decode_window(file, "input", eighths, asked.x0, asked.y0, asked.x1, asked.y1, win);
  if (!at.has_value() || !info.has_value()) return;
  if (info->codec == ImageCodec::kJpeg && info->channels != 4) {
    check_window(*at, win, asked, full.ok() ? &whole : nullptr, w, h);
    // A window cut out at restart markers gives every byte that the decode of the whole file's
    // window gives, wherever that one decodes (damage left out of the cut may fail it alone).
    const Rect c = clamped(asked, w, h);
    if (c.x0 == 0 && c.y0 == 0 && c.x1 == w && c.y1 == h) return;
    Image ref;
    Decoder uncut(loader::DecodeOptions{.max_pixels = kFuzzMaxPixels, .restart_cuts = false});
    const auto plain = uncut.decode_window(file, "input", eighths, c.x0, c.y0, c.x1, c.y1, ref);
    if (!plain.has_value()) return;
    TF_CHECK(at->x0 == plain->x0 && at->y0 == plain->y0 && win.width() == ref.width() &&
             win.height() == ref.height())
        << "window at " << at->x0 << "," << at->y0 << " of " << win.width() << "x" << win.height()
        << ", without the restart cut at " << plain->x0 << "," << plain->y0 << " of " << ref.width()
        << "x" << ref.height();
    TF_CHECK(std::memcmp(win.data(), ref.data(), ref.size_bytes()) == 0)
        << "window bytes differ from those without the restart cut";
  } else {
    TF_CHECK(at->x0 == 0 && at->y0 == 0) << "a whole-image decode reported a window offset";
  }
}

}  // namespace textfeed::fuzz
