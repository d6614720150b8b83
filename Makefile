# inferd: `make run` installs, builds and serves examples/models;
# `make test` installs, builds and runs every test.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
# ccache hits across checkouts (CI clones into a fresh folder each time).
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
HTTP_PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: all deps configure build models run test unit-test integration-test bench clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: $(BUILD_DIR)/build.ninja

build: deps configure
	cmake --build $(BUILD_DIR)

# The ONNX models of examples/models (the benchmark MLP is too large to commit).
models: deps
	.venv/bin/python scripts/make_example_models.py

run: build models
	$(BUILD_DIR)/inferd --model-repository=examples/models --http-port=$(HTTP_PORT)

unit-test: build
	cd $(BUILD_DIR) && ctest --output-on-failure

integration-test: build models
	.venv/bin/python -m pytest tests/integration -q $(PYTEST_ARGS)

test: unit-test integration-test

# Prints throughput, latency, start-up and memory figures (bench/bench.py); asserts nothing.
BENCH_ARGS ?=
bench: build
	@bash scripts/install-bench-deps.sh
	.venv/bin/python bench/bench.py --build-dir $(BUILD_DIR) $(BENCH_ARGS)

clean:
	rm -rf $(BUILD_DIR)
