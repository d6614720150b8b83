# inferd: `make run` installs, builds and serves examples/models;
# `make test` installs, builds and runs every test.
BUILD_DIR ?= build
BUILD_TYPE ?= Release
# ccache hits across checkouts (CI clones into a fresh folder each time).
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := true
HTTP_PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: all deps configure build models run test unit-test integration-test clang-configure clang-check \
	sanitize sanitize-integration tsan fuzz bench image image-test deploy-test clean

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

# Clang, in one build of build-clang/ that CI runs (make test): the
# thread-safety analysis over every annotated lock, warnings as errors, and
# the unit tests built with AddressSanitizer + UndefinedBehaviorSanitizer
# (LeakSanitizer included) and run, the backends they load built alike.
# -O0: the sanitized compile then costs CI about what the old compile-only
# Release check did (537 vs 454 CPU seconds, fresh, no ccache; -O1 took 937)
# and the unit tests still run in seconds; asserts stay on.
CLANG_BUILD_DIR ?= build-clang
# fuzz/sanitizer-ignorelist.txt: RapidJSON's own headers are not instrumented
# (UB in Debian's 1.1.0 headers, fixed upstream; as in make fuzz). Named
# relative to the build folder, where every compile runs: an absolute path
# put the checkout's folder into ccache's key, so a clone in another folder
# (CI's) missed every sanitized object.
SANITIZE_IGNORELIST = $(shell realpath -m --relative-to=$(CLANG_BUILD_DIR) fuzz/sanitizer-ignorelist.txt)
SANITIZE_FLAGS = -O0 -gline-tables-only -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fsanitize-ignorelist=$(SANITIZE_IGNORELIST)
# How the sanitized binaries run, in the build too (it runs the test binaries
# to list their tests). LeakSanitizer is on; scripts/lsan-suppressions.txt
# says what it ignores and why.
ASAN_OPTIONS_CI = detect_leaks=1:strict_string_checks=1:check_initialization_order=1
SANITIZE_ENV = ASAN_OPTIONS=$(ASAN_OPTIONS_CI) UBSAN_OPTIONS=print_stacktrace=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan-suppressions.txt:print_suppressions=0
clang-configure: deps
	@bash scripts/install-fuzz-deps.sh
	cmake -S . -B $(CLANG_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Sanitize \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DINFERD_WERROR=ON -DINFERD_BUILD_TESTS=ON \
	  "-DCMAKE_C_FLAGS_SANITIZE=$(SANITIZE_FLAGS)" "-DCMAKE_CXX_FLAGS_SANITIZE=$(SANITIZE_FLAGS)"
# Every target is built (the binary, both frontend modules, the backends, the
# tools, the benchmarks and every test executable), so no code escapes the
# thread-safety analysis and -Werror for want of being listed. The targets the
# tests do not need cost 87 CPU seconds more, fresh (+11% on 790; 2026-11-29).
clang-check: clang-configure
	$(SANITIZE_ENV) cmake --build $(CLANG_BUILD_DIR)
	cd $(CLANG_BUILD_DIR) && $(SANITIZE_ENV) ctest -j2 --output-on-failure
sanitize: clang-check

# The server binary of build-clang/ (ASan + UBSan) under a part of the
# integration tests: HTTP, gRPC, shared memory, lifecycle and repository
# loads, ONNX Runtime and Python models. Not in CI (minutes more). The
# server's sanitizer reports go to build-clang/sanitizer-logs/, and any there
# fail the run.
SANITIZE_INTEGRATION_TESTS ?= tests/integration/http tests/integration/grpc \
	tests/integration/shared_memory tests/integration/lifecycle tests/integration/onnx \
	tests/integration/python
# Every test of those folders (645 on 2026-11-27). Under AddressSanitizer the
# server keeps backend libraries mapped after their last model unloads: what
# ONNX Runtime's static objects keep (80 bytes, once blamed on the Python
# backend) was otherwise reported as leaked from an unloaded module.
SANITIZE_INTEGRATION_SELECT ?=
sanitize-integration: clang-configure models
	$(SANITIZE_ENV) cmake --build $(CLANG_BUILD_DIR)
	rm -rf $(CLANG_BUILD_DIR)/sanitizer-logs && mkdir -p $(CLANG_BUILD_DIR)/sanitizer-logs
	$(SANITIZE_ENV) INFERD_BINARY=$(CLANG_BUILD_DIR)/inferd \
	  INFERD_BACKEND_DIRECTORY=$(CLANG_BUILD_DIR)/backends \
	  ASAN_OPTIONS=$(ASAN_OPTIONS_CI):log_path=$(CURDIR)/$(CLANG_BUILD_DIR)/sanitizer-logs/asan \
	  UBSAN_OPTIONS=print_stacktrace=1:log_path=$(CURDIR)/$(CLANG_BUILD_DIR)/sanitizer-logs/ubsan \
	  .venv/bin/python -m pytest $(SANITIZE_INTEGRATION_TESTS) -q -p no:cacheprovider \
	  -k "$(SANITIZE_INTEGRATION_SELECT)" $(PYTEST_ARGS)
	@if ls $(CLANG_BUILD_DIR)/sanitizer-logs/* >/dev/null 2>&1; then \
	  cat $(CLANG_BUILD_DIR)/sanitizer-logs/*; echo "sanitize-integration: reports above"; exit 1; fi

# ThreadSanitizer over the unit tests of the threaded core: schedulers and
# batchers, the rate limiter, the response cache, the model lifecycle, the
# server API. Not in CI (a third build). scripts/tsan-suppressions.txt lists
# what is suppressed and why.
TSAN_BUILD_DIR ?= build-tsan
TSAN_FLAGS = -O1 -gline-tables-only -fno-omit-frame-pointer -fsanitize=thread
TSAN_TESTS ?= Scheduler|CallerExecution|Batcher|RateLimiter|RequestQueues|ResponseCach|ModelLifecycle|ResponseOrderer|ResponseSender|QueueSweeper|ServerApi|TraceManager|RepositoryCheck|Logging
tsan: deps
	@bash scripts/install-fuzz-deps.sh
	cmake -S . -B $(TSAN_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Tsan \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DINFERD_BUILD_TESTS=ON \
	  "-DCMAKE_C_FLAGS_TSAN=$(TSAN_FLAGS)" "-DCMAKE_CXX_FLAGS_TSAN=$(TSAN_FLAGS)"
	cmake --build $(TSAN_BUILD_DIR) --target inferd_unit_tests inferd_identity
	cd $(TSAN_BUILD_DIR) && \
	  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/scripts/tsan-suppressions.txt" \
	  ctest -j2 --output-on-failure -R '$(TSAN_TESTS)'

test: unit-test clang-check integration-test image-test deploy-test

# OCI images of the server (docs/deploying.md), built without Docker or a
# registry: the runtime closure of build/ (ldd of every binary and backend)
# and Debian's python3 with numpy, packed by umoci into
# build/image/inferd-{default,onnx,llm,torch}.oci.tar. image-test unpacks each and
# runs it chroot'ed, read-only, as its non-root user, serving models to
# tritonclient. Both as root (the layer's files are root's, ldconfig -r and
# the tests chroot, the tests mount): through sudo otherwise. 45 s for the
# images and 20-35 s for the tests here (2 cores, 2026-11-29).
IMAGE_VARIANTS ?= default onnx llm torch
SUDO_UNLESS_ROOT = $(if $(filter 0,$(shell id -u)),,sudo -E)
image: build
	@bash scripts/install-image-deps.sh
	$(SUDO_UNLESS_ROOT) /usr/bin/python3 scripts/image/build_image.py --build-dir $(BUILD_DIR) $(IMAGE_VARIANTS)

image-test: image models
	$(SUDO_UNLESS_ROOT) INFERD_IMAGE_DIR=$(BUILD_DIR)/image INFERD_BACKEND_DIRECTORY=$(BUILD_DIR)/backends \
	  .venv/bin/python -m pytest tests/image -q -p no:cacheprovider $(PYTEST_ARGS)

# The Kubernetes deployment (docs/deploying.md): the Helm chart
# deploy/helm/inferd linted and rendered by the pinned helm for each value set
# of its ci/ folder, every manifest validated offline against the Kubernetes
# schemas (kubernetes-validate) and the custom resources, with deploy/kserve,
# against their projects' CRDs (Go modules of prometheus-operator, KEDA and
# KServe). helm is built from the Go module proxy once per machine, into
# ~/.cache/inferd: 5-6 minutes on 2 busy cores (180 CPU seconds; 2026-11-29).
# The tests take 5 s, 10 s when Go's module cache lacks the CRDs' modules
# (42 MB of zips, 240 MB unpacked). The rolling replacement
# (test_rolling_replacement.py: three replicas of build/inferd in network
# namespaces behind nginx, replaced one at a time under load) needs root for
# `ip netns`: through sudo otherwise; 9 s.
deploy-test: build
	eval "$$(bash scripts/install-deploy-deps.sh)" && \
	  $(SUDO_UNLESS_ROOT) INFERD_HELM="$$INFERD_HELM" INFERD_GO="$$INFERD_GO" \
	  .venv/bin/python -m pytest tests/deploy -q -p no:cacheprovider $(PYTEST_ARGS)

# libFuzzer over every parser of outside input (fuzz/): the tree built with
# Clang, ASan and UBSan, each target run FUZZ_SECONDS from its seed corpus in
# fuzz/corpus/ (new inputs go to build-fuzz/corpus/, not into the tree). A
# crash stops with the input that caused it (build-fuzz/crash-*).
FUZZ_BUILD_DIR ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = http_request_fuzz infer_body_fuzz model_config_fuzz grpc_infer_fuzz \
	shared_memory_fuzz repository_load_fuzz \
	xgboost_model_file_fuzz lightgbm_model_file_fuzz torch_archive_fuzz
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
