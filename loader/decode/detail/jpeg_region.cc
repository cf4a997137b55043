// decode_jpeg_window: jpeg_crop_scanline + jpeg_skip_scanlines + jpeg_read_scanlines (of the part
// of a restart-marked JPEG that the window needs, where it has one), errors by longjmp out of
// libjpeg (nothing with a destructor lives in the frame that setjmp marks).
#include "loader/decode/detail/jpeg_region.h"

#include <jpeglib.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <string>
// jpeglib.h first: jerror.h uses its types.
#include <jerror.h>

#include "loader/decode/detail/jpeg_error.h"
#include "loader/decode/detail/jpeg_restart.h"

namespace textfeed::loader::internal {

namespace {

// What a window decode reads: the part of a JPEG with restart markers in its rows (cache build
// --restart-rows writes them, and some cameras) that the window needs, cut out of it at the
// markers, so that the MCUs above and beside the window are not even entropy-decoded; else the
// whole file. Coordinates in the part are the window's less its cut (at e/8 scale; the cuts are
// whole MCUs, multiples of 8 full-size pixels, so they scale exactly).
struct WindowSource {
  std::span<const uint8_t> file;
  const RestartWindow* part = nullptr;  // null: the whole file
  int cut_x = 0, cut_y = 0;             // pixels (at e/8 scale) left of and above `file`
};

// The part lives in a thread_local buffer: it is valid until the thread's next call.
WindowSource window_source(std::span<const uint8_t> bytes, int eighths, int x0, int y0, int x1,
                           int y1, bool allow_cut) {
  thread_local RestartWindow part;
  const bool cut = allow_cut && cut_restart_window(bytes, x0 * 8 / eighths, y0 * 8 / eighths,
                                                   (x1 * 8 + eighths - 1) / eighths,
                                                   (y1 * 8 + eighths - 1) / eighths, part);
  if (!cut) return {bytes};
  return {part.jpeg, &part, part.x_cut * eighths / 8, part.y_cut * eighths / 8};
}

// Reads rows [top, bottom) and at least columns [x0, x1) of `src.file` (its own coordinates) into
// `out`; returns the column where `out` starts. libjpeg's errors longjmp to this frame, which
// holds nothing with a destructor.
Result<int> read_window(const WindowSource& src, std::string_view name, int eighths, int x0,
                        int top, int x1, int bottom, Image& out) {
  jpeg_decompress_struct cinfo;
  JpegErrorManager err;
  install_jpeg_errors(cinfo, err, true);
  JDIMENSION xoff = static_cast<JDIMENSION>(x0), width = static_cast<JDIMENSION>(x1 - x0);
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return Status::corrupt(std::string(name) + ": JPEG decode failed: " + err.message);
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, src.file.data(), static_cast<unsigned long>(src.file.size()));
  jpeg_read_header(&cinfo, TRUE);
  // The part's headers as libjpeg reads them must be those the cut was made for.
  if (src.part && (cinfo.image_width != static_cast<JDIMENSION>(src.part->width) ||
                   cinfo.image_height != static_cast<JDIMENSION>(src.part->height) ||
                   cinfo.restart_interval != static_cast<unsigned>(src.part->interval))) {
    jpeg_destroy_decompress(&cinfo);
    return Status::corrupt(std::string(name) +
                           ": JPEG headers that read two ways (frame or restart interval)");
  }
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&cinfo);
    return Status::invalid_argument(std::string(name) + ": a CMYK JPEG has no window decode");
  }
  cinfo.scale_num = static_cast<unsigned>(eighths);
  cinfo.scale_denom = 8;
  cinfo.out_color_space = JCS_RGB;
  cinfo.dct_method = JDCT_ISLOW;  // TurboJPEG's default: the same pixels as a whole decode
  jpeg_start_decompress(&cinfo);
  if (static_cast<JDIMENSION>(x1) > cinfo.output_width ||
      static_cast<JDIMENSION>(bottom) > cinfo.output_height) {
    jpeg_destroy_decompress(&cinfo);
    return Status::invalid_argument(std::string(name) + ": JPEG window outside the image");
  }
  if (xoff > 0 || width < cinfo.output_width) jpeg_crop_scanline(&cinfo, &xoff, &width);
  if (top > 0) jpeg_skip_scanlines(&cinfo, static_cast<JDIMENSION>(top));
  out.reset(bottom - top, static_cast<int>(width), 3);
  while (cinfo.output_scanline < static_cast<JDIMENSION>(bottom)) {
    JSAMPROW row = out.data() + static_cast<size_t>(cinfo.output_scanline - top) * width * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  // Rows below the window are never decoded.
  jpeg_abort_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return static_cast<int>(xoff);
}

}  // namespace

Result<JpegWindow> decode_jpeg_window(std::span<const uint8_t> bytes, std::string_view name,
                                      int eighths, int x0, int y0, int x1, int y1, Image& out,
                                      bool allow_cut) {
  if (eighths < 1 || eighths > 8 || x0 < 0 || y0 < 0 || x1 <= x0 || y1 <= y0)
    return Status::invalid_argument(std::string(name) + ": bad JPEG window");
  const WindowSource src = window_source(bytes, eighths, x0, y0, x1, y1, allow_cut);
  TF_ASSIGN_OR_RETURN(const int xoff,
                      read_window(src, name, eighths, x0 - src.cut_x, y0 - src.cut_y,
                                  x1 - src.cut_x, y1 - src.cut_y, out));
  return JpegWindow{xoff + src.cut_x, y0};
}

}  // namespace textfeed::loader::internal
