// Findings of the fuzzers that wait for a fix outside tests/fuzz (their reproducers are in
// tests/fuzz/pending/<target>/, which the replay test skips). Each entry lets the fuzzer
// tolerate exactly that one outcome so that it keeps looking for others, and so that the CI fuzz
// run stays meaningful meanwhile. When the fix lands: clear the entry (flag false), move the
// reproducer to tests/fuzz/regressions/<target>/, and once the replay passes, delete the flag.
#pragma once

namespace textfeed::fuzz::known {

// TODO(security): pending/icdar15/coordinate-beyond-float-range.txt and
// pending/ufo/coordinate-beyond-float-range.json. The readers check that a coordinate is finite
// as a double, then store it as a float: 1e39 passes the check and becomes inf in the Quad (UB
// only for float->int casts, so UBSan stays silent; the fuzzers' finiteness check catches it).
// Tolerated: an infinite coordinate (never a NaN) in a word the readers kept.
inline constexpr bool kCoordinateBeyondFloatRange = true;

// TODO(security): pending/decode/bmp-header-claims-900m-pixels.bmp and
// pending/decode/webp-10kb-decodes-268m-pixels.webp. For formats other than JPEG and PNG,
// Decoder checks max_pixels only after cv::imdecode has allocated and decoded the whole image
// (OpenCV's own limit is 2^30 pixels): 123 bytes of BMP header allocate 2.7 GB, 10 KB of
// lossless WebP take ~1 GB of RSS and 6 s per decode before the limit refuses them. Tolerated
// outside the code: OpenCV reads OPENCV_IO_MAX_IMAGE_PIXELS when it is loaded, so run_fuzzers.sh
// sets it to the decode target's max_pixels; drop that line when the fix lands.

// TODO(security): pending/decode/dicom-143-bytes-allocates-2gb-then-aborts.dcm. Every file that
// is neither JPEG nor PNG goes to cv::imdecode, which tries every codec OpenCV was built with,
// DICOM (GDCM) included: 143 bytes with "DICM" at offset 128 and a forged element length make
// GDCM zero-fill a 2.3 GB buffer, then fail an assert() and abort the whole process (Debian's
// GDCM keeps its asserts). Tolerated: the decode target skips files with the DICOM signature.
inline constexpr bool kOpenCvTriesDicom = true;

// TODO(security): pending/decode/hdr-6-bytes-leak-a-descriptor-per-decode.hdr. "#?RGBE" (a
// Radiance HDR signature and nothing else) sends cv::imdecode through a temporary file that
// OpenCV's HDR reader opens and never closes: one descriptor (on a deleted file) per decode, so
// a daemon fed such images runs out of descriptors ("Too many open files"). Tolerated: the
// decode target skips files that start with "#?".
inline constexpr bool kOpenCvHdrLeaksDescriptor = true;

}  // namespace textfeed::fuzz::known
