#!/usr/bin/env bash
# Installs the Debian 12 packages textfeed builds and tests with; does nothing when all are present.
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config git
  libopencv-dev libtbb-dev capnproto libcapnp-dev libzmq3-dev cppzmq-dev libturbojpeg0-dev libjpeg62-turbo-dev
  libsimdjson-dev nlohmann-json3-dev libpolyclipping-dev libgeos-dev libcli11-dev libgtest-dev libbenchmark-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-zmq python3-opencv python3-torch python3-pil python3-shapely python3-pyclipper
  python3-dask python3-distributed  # textfeed.dask (sharded cache builds, daemons placed on a cluster)
  python3-torchvision  # bench/mmocr_loader.py: the reference chains' ColorJitter
  clang libclang-rt-14-dev llvm  # make test-asan, make fuzz (libFuzzer, the sanitizers' runtimes, llvm-symbolizer)
  clang-format  # make format-check
  python3-pip python3-venv python3-mypy dpkg-dev file  # pip install ., the stubs' check, make deb (dpkg-shlibdeps)
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
