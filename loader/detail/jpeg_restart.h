// JPEGs with a restart marker after every MCU row, and the cut that lets a window decode start at
// one of them: the rows above are then not entropy-decoded at all (libjpeg's skip_scanlines still
// decodes the Huffman data of every row it skips). `cache build --restart-rows` writes such JPEGs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/image.h"
#include "base/status.h"

namespace textfeed::loader::internal {

// Encodes an RGB image as a baseline 4:2:0 JPEG at `quality` (1..100) with a restart interval of
// one MCU row (16 pixel rows). The DCT coefficients are those TurboJPEG's encoder gives at the same
// quality: only the entropy-coded segment is cut at the markers.
Status encode_jpeg_restart_rows(const Image& rgb, int quality, std::vector<uint8_t>& out);

// Where a baseline JPEG whose restart interval is one MCU row may start decoding for a window from
// full-size row `row`: its headers with the frame's height lowered by `rows_cut` (full-size rows, a
// multiple of 8 MCU rows, so that the first marker after the cut is RST0 as a decoder expects),
// and the entropy-coded data from that row on. Not for a JPEG without such markers, a progressive
// one, or a row within the first 8 MCU rows.
struct RestartCut {
  int rows_cut = 0;               // full-size rows above the cut
  std::vector<uint8_t> header;    // SOI .. SOS, the frame's height patched
  std::span<const uint8_t> data;  // the entropy-coded data from the cut to the end of the file
};
// cut.header's buffer is reused; returns false (rows_cut 0) when the JPEG cannot be cut there.
bool find_restart_cut(std::span<const uint8_t> jpeg, int row, RestartCut& cut);

}  // namespace textfeed::loader::internal
