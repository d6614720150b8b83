# inferd: `make run` installs, builds and serves examples/models;
# `make test` installs, builds and runs every test.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
# ccache hits across checkouts (CI clones into a fresh folder each time).
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
HTTP_PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: all deps configure build models run test unit-test integration-test clang-check fuzz bench clean

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

# Clang's thread-safety analysis over every annotated lock, warnings as errors.
# Compiles the code that holds locks (core, frontends, tools, backends); links
# and tests nothing, so it costs CI only compile time (ccache keeps it small).
CLANG_BUILD_DIR ?= build-clang
CLANG_TARGETS = inferd_core inferd_frontend_common inferd_http inferd_cloud inferd_grpc \
	inferd_loadgen_lib inferd_accumulate inferd_identity inferd_repeat inferd_onnxruntime \
	inferd_python inferd_pytorch inferd_fil
clang-check: deps
	cmake -S . -B $(CLANG_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
	  -DINFERD_BUILD_TESTS=OFF -DINFERD_WERROR=ON
	cmake --build $(CLANG_BUILD_DIR) --target $(CLANG_TARGETS)

test: unit-test clang-check integration-test

# libFuzzer over every parser of outside input (fuzz/): the tree built with
# Clang, ASan and UBSan, each target run FUZZ_SECONDS from its seed corpus in
# fuzz/corpus/ (new inputs go to build-fuzz/corpus/, not into the tree). A
# crash stops with the input that caused it (build-fuzz/crash-*).
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = http_request_fuzz infer_body_fuzz model_config_fuzz grpc_infer_fuzz \
	shared_memory_fuzz repository_load_fuzz
# fuzz/sanitizer-ignorelist.txt: RapidJSON's own headers are not instrumented.
FUZZ_NO_SANITIZE = -fsanitize-ignorelist=$(CURDIR)/fuzz/sanitizer-ignorelist.txt
fuzz: deps
	@bash scripts/install-fuzz-deps.sh
	cmake -S . -B $(FUZZ_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DINFERD_BUILD_TESTS=OFF \
	  -DINFERD_FUZZ=ON -DINFERD_WITH_PYTORCH=OFF \
	  "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined $(FUZZ_NO_SANITIZE)" \
	  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"
	cmake --build $(FUZZ_BUILD_DIR) --target $(FUZZ_TARGETS)
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD_DIR)/corpus/$$t; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  (cd $(FUZZ_BUILD_DIR) && ./fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
	    -print_final_stats=1 corpus/$$t ../fuzz/corpus/$$t > fuzz-$$t.log 2>&1); \
	  status=$$?; tail -n 12 $(FUZZ_BUILD_DIR)/fuzz-$$t.log; [ $$status = 0 ] || exit 1; \
	done

# Prints throughput, latency, start-up and memory figures (bench/bench.py); asserts nothing.
BENCH_ARGS ?=
bench: build
	@bash scripts/install-bench-deps.sh
	.venv/bin/python bench/bench.py --build-dir $(BUILD_DIR) $(BENCH_ARGS)

clean:
	rm -rf $(BUILD_DIR)
