#!/usr/bin/env bash
# Regenerates the seed corpora under tests/fuzz/corpus/ with the project's own tools: a small
# `textfeed synth` dataset (ICDAR gt files, UFO json), caches built from it by `textfeed cache
# build`, every wire message kind (textfeed_fuzz_wire_seeds), and small images of each format
# and JPEG flavour the decoder handles. Hand-written edge cases (corpus/*/edge-*) and inputs the
# fuzzers found that add coverage (corpus/*/found-*: `-merge=1` of a long run's corpus, a few KB
# each) are kept. The caches carry the build time and folder, so their bytes differ between runs.
# Usage: tests/fuzz/make_corpus.sh [BUILD]   (BUILD defaults to build; it needs the tools built)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
corpus=tests/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --build "$build" --target textfeed textfeed_fuzz_wire_seeds >/dev/null
"$build/tools/textfeed" synth --count 3 --seed 5 --quality 60 --threads 1 --out "$tmp/ds" >/dev/null

mkdir -p "$corpus"/{icdar15,ufo,cache,decode,wire}
find "$corpus" -type f ! -name 'edge-*' ! -name 'found-*' -delete

for gt in "$tmp"/ds/gt/*.txt; do cp "$gt" "$corpus/icdar15/synth-$(basename "$gt")"; done
cp "$tmp/ds/ufo/train.json" "$corpus/ufo/synth-train.json"

for codec in raw jpeg; do
  "$build/tools/textfeed" cache build --dataset "$tmp/ds" --out "$corpus/cache/synth-$codec.tfc" \
    --image-size 24 --codec "$codec" --quality 50 --threads 1 >/dev/null
done

"$build/tests/fuzz/textfeed_fuzz_wire_seeds" "$corpus/wire"

# Decode seeds: kDecodeControlBytes (5) control bytes, then the file (tests/fuzz/fuzz_targets.h).
/usr/bin/python3 - "$tmp/ds/images/img_1.jpg" "$corpus/decode" <<'PY'
import io, sys
import cv2, numpy as np
from PIL import Image

src = cv2.imread(sys.argv[1])
out = sys.argv[2]
bgr = cv2.resize(src, (40, 24), interpolation=cv2.INTER_AREA)
rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
controls = [bytes([7, 40, 40, 200, 200]), bytes([3, 100, 0, 255, 120]), bytes([0, 0, 0, 255, 255])]

def cv(ext, img, params=()):
    ok, buf = cv2.imencode(ext, img, list(params))
    assert ok, ext
    return buf.tobytes()

def pil(img, fmt, **kw):
    b = io.BytesIO()
    img.save(b, fmt, **kw)
    return b.getvalue()

files = {
    "jpeg-420.jpg": cv(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 50]),
    "jpeg-444.jpg": pil(Image.fromarray(rgb), "JPEG", quality=50, subsampling=0),
    "jpeg-gray.jpg": cv(".jpg", cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), [cv2.IMWRITE_JPEG_QUALITY, 50]),
    "jpeg-progressive.jpg": cv(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 50, cv2.IMWRITE_JPEG_PROGRESSIVE, 1]),
    "jpeg-restart.jpg": cv(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 50, cv2.IMWRITE_JPEG_RST_INTERVAL, 1]),
    "jpeg-cmyk.jpg": pil(Image.fromarray(rgb).convert("CMYK"), "JPEG", quality=50),
    "png-rgb.png": cv(".png", bgr),
    "png-gray.png": cv(".png", cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)),
    "png-palette.png": pil(Image.fromarray(rgb).quantize(8), "PNG"),
    "png-rgba16.png": cv(".png", cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA).astype(np.uint16) * 257),
    "bmp.bmp": cv(".bmp", bgr[:8, :12]),
    "ppm.ppm": cv(".ppm", bgr[:8, :12]),
    "tiff.tif": cv(".tiff", bgr[:8, :12]),
    "webp.webp": cv(".webp", bgr, [cv2.IMWRITE_WEBP_QUALITY, 30]),
}
for i, (name, data) in enumerate(sorted(files.items())):
    with open(f"{out}/{name}", "wb") as f:
        f.write(controls[i % len(controls)] + data)
PY
du -sh "$corpus"/*
