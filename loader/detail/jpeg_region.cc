// decode_jpeg_window: jpeg_crop_scanline + jpeg_skip_scanlines + jpeg_read_scanlines, errors by
// longjmp out of libjpeg (nothing with a destructor lives in the frame that setjmp marks).
#include "loader/detail/jpeg_region.h"

#include <csetjmp>
#include <cstdio>
#include <string>

#include <jpeglib.h>

namespace textfeed::loader::internal {

namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

extern "C" void on_error(j_common_ptr cinfo) {
  auto* e = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, e->message);
  std::longjmp(e->jump, 1);
}

extern "C" void on_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;  // trace messages
  // A warning: libjpeg would pad damaged data with grey and go on; a training sample is corrupt.
  on_error(cinfo);
}

}  // namespace

Result<JpegWindow> decode_jpeg_window(std::span<const uint8_t> bytes, std::string_view name, int eighths,
                                      int x0, int y0, int x1, int y1, Image& out) {
  if (eighths < 1 || eighths > 8 || x0 < 0 || y0 < 0 || x1 <= x0 || y1 <= y0)
    return Status::invalid_argument(std::string(name) + ": bad JPEG window");
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  cinfo.err = jpeg_std_error(&err.pub);
  err.pub.error_exit = on_error;
  err.pub.emit_message = on_message;
  err.message[0] = '\0';
  JDIMENSION xoff = static_cast<JDIMENSION>(x0), width = static_cast<JDIMENSION>(x1 - x0);
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return Status::corrupt(std::string(name) + ": JPEG decode failed: " + err.message);
  }
  jpeg_create_decompress(&cinfo);
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
  if (static_cast<JDIMENSION>(x1) > cinfo.output_width || static_cast<JDIMENSION>(y1) > cinfo.output_height) {
    jpeg_destroy_decompress(&cinfo);
    return Status::invalid_argument(std::string(name) + ": JPEG window outside the image");
  }
  if (xoff > 0 || width < cinfo.output_width) jpeg_crop_scanline(&cinfo, &xoff, &width);
  if (y0 > 0) jpeg_skip_scanlines(&cinfo, static_cast<JDIMENSION>(y0));
  out.reset(y1 - y0, static_cast<int>(width), 3);
  while (cinfo.output_scanline < static_cast<JDIMENSION>(y1)) {
    JSAMPROW row = out.data() + static_cast<size_t>(cinfo.output_scanline - y0) * width * 3;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  // Rows below the window are never decoded.
  jpeg_abort_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return JpegWindow{static_cast<int>(xoff), y0};
}

}  // namespace textfeed::loader::internal
