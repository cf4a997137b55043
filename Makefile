# The two commands of the README: `make demo` and `make test`. Both install missing Debian
# packages, configure with Ninja (Release), build, then run.
BUILD ?= build
PYTHON := /usr/bin/python3
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

.PHONY: all deps configure build test test-cpp test-python demo clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

configure: $(BUILD)/build.ninja

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	$(MAKE) --no-print-directory test-cpp test-python

test-cpp:
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-python:
	PYTHONPATH=$(CURDIR)/$(BUILD)/python TEXTFEED_BIN=$(CURDIR)/$(BUILD)/tools/textfeed \
	  $(PYTHON) -m pytest tests/python

demo: build
	BUILD=$(BUILD) scripts/demo.sh

clean:
	rm -rf $(BUILD)
