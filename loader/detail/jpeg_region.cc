// decode_jpeg_window: jpeg_crop_scanline + jpeg_skip_scanlines + jpeg_read_scanlines, errors by
// longjmp out of libjpeg (nothing with a destructor lives in the frame that setjmp marks).
#include "loader/detail/jpeg_region.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <string>

#include <jpeglib.h>
// jpeglib.h first: jerror.h uses its types.
#include <jerror.h>

#include "loader/detail/jpeg_error.h"
#include "loader/detail/jpeg_restart.h"

namespace textfeed::loader::internal {

namespace {

// A source of two pieces: a cut's patched headers, then its entropy-coded data (no copy of it).
struct TwoPieceSource {
  jpeg_source_mgr pub;
  std::span<const uint8_t> pieces[2];
  int next = 0;
};

extern "C" void two_piece_init(j_decompress_ptr) {}
extern "C" boolean two_piece_fill(j_decompress_ptr cinfo) {
  auto* s = reinterpret_cast<TwoPieceSource*>(cinfo->src);
  if (s->next < 2) {
    s->pub.next_input_byte = s->pieces[s->next].data();
    s->pub.bytes_in_buffer = s->pieces[s->next].size();
    ++s->next;
    return TRUE;
  }
  // Past the end: what jpeg_mem_src does (a warning, here an error, then an EOI).
  static const JOCTET eoi[2] = {0xFF, JPEG_EOI};
  WARNMS(cinfo, JWRN_JPEG_EOF);
  s->pub.next_input_byte = eoi;
  s->pub.bytes_in_buffer = 2;
  return TRUE;
}
extern "C" void two_piece_skip(j_decompress_ptr cinfo, long count) {
  while (count > 0) {
    if (cinfo->src->bytes_in_buffer == 0) (*cinfo->src->fill_input_buffer)(cinfo);
    const size_t step = std::min<size_t>(static_cast<size_t>(count), cinfo->src->bytes_in_buffer);
    cinfo->src->next_input_byte += step;
    cinfo->src->bytes_in_buffer -= step;
    count -= static_cast<long>(step);
  }
}
extern "C" void two_piece_term(j_decompress_ptr) {}

}  // namespace

Result<JpegWindow> decode_jpeg_window(std::span<const uint8_t> bytes, std::string_view name, int eighths,
                                      int x0, int y0, int x1, int y1, Image& out) {
  if (eighths < 1 || eighths > 8 || x0 < 0 || y0 < 0 || x1 <= x0 || y1 <= y0)
    return Status::invalid_argument(std::string(name) + ": bad JPEG window");
  // A JPEG with a restart marker per MCU row starts at the last cut above the window: the rows
  // above it are not even entropy-decoded. Rows then count from the cut (at eighths / 8 scale).
  thread_local RestartCut cut;
  const int cut_rows = y0 > 0 && find_restart_cut(bytes, y0 * 8 / eighths, cut) ? cut.rows_cut * eighths / 8 : 0;
  const int top = y0 - cut_rows, bottom = y1 - cut_rows;
  TwoPieceSource pieces;
  pieces.pub.init_source = two_piece_init;
  pieces.pub.fill_input_buffer = two_piece_fill;
  pieces.pub.skip_input_data = two_piece_skip;
  pieces.pub.resync_to_restart = jpeg_resync_to_restart;
  pieces.pub.term_source = two_piece_term;
  pieces.pub.bytes_in_buffer = 0;
  pieces.pub.next_input_byte = nullptr;
  pieces.pieces[0] = cut.header;
  pieces.pieces[1] = cut.data;
  jpeg_decompress_struct cinfo;
  JpegErrorManager err;
  install_jpeg_errors(cinfo, err, true);
  JDIMENSION xoff = static_cast<JDIMENSION>(x0), width = static_cast<JDIMENSION>(x1 - x0);
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return Status::corrupt(std::string(name) + ": JPEG decode failed: " + err.message);
  }
  jpeg_create_decompress(&cinfo);
  if (cut_rows > 0)
    cinfo.src = &pieces.pub;
  else
    jpeg_mem_src(&cinfo, bytes.data(), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&cinfo);
    return Status::invalid_argument(std::string(name) + ": a CMYK JPEG has no window decode");
  }
  cinfo.scale_num = static_cast<unsigned>(eighths);
  cinfo.scale_denom = 8;
  cinfo.out_color_space = JCS_RGB;
  cinfo.dct_method = JDCT_ISLOW;  // TurboJPEG's default: the same pixels as a whole decode
  jpeg_start_decompress(&cinfo);
  if (static_cast<JDIMENSION>(x1) > cinfo.output_width || static_cast<JDIMENSION>(bottom) > cinfo.output_height) {
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
  return JpegWindow{static_cast<int>(xoff), y0};
}

}  // namespace textfeed::loader::internal
