# The two commands of the README: `make demo` and `make test`. Both install missing Debian
# packages, configure with Ninja (Release), build, then run.
BUILD ?= build
PYTHON := /usr/bin/python3
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all deps configure build test test-cpp test-python demo clean test-asan fuzz install deb format-check

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

# Every test: the GoogleTest binaries and the Python suite (two CTest tests labelled python).
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-cpp:
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE python

test-python:
	PYTHONPATH=$(CURDIR)/$(BUILD)/python TEXTFEED_BIN=$(CURDIR)/$(BUILD)/tools/textfeed \
	  $(PYTHON) -m pytest tests/python

demo: build
	BUILD=$(BUILD) scripts/demo.sh

clean:
	rm -rf $(BUILD)

# The command, the Python package, headers, static libraries and find_package(textfeed) under
# PREFIX (cmake/install.cmake; the Python package where /usr/bin/python3 imports from under PREFIX:
# for Debian's, /usr/local/lib/python3.X/dist-packages). DESTDIR=DIR stages it all under DIR.
# It installs the build as it is (building it first if it is missing or out of date), and never
# runs apt-get: `make deps` does, once.
PREFIX ?= /usr/local
install: configure
	cmake --build $(BUILD) -j $(JOBS)
	cmake --install $(BUILD) --prefix $(PREFIX)

# Debian packages textfeed and textfeed-dev of this build, in $(BUILD)/ (cmake/package.cmake).
deb: build
	cd $(BUILD) && cpack -G DEB

# The C++ tests under AddressSanitizer + UndefinedBehaviorSanitizer (the asan-ubsan preset of
# CMakePresets.json: clang -O1, findings abort, build-asan/). CI runs it after `make test`.
test-asan: deps
	@command -v clang++ >/dev/null || \
	  { echo "make test-asan: needs clang++ (Debian: apt-get install clang)" >&2; exit 1; }
	cmake --preset asan-ubsan $(CMAKE_ARGS)
	cmake --build build-asan -j $(JOBS) --target textfeed_tests
	ctest --preset asan-ubsan -j $(JOBS)

# Links the libFuzzer targets in the same build-asan/ (its objects carry the fuzzers' coverage
# instrumentation too, so that CI compiles the project once with sanitizers, not twice) and runs
# each for FUZZ_SECONDS (and at most FUZZ_RUNS executions, when set), printing executions per
# target; fails on any crash, leak, timeout or OOM.
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
fuzz: deps
	@command -v clang++ >/dev/null || \
	  { echo "make fuzz: needs clang++ (Debian: apt-get install clang)" >&2; exit 1; }
	cmake --preset asan-ubsan $(CMAKE_ARGS)
	cmake --build build-asan -j $(JOBS) --target textfeed_fuzzers
	FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run_fuzzers.sh build-asan $(FUZZ_SECONDS)

# Every C++ file as .clang-format (Google, 100 columns) writes it, checked with Debian's
# clang-format; CI runs it first. `clang-format -i FILE` formats one.
format-check: deps
	git ls-files -z '*.cc' '*.h' | xargs -0 clang-format --dry-run -Werror
