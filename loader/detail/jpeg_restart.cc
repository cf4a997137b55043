// encode_jpeg_restart_rows through libjpeg's compressor (TurboJPEG's API has no restart interval);
// cut_restart_window by walking the markers of the file.
#include "loader/detail/jpeg_restart.h"

#include <jpeglib.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
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

// The encode itself, `every` checked (a function of its own: no argument of the caller lives in the
// frame that setjmp marks).
Status encode_with_interval(const Image& rgb, int quality, int every, std::vector<uint8_t>& out) {
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
  cinfo.restart_interval = static_cast<unsigned>(every);
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

}  // namespace

int restart_interval_mcus(int mcus_per_row) {
  int best = mcus_per_row;
  for (int d = 2; d <= 16 && d < mcus_per_row; ++d)
    if (mcus_per_row % d == 0 && (best == mcus_per_row || std::abs(d - 8) < std::abs(best - 8)))
      best = d;
  return std::max(best, 1);
}

Status encode_jpeg_restart_rows(const Image& rgb, int quality, std::vector<uint8_t>& out,
                                int interval) {
  if (rgb.channels() != 3 || rgb.width() < 1 || rgb.height() < 1 || quality < 1 || quality > 100)
    return Status::invalid_argument("restart-row JPEG: an RGB image and a quality in 1..100");
  const int mcus_per_row = (rgb.width() + 15) / 16;  // 4:2:0: MCUs of 16x16 pixels
  const int every = interval == 0 ? restart_interval_mcus(mcus_per_row) : interval;
  if (every < 1 || mcus_per_row % every != 0)
    return Status::invalid_argument("restart-row JPEG: a restart interval of " +
                                    std::to_string(every) + " MCUs does not divide the " +
                                    std::to_string(mcus_per_row) + " MCUs of a row");
  return encode_with_interval(rgb, quality, every, out);
}

bool cut_restart_window(std::span<const uint8_t> jpeg, int x0, int y0, int x1, int y1,
                        RestartWindow& w) {
  w.jpeg.clear();
  w.x_cut = w.y_cut = w.width = w.height = w.interval = 0;
  const uint8_t* b = jpeg.data();
  const size_t n = jpeg.size();
  if (n < 4 || n >= (size_t{1} << 32) || b[0] != 0xFF || b[1] != 0xD8) return false;
  if (x0 < 0 || y0 < 0 || x1 <= x0 || y1 <= y0 || x1 > 65535 || y1 > 65535) return false;
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
    // Markers without a length (RSTn, TEM; SOI, EOI) are not read as libjpeg reads them: were a
    // length read there, the walk could see another restart interval or frame than the decoder.
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD9)) return false;
    const size_t len = static_cast<size_t>(be16(b + i + 2));
    if (len < 2 || i + 2 + len > n) return false;
    const uint8_t* seg = b + i + 4;
    if (marker == 0xC0 || marker == 0xC1) {
      if (len < 8 || sof) return false;
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
  if (!sof || !data || height < 1 || width < 1 || max_h < 1 || max_v < 1 || max_h > 4 || max_v > 4)
    return false;
  // A scan of one component has MCUs of one 8x8 block; an interleaved one, of the largest factors.
  const int mcu_w = components == 1 ? 8 : 8 * max_h, mcu_h = components == 1 ? 8 : 8 * max_v;
  const int mcus_per_row = (width + mcu_w - 1) / mcu_w, mcu_rows = (height + mcu_h - 1) / mcu_h;
  if (interval < 1 || mcus_per_row % interval != 0) return false;
  const int per_row = mcus_per_row / interval;  // intervals in an MCU row
  // The window's MCUs, and the MCU rows above and below it, which the chroma upsampling of its
  // first and last rows reads (across the scan, the skip before the window and the rows after it
  // see them too). Its columns need none: libjpeg's crop stops the upsampling at the window's sides
  // with or without the image beyond. Then the intervals holding them.
  const int mx0 = x0 / mcu_w, mx1 = std::min(mcus_per_row, (x1 + mcu_w - 1) / mcu_w);
  const int my0 = std::max(0, y0 / mcu_h - 1),
            my1 = std::min(mcu_rows, (y1 + mcu_h - 1) / mcu_h + 1);
  if (mx1 <= mx0 || my1 <= my0) return false;
  int s0 = mx0 / interval, s1 = (mx1 + interval - 1) / interval;
  // At least 4 MCUs wide where the image is: libjpeg picks its chroma upsampling from the frame's
  // width (a simple one for 2 samples and fewer), and the part's must be the image's.
  while ((s1 - s0) * interval < 4 && (s0 > 0 || s1 < per_row)) s1 < per_row ? ++s1 : --s0;
  if (my0 == 0 && s0 == 0 && s1 == per_row) return false;  // the part would be what a decode reads
  // The part, made while the markers are found: the headers, then each needed interval (interval
  // g, counting from 0 over the whole scan, follows the g-th marker, which must be RST(g - 1 mod
  // 8)), each after the first behind a renumbered marker, then EOI; the frame's size patched last.
  const int64_t last = int64_t{my1 - 1} * per_row + s1 - 1;
  w.jpeg.assign(b, b + data);
  const auto refuse = [&w] {
    w.jpeg.clear();
    return false;
  };
  const uint8_t* p = b + data;
  const uint8_t* end = b + n;
  const uint8_t* start = p;
  int64_t g = 0, kept = 0;
  for (;;) {
    const uint8_t* q =
        static_cast<const uint8_t*>(std::memchr(p, 0xFF, static_cast<size_t>(end - p)));
    if (!q || q + 1 >= end) return refuse();  // the data ends inside the window's intervals
    const uint8_t m = q[1];
    if (m == 0x00 || m == 0xFF) {  // a stuffed 0xFF, or fill
      p = q + (m == 0x00 ? 2 : 1);
      continue;
    }
    const int row = static_cast<int>(g / per_row), s = static_cast<int>(g % per_row);
    if (row >= my0 && s >= s0 && s < s1) {
      if (kept > 0) {
        w.jpeg.push_back(0xFF);
        w.jpeg.push_back(static_cast<uint8_t>(0xD0 + ((kept - 1) & 7)));
      }
      w.jpeg.insert(w.jpeg.end(), start, q);
      ++kept;
    }
    if (g == last) break;                       // whatever marker ends it (RST or EOI)
    if (m < 0xD0 || m > 0xD7) return refuse();  // EOI or another marker before the window's end
    if ((m & 7) != (g & 7)) return refuse();    // markers out of sequence: not ours to trust
    ++g;
    start = p = q + 2;
  }
  w.jpeg.push_back(0xFF);
  w.jpeg.push_back(0xD9);
  const int part_w = std::min(width - s0 * interval * mcu_w, (s1 - s0) * interval * mcu_w);
  const int part_h = std::min(height - my0 * mcu_h, (my1 - my0) * mcu_h);
  w.jpeg[sof + 5] = static_cast<uint8_t>(part_h >> 8);
  w.jpeg[sof + 6] = static_cast<uint8_t>(part_h & 0xFF);
  w.jpeg[sof + 7] = static_cast<uint8_t>(part_w >> 8);
  w.jpeg[sof + 8] = static_cast<uint8_t>(part_w & 0xFF);
  w.x_cut = s0 * interval * mcu_w;
  w.y_cut = my0 * mcu_h;
  w.width = part_w, w.height = part_h, w.interval = interval;
  return true;
}

}  // namespace textfeed::loader::internal
