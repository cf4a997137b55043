// Decoding only a window of a JPEG, through libjpeg's scanline API: rows above the window are
// skipped (entropy-decoded only), rows below it never read, columns outside it cropped before the
// inverse DCT. A crop that reads a third of a page then pays for little more than that third. In a
// JPEG with restart markers inside its rows (`cache build --restart-rows`), only the restart
// intervals that cover the window are entropy-decoded (loader/decode/detail/jpeg_restart.h).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/image.h"
#include "base/status.h"

namespace textfeed::loader::internal {

// A window of a JPEG decoded at eighths/8 scale, in that scaled image's pixel coordinates.
struct JpegWindow {
  int x0 = 0, y0 = 0;  // where `out` starts (x0 may be left of the one asked for: iMCU-aligned)
};

// Decodes rows [y0, y1) and at least columns [x0, x1) of the image scaled by eighths/8 (1..8) to
// RGB into `out` (reshaped). Grayscale and YCbCr JPEGs only (not CMYK/YCCK). Pixels equal a whole
// decode's except within a few pixels of the window's edges (chroma upsampling there sees the
// window, not the image); with or without restart markers, the same bytes. Warnings (truncated
// data) are errors, as with TJFLAG_STOPONWARNING. Errors: kCorrupt naming `name`, kInvalidArgument
// (an empty or out-of-range window).
// allow_cut false (DecodeOptions::restart_cuts): never from a part, the reference for the same
// bytes in the tests and the decode fuzzer.
Result<JpegWindow> decode_jpeg_window(std::span<const uint8_t> bytes, std::string_view name,
                                      int eighths, int x0, int y0, int x1, int y1, Image& out,
                                      bool allow_cut = true);

}  // namespace textfeed::loader::internal
