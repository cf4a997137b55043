// encode_jpeg_restart_rows through libjpeg's compressor (TurboJPEG's API has no restart interval);
// find_restart_cut by walking the markers of the file.
#include "loader/detail/jpeg_restart.h"

#include <jpeglib.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <string>

#include "loader/detail/jpeg_error.h"

namespace textfeed::loader::internal {
namespace {

int be16(const uint8_t* p) { return (p[0] << 8) | p[1]; }

// libjpeg's output straight into the caller's vector (which lives outside the frame that setjmp
// marks, so nothing there changes between setjmp and a longjmp).
struct VectorDest {
  jpeg_destination_mgr pub;
  std::vector<uint8_t>* out;
};

extern "C" void vector_dest_init(j_compress_ptr cinfo) {
  auto* d = reinterpret_cast<VectorDest*>(cinfo->dest);
  d->out->resize(std::max<size_t>(d->out->capacity(), 1 << 16));
  d->pub.next_output_byte = d->out->data();
  d->pub.free_in_buffer = d->out->size();
}

extern "C" boolean vector_dest_grow(j_compress_ptr cinfo) {  // the buffer is full: double it
  auto* d = reinterpret_cast<VectorDest*>(cinfo->dest);
  const size_t used = d->out->size();
  d->out->resize(used * 2);
  d->pub.next_output_byte = d->out->data() + used;
  d->pub.free_in_buffer = d->out->size() - used;
  return TRUE;
}

extern "C" void vector_dest_term(j_compress_ptr cinfo) {
  auto* d = reinterpret_cast<VectorDest*>(cinfo->dest);
  d->out->resize(d->out->size() - d->pub.free_in_buffer);
}

}  // namespace

Status encode_jpeg_restart_rows(const Image& rgb, int quality, std::vector<uint8_t>& out) {
  if (rgb.channels() != 3 || rgb.width() < 1 || rgb.height() < 1 || quality < 1 || quality > 100)
    return Status::invalid_argument("restart-row JPEG: an RGB image and a quality in 1..100");
  jpeg_compress_struct cinfo;
  JpegErrorManager err;
  install_jpeg_errors(cinfo, err, false);
  VectorDest dest{{}, &out};
  dest.pub.init_destination = vector_dest_init;
  dest.pub.empty_output_buffer = vector_dest_grow;
  dest.pub.term_destination = vector_dest_term;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    out.clear();
    return Status::internal(std::string("JPEG encode failed: ") + err.message);
  }
  jpeg_create_compress(&cinfo);
  cinfo.dest = &dest.pub;
  cinfo.image_width = static_cast<JDIMENSION>(rgb.width());
  cinfo.image_height = static_cast<JDIMENSION>(rgb.height());
  cinfo.input_components = 3;
  cinfo.in_color_space = JCS_RGB;
  jpeg_set_defaults(&cinfo);  // YCbCr 4:2:0, baseline: TurboJPEG's TJSAMP_420
  jpeg_set_quality(&cinfo, quality, TRUE);
  // TurboJPEG's forward DCT: the fast integer one below quality 96, the accurate one from 96 on.
  cinfo.dct_method = quality >= 96 ? JDCT_ISLOW : JDCT_FASTEST;
  cinfo.restart_in_rows = 1;
  jpeg_start_compress(&cinfo, TRUE);
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(rgb.data()) +
                   static_cast<size_t>(cinfo.next_scanline) * rgb.stride_bytes();
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  return Status();
}

bool find_restart_cut(std::span<const uint8_t> jpeg, int row, RestartCut& cut) {
  cut.rows_cut = 0;
  const uint8_t* b = jpeg.data();
  const size_t n = jpeg.size();
  if (n < 4 || b[0] != 0xFF || b[1] != 0xD8) return false;
  // Walk the segments up to SOS: a baseline or extended sequential frame, and its restart interval.
  size_t i = 2, sof = 0, data = 0;
  int height = 0, width = 0, max_h = 0, max_v = 0, interval = 0, components = 0;
  while (i + 4 <= n) {
    if (b[i] != 0xFF) return false;
    const int marker = b[i + 1];
    if (marker == 0xFF) {  // fill byte
      ++i;
      continue;
    }
    const size_t len = static_cast<size_t>(be16(b + i + 2));
    if (len < 2 || i + 2 + len > n) return false;
    const uint8_t* seg = b + i + 4;
    if (marker == 0xC0 || marker == 0xC1) {
      if (len < 8) return false;
      sof = i;
      height = be16(seg + 1), width = be16(seg + 3), components = seg[5];
      if (components < 1 || len < 8 + 3 * static_cast<size_t>(components)) return false;
      for (int c = 0; c < components; ++c) {
        max_h = std::max(max_h, seg[6 + 3 * c + 1] >> 4);
        max_v = std::max(max_v, seg[6 + 3 * c + 1] & 15);
      }
    } else if ((marker >= 0xC2 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
                marker != 0xCC)) {
      return false;  // progressive, lossless, arithmetic: not cut
    } else if (marker == 0xDD) {
      if (len < 4) return false;
      interval = be16(seg);
    } else if (marker == 0xDA) {
      if (len < 3 || seg[0] != components) return false;  // one scan holding every component
      data = i + 2 + len;
      break;
    }
    i += 2 + len;
  }
  if (!sof || !data || height < 1 || width < 1 || max_h < 1 || max_v < 1) return false;
  const int mcu_w = 8 * max_h, mcu_h = 8 * max_v;
  const int mcus_per_row = (width + mcu_w - 1) / mcu_w;
  if (interval != mcus_per_row) return false;
  // The cut: a multiple of 8 MCU rows at or above `row`, so that interval k starts after RST7.
  const int k = (row / mcu_h) / 8 * 8;
  if (k < 8 || k * mcu_h >= height) return false;
  // The k-th restart marker (counting from 1) in the entropy-coded data.
  const uint8_t* p = b + data;
  const uint8_t* end = b + n;
  int seen = 0;
  while (p + 1 < end) {
    p = static_cast<const uint8_t*>(std::memchr(p, 0xFF, static_cast<size_t>(end - p)));
    if (!p || p + 1 >= end) return false;
    const uint8_t m = p[1];
    if (m == 0x00 || m == 0xFF) {  // a stuffed 0xFF, or fill
      p += m == 0x00 ? 2 : 1;
      continue;
    }
    if (m < 0xD0 || m > 0xD7) return false;   // EOI or another marker before the k-th restart
    if ((m & 7) != (seen & 7)) return false;  // markers out of sequence: not ours to trust
    if (++seen == k) {
      cut.data = std::span<const uint8_t>(p + 2, static_cast<size_t>(end - (p + 2)));
      break;
    }
    p += 2;
  }
  if (seen != k) return false;
  cut.header.assign(b, b + data);
  const int rest = height - k * mcu_h;
  cut.header[sof + 5] = static_cast<uint8_t>(rest >> 8);
  cut.header[sof + 6] = static_cast<uint8_t>(rest & 0xFF);
  cut.rows_cut = k * mcu_h;
  return true;
}

}  // namespace textfeed::loader::internal
