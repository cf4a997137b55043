// The fuzz targets: one entry point per input surface (dataset readers, image decode, cache
// files, wire frames). Each is built twice: into a libFuzzer executable (libfuzzer_entry.cc, the
// TEXTFEED_BUILD_FUZZ build) and into the GoogleTest binary that replays the seed corpus and every
// regression input (replay_test.cc, part of the normal test run).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace textfeed::fuzz {

// Every target takes any bytes and returns normally. A crash, a sanitizer report or a failed
// TF_CHECK (a promise of the API under test that the result broke) is a finding. Targets are
// not thread-safe: they share one scratch folder per process.
using TargetFn = void (*)(std::span<const uint8_t> input);

// ICDAR-2015: the input is one gt file, read with read_icdar15 beside one image.
void icdar15_one_input(std::span<const uint8_t> input);
// UFO: the input is the json file, read with read_ufo.
void ufo_one_input(std::span<const uint8_t> input);
// Polygon readers: the input is a Total-Text, CTW1500 (txt, xml), PaddleOCR and mmocr label file
// in turn, each read beside one image.
void poly_one_input(std::span<const uint8_t> input);
// Image decode: kDecodeControlBytes bytes choose the scale and a window, the rest is the file.
void decode_one_input(std::span<const uint8_t> input);
// Cache: the input is a cache file, opened and read record by record; then again with every
// checksum recomputed, so that the parsing behind the checksums gets exercised too.
void cache_one_input(std::span<const uint8_t> input);
// Wire: the input is one Envelope frame given to transport::decode.
void wire_one_input(std::span<const uint8_t> input);
// Cache manifest: the input is a manifest, read and opened beside two shard files the target
// writes once.
void manifest_one_input(std::span<const uint8_t> input);
// The manifest of those two shard files as cache merge writes it: the seed of the manifest target.
std::string manifest_seed_for_testing();
// DB targets: the input encodes a canvas, options and polygons for augment::make_db_targets.
void db_one_input(std::span<const uint8_t> input);
// mmocr's targets: the input encodes a canvas and polygons for the PSENet, PANet, TextSnake, FCENet
// and mmocr DB builders (augment/<family>/targets.h).
void mmocr_one_input(std::span<const uint8_t> input);
// mmocr's training chains: the input encodes a chain, an image size, a seed and polygons for
// augment::mmocr::replay_chain, then the family's target builder and the pixel ops.
void mmocr_chain_one_input(std::span<const uint8_t> input);

// Bytes in front of a decode input: eighths, then the window's x0, y0, x1, y1 as fractions
// (of 255) of the scaled image.
inline constexpr size_t kDecodeControlBytes = 5;

struct Target {
  std::string_view name;  // also the folder name under corpus/, regressions/ and pending/
  TargetFn run;
};
inline constexpr Target kTargets[] = {
    {"icdar15", icdar15_one_input}, {"ufo", ufo_one_input},
    {"decode", decode_one_input},   {"cache", cache_one_input},
    {"wire", wire_one_input},       {"poly", poly_one_input},
    {"db", db_one_input},           {"manifest", manifest_one_input},
    {"mmocr", mmocr_one_input},     {"mmocr_chain", mmocr_chain_one_input},
};

// Runs `run` on `input`, then checks that no file descriptor was left open: a leak per input
// is a finding (a daemon decoding millions of images would run out). What the first input of a
// process opens for good (library initialization) sets the baseline.
void run_checking_descriptors(TargetFn run, std::span<const uint8_t> input);

// A per-process scratch folder (in $TMPDIR, else /dev/shm, else /tmp), created on first use and
// removed at normal exit. Targets that need files write them here.
const std::string& scratch_dir();
// Writes `bytes` to `path`, replacing it; aborts when it cannot (the harness, not the input, is
// broken then).
void write_file(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace textfeed::fuzz
