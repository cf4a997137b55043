// JPEGs with restart markers inside every MCU row, and the window cut that lets a decode read only
// the entropy-coded data of the MCUs a window covers: libjpeg's skip_scanlines and crop_scanline
// still Huffman-decode every MCU of every row up to the window's bottom, while each restart
// interval is decodable alone (the DC predictions start again at zero). `cache build
// --restart-rows` writes such JPEGs.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/image.h"
#include "base/status.h"

namespace textfeed::loader::internal {

// The restart interval (in MCUs) that `cache build --restart-rows` gives a JPEG whose MCU rows are
// `mcus_per_row` MCUs wide: the divisor of mcus_per_row in 2..16 nearest to 8 (128 pixels of a
// 4:2:0 JPEG), so that every interval lies inside one MCU row and every row starts one; a whole
// row where there is none (narrow images, prime widths).
int restart_interval_mcus(int mcus_per_row);

// Encodes an RGB image as a baseline 4:2:0 JPEG at `quality` (1..100) with a restart marker every
// `interval` MCUs (0: restart_interval_mcus of its width; a divisor of its MCUs per row otherwise).
// The DCT coefficients are those TurboJPEG's encoder gives at the same quality: only the
// entropy-coded segment is cut at the markers.
Status encode_jpeg_restart_rows(const Image& rgb, int quality, std::vector<uint8_t>& out,
                                int interval = 0);

// A JPEG of the part of a baseline JPEG that a window needs, made of the original's restart
// intervals without decoding them: its headers with the frame's size patched, then the intervals
// that cover the window's MCUs (and the MCU rows above and below it, which the chroma upsampling of
// its first and last rows reads) row by row, each followed by a renumbered restart marker, then
// EOI. Decoded, the part's pixels equal the original's at the same place (x_cut, y_cut to the left
// of and above it) away from its sides, and a window decode of the part with its crop's sides where
// they were gives the same bytes as one of the original. Only for JPEGs whose restart interval
// divides the MCUs of a row (as those of `cache build --restart-rows`, of today and of before,
// whose interval was a whole row).
struct RestartWindow {
  int x_cut = 0, y_cut = 0;   // full-size pixels left of and above the part
  int width = 0, height = 0;  // the part's frame, as its header says
  int interval = 0;           // its restart interval in MCUs (the original's)
  std::vector<uint8_t> jpeg;  // the part, a whole JPEG file
};
// [x0, x1) x [y0, y1): the window in full-size pixels. Returns false (leaving w.jpeg empty) when
// the JPEG has no such markers, is progressive, has headers the walk might read otherwise than
// libjpeg (markers without a length before SOS), is damaged before the window's last interval
// (markers out of sequence, the data cut short), or when the part would be the whole of what a
// decode reads anyway. Parts are at least 4 MCUs wide where the image is (libjpeg picks its chroma
// upsampling from the frame's width). Damage in the intervals a part leaves out goes unseen: it
// changes no pixel of the window (a cache record's checksum covers its whole JPEG). w.jpeg's buffer
// is reused: at most the size of the largest JPEG cut and two bytes.
bool cut_restart_window(std::span<const uint8_t> jpeg, int x0, int y0, int x1, int y1,
                        RestartWindow& w);

}  // namespace textfeed::loader::internal
