// encode_jpeg_restart_rows through libjpeg's compressor (TurboJPEG's API has no restart interval);
// cut_restart_window by walking the file's headers (jpeg_segments.h), then the markers of its
// entropy-coded data.
#include "loader/decode/detail/jpeg_restart.h"

#include <jpeglib.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "loader/decode/detail/jpeg_error.h"
#include "loader/decode/detail/jpeg_segments.h"

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

// A JPEG's smallest possible size (SOI, then a marker), the size from which a cut is not tried
// (its offsets are 32-bit), and the largest side a frame header holds.
constexpr size_t kMinJpegBytes = 4;
constexpr size_t kMaxCutJpegBytes = size_t{1} << 32;
constexpr int kMaxJpegSide = 65535;
// The widest and tallest MCU: sampling factors are 1..4, of 8x8 blocks.
constexpr int kMaxSamplingFactor = 4;
constexpr int kBlockSide = 8;
// The fewest MCUs a part spans where the image is that wide: libjpeg picks its chroma upsampling
// from the frame's width (a simple one for 2 samples and fewer), and the part's must be the
// image's.
constexpr int kMinPartMcus = 4;
// SOF's payload: precision, height, width, component count, then 3 bytes per component (id,
// sampling factors, table), the factors' byte being horizontal << 4 | vertical.
constexpr size_t kSofFixedBytes = 6;
constexpr size_t kSofComponentBytes = 3;

// What a cut needs of a JPEG's headers.
struct ScanHeaders {
  size_t sof = 0;   // offset of the SOF marker, whose frame size the part patches
  size_t data = 0;  // offset of the entropy-coded data after SOS
  int width = 0, height = 0, components = 0;
  int max_h = 0, max_v = 0;  // the largest sampling factors
  int interval = 0;          // DRI's restart interval in MCUs, 0 without one
};

// Reads a baseline or extended sequential frame header at `seg` into h; false for one that is too
// short, or a second frame.
bool read_frame(const JpegSegment& seg, ScanHeaders& h) {
  const std::span<const uint8_t> p = seg.payload;
  if (p.size() < kSofFixedBytes || h.sof) return false;
  h.sof = seg.offset;
  h.height = be16(&p[1]), h.width = be16(&p[3]), h.components = p[5];
  if (h.components < 1 || p.size() < kSofFixedBytes + kSofComponentBytes * h.components)
    return false;
  for (int c = 0; c < h.components; ++c) {
    const uint8_t factors = p[kSofFixedBytes + kSofComponentBytes * c + 1];
    h.max_h = std::max(h.max_h, factors >> 4);
    h.max_v = std::max(h.max_v, factors & 15);
  }
  return true;
}

// Progressive, lossless, hierarchical and arithmetic-coded frames: not cut.
bool other_frame(uint8_t m) {
  return m >= kJpegSof2 && m <= kJpegSof15 && m != kJpegDht && m != kJpegJpg && m != kJpegDac;
}

// The headers up to SOS of a baseline or extended sequential JPEG with one scan holding every
// component; nullopt for any other, and for headers the walk refuses. Markers without a length
// (RSTn, TEM; SOI, EOI) are not read as libjpeg reads them: were a length read there, the walk
// could see another restart interval or frame than the decoder.
std::optional<ScanHeaders> read_scan_headers(std::span<const uint8_t> jpeg) {
  ScanHeaders h;
  JpegSegmentWalker walk(jpeg, "");
  for (;;) {
    const Result<JpegSegment> seg = walk.next();
    if (!seg.has_value() || !jpeg_marker_has_length(seg->marker)) return std::nullopt;
    const uint8_t m = seg->marker;
    const std::span<const uint8_t> p = seg->payload;
    if (m == kJpegSof0 || m == kJpegSof1) {
      if (!read_frame(*seg, h)) return std::nullopt;
    } else if (other_frame(m)) {
      return std::nullopt;
    } else if (m == kJpegDri) {
      if (p.size() < 2) return std::nullopt;
      h.interval = be16(p.data());
    } else if (m == kJpegSos) {
      if (p.empty() || p[0] != h.components) return std::nullopt;  // one scan, every component
      h.data = seg->end;
      break;
    }
  }
  if (!h.sof || h.height < 1 || h.width < 1 || h.max_h < 1 || h.max_v < 1 ||
      h.max_h > kMaxSamplingFactor || h.max_v > kMaxSamplingFactor)
    return std::nullopt;
  return h;
}

// The MCU grid of a scan, and the part of it a window needs.
struct CutPlan {
  int mcu_w = 0, mcu_h = 0;  // an MCU's size in full-size pixels
  int interval = 0;          // the restart interval in MCUs
  int per_row = 0;           // restart intervals in an MCU row
  int my0 = 0, my1 = 0;      // the part's MCU rows [my0, my1)
  int s0 = 0, s1 = 0;        // and the intervals [s0, s1) of each row that it keeps
};

// The part a window [x0, x1) x [y0, y1) needs; nullopt when the restart interval does not divide
// an MCU row, or when the part would be what a decode reads anyway.
std::optional<CutPlan> plan_cut(const ScanHeaders& h, int x0, int y0, int x1, int y1) {
  CutPlan c;
  // A scan of one component has MCUs of one 8x8 block; an interleaved one, of the largest factors.
  c.mcu_w = h.components == 1 ? kBlockSide : kBlockSide * h.max_h;
  c.mcu_h = h.components == 1 ? kBlockSide : kBlockSide * h.max_v;
  const int mcus_per_row = (h.width + c.mcu_w - 1) / c.mcu_w;
  const int mcu_rows = (h.height + c.mcu_h - 1) / c.mcu_h;
  if (h.interval < 1 || mcus_per_row % h.interval != 0) return std::nullopt;
  c.interval = h.interval;
  c.per_row = mcus_per_row / c.interval;
  // The window's MCUs, and the MCU rows above and below it, which the chroma upsampling of its
  // first and last rows reads (across the scan, the skip before the window and the rows after it
  // see them too). Its columns need none: libjpeg's crop stops the upsampling at the window's sides
  // with or without the image beyond. Then the intervals holding them.
  const int mx0 = x0 / c.mcu_w, mx1 = std::min(mcus_per_row, (x1 + c.mcu_w - 1) / c.mcu_w);
  c.my0 = std::max(0, y0 / c.mcu_h - 1);
  c.my1 = std::min(mcu_rows, (y1 + c.mcu_h - 1) / c.mcu_h + 1);
  if (mx1 <= mx0 || c.my1 <= c.my0) return std::nullopt;
  c.s0 = mx0 / c.interval, c.s1 = (mx1 + c.interval - 1) / c.interval;
  while ((c.s1 - c.s0) * c.interval < kMinPartMcus && (c.s0 > 0 || c.s1 < c.per_row))
    c.s1 < c.per_row ? ++c.s1 : --c.s0;
  if (c.my0 == 0 && c.s0 == 0 && c.s1 == c.per_row) return std::nullopt;  // what a decode reads
  return c;
}

// Appends to `out` the intervals of the part, found by walking the entropy-coded data from `data`
// (interval g, counting from 0 over the whole scan, follows the g-th marker, which must be
// RST(g - 1 mod 8)), each after the first behind a renumbered marker. False when the data ends,
// or another marker or one out of sequence comes, before the part's last interval.
bool copy_intervals(std::span<const uint8_t> jpeg, size_t data, const CutPlan& c,
                    std::vector<uint8_t>& out) {
  const int64_t last = int64_t{c.my1 - 1} * c.per_row + c.s1 - 1;
  const uint8_t* p = jpeg.data() + data;
  const uint8_t* end = jpeg.data() + jpeg.size();
  const uint8_t* start = p;
  int64_t g = 0, kept = 0;
  for (;;) {
    const uint8_t* q =
        static_cast<const uint8_t*>(std::memchr(p, kJpegFill, static_cast<size_t>(end - p)));
    if (!q || q + 1 >= end) return false;  // the data ends inside the window's intervals
    const uint8_t m = q[1];
    if (m == kJpegStuffed || m == kJpegFill) {  // a stuffed 0xFF, or fill
      p = q + (m == kJpegStuffed ? 2 : 1);
      continue;
    }
    const int row = static_cast<int>(g / c.per_row), s = static_cast<int>(g % c.per_row);
    if (row >= c.my0 && s >= c.s0 && s < c.s1) {
      if (kept > 0) {
        out.push_back(kJpegFill);
        out.push_back(static_cast<uint8_t>(kJpegRst0 + ((kept - 1) & 7)));
      }
      out.insert(out.end(), start, q);
      ++kept;
    }
    if (g == last) return true;                        // whatever marker ends it (RST or EOI)
    if (m < kJpegRst0 || m > kJpegRst7) return false;  // EOI or another marker before the end
    if ((m & 7) != (g & 7)) return false;              // markers out of sequence: not ours to trust
    ++g;
    start = p = q + 2;
  }
}

// Writes the part's size into the frame header at `sof` (its height and width fields).
void patch_frame_size(std::vector<uint8_t>& jpeg, size_t sof, int width, int height) {
  jpeg[sof + 5] = static_cast<uint8_t>(height >> 8);
  jpeg[sof + 6] = static_cast<uint8_t>(height & 0xFF);
  jpeg[sof + 7] = static_cast<uint8_t>(width >> 8);
  jpeg[sof + 8] = static_cast<uint8_t>(width & 0xFF);
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
  if (jpeg.size() < kMinJpegBytes || jpeg.size() >= kMaxCutJpegBytes) return false;
  if (x0 < 0 || y0 < 0 || x1 <= x0 || y1 <= y0 || x1 > kMaxJpegSide || y1 > kMaxJpegSide)
    return false;
  const std::optional<ScanHeaders> h = read_scan_headers(jpeg);
  if (!h) return false;
  const std::optional<CutPlan> c = plan_cut(*h, x0, y0, x1, y1);
  if (!c) return false;
  // The part, made while the markers are found: the headers, then the intervals, then EOI; the
  // frame's size patched last.
  w.jpeg.assign(jpeg.begin(), jpeg.begin() + static_cast<ptrdiff_t>(h->data));
  if (!copy_intervals(jpeg, h->data, *c, w.jpeg)) {
    w.jpeg.clear();
    return false;
  }
  w.jpeg.push_back(kJpegFill);
  w.jpeg.push_back(kJpegEoi);
  const int part_w =
      std::min(h->width - c->s0 * c->interval * c->mcu_w, (c->s1 - c->s0) * c->interval * c->mcu_w);
  const int part_h = std::min(h->height - c->my0 * c->mcu_h, (c->my1 - c->my0) * c->mcu_h);
  patch_frame_size(w.jpeg, h->sof, part_w, part_h);
  w.x_cut = c->s0 * c->interval * c->mcu_w;
  w.y_cut = c->my0 * c->mcu_h;
  w.width = part_w, w.height = part_h, w.interval = c->interval;
  return true;
}

}  // namespace textfeed::loader::internal
