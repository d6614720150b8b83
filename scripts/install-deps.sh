#!/usr/bin/env bash
# Installs everything inferd needs to build, run and test on Debian 12.
# Idempotent: a second run only checks and returns. Root or a sudo user.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libboost-dev zlib1g-dev
  libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc
  rapidjson-dev libcli11-dev libspdlog-dev libgtest-dev libgmock-dev
  libre2-dev  # RE2: the header-forward patterns, as Triton
  libssl-dev  # OpenSSL: HTTPS on the HTTP port (--http-use-ssl)
  libcurl4-openssl-dev  # model repositories on object stores (src/core/cloud)
  python3 python3-venv python3-dev python3-pip
  curl openssl prometheus
  python3-onnx
  python3-numpy  # the Python backend's stubs run Debian's python3 with numpy
  libtorch-dev python3-torch  # the pytorch backend's LibTorch 1.13 (CPU); tests make TorchScript
  libopenblas0-openmp  # LibTorch's BLAS (Debian's reference libblas runs the bench MLP 5x slower)
  # The fil backend's XGBoost 1.7 (C API), and the same XGBoost in Python for its tests;
  # libopenblas-openmp-dev keeps python3-scipy's BLAS the OpenMP one above (else apt
  # picks the pthread variant, which would become libblas.so.3 for LibTorch too).
  libxgboost-dev python3-xgboost libopenblas-openmp-dev
  clang
  nginx iproute2  # tests/deploy's rolling replacement: the load balancer, network namespaces
  chromium  # tests/integration/dashboard: the real browser Playwright drives (never `playwright install`)
)
# npm fetches ONNX Runtime below. A Node.js that already brings npm (NodeSource's
# nodejs conflicts with Debian's npm package) is kept as it is.
command -v npm >/dev/null 2>&1 || APT_PACKAGES+=(nodejs npm)

source scripts/apt-install-missing.sh
apt_install_missing install-deps "${APT_PACKAGES[@]}"

# Python virtual environment for tests and tools. It sees Debian's python packages
# (python3-onnx, python3-torch), so numpy stays below 2 as they require.
if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
stamp=.venv/.requirements.sha
want=$(sha256sum requirements-test.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -r requirements-test.txt
  echo "$want" > "$stamp"
fi

# ONNX Runtime is no Debian package: the npm package com.github.asus4.onnxruntime
# carries its C API headers (iOS framework Headers/) and the Linux x86-64
# libonnxruntime.so (SONAME libonnxruntime.so.1). Unpacked into third_party/onnxruntime/
# {include,lib}; skipped when that folder already holds the pinned version.
ORT_NPM_PACKAGE=com.github.asus4.onnxruntime
ORT_NPM_VERSION=0.4.9  # ONNX Runtime 1.29.0
ORT_NPM_SHA1=3659f34012db8208ffb7f67d704204cb08792fed
ORT_DIR=third_party/onnxruntime
if [ "$(cat "$ORT_DIR/VERSION" 2>/dev/null)" != "$ORT_NPM_VERSION" ]; then
  echo "install-deps: npm pack $ORT_NPM_PACKAGE@$ORT_NPM_VERSION (ONNX Runtime) into $ORT_DIR"
  ort_tmp=$(mktemp -d)
  (cd "$ort_tmp" && npm pack --silent "$ORT_NPM_PACKAGE@$ORT_NPM_VERSION" >/dev/null)
  ort_tgz=$(ls "$ort_tmp"/*.tgz)
  if [ "$(sha1sum "$ort_tgz" | cut -d' ' -f1)" != "$ORT_NPM_SHA1" ]; then
    echo "install-deps: $ort_tgz does not have the pinned SHA-1 $ORT_NPM_SHA1" >&2
    rm -rf "$ort_tmp"
    exit 1
  fi
  ort_headers='package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers'
  ort_libs=package/Plugins/Linux/x64
  tar -xzf "$ort_tgz" -C "$ort_tmp" "$ort_headers" "$ort_libs/libonnxruntime.so" \
    "$ort_libs/libonnxruntime_providers_shared.so" package/LICENSE package/ThirdPartyNotices.txt
  rm -rf "$ORT_DIR"
  mkdir -p "$ORT_DIR/include" "$ORT_DIR/lib"
  cp "$ort_tmp/$ort_headers"/*.h "$ORT_DIR/include/"
  cp "$ort_tmp/$ort_libs/libonnxruntime.so" "$ORT_DIR/lib/libonnxruntime.so.1"
  ln -s libonnxruntime.so.1 "$ORT_DIR/lib/libonnxruntime.so"
  cp "$ort_tmp/$ort_libs/libonnxruntime_providers_shared.so" "$ORT_DIR/lib/"
  cp "$ort_tmp/package/LICENSE" "$ort_tmp/package/ThirdPartyNotices.txt" "$ORT_DIR/"
  rm -rf "$ort_tmp"
  echo "$ORT_NPM_VERSION" > "$ORT_DIR/VERSION"
fi

# XGBoost 3.2 (CPU) for the fil backend's JSON and UBJSON models: Debian 12's
# libxgboost 1.7 misreads models saved by XGBoost 2.1 and later (docs/backends.md).
# PyPI's xgboost-cpu wheel (the XGBoost project's own CPU-only build; the plain
# `xgboost` wheel's library is a CUDA build) carries libxgboost.so and the OpenMP
# runtime it was linked with. Both are unpacked into third_party/xgboost/ in the
# wheel's layout (libxgboost.so finds its libgomp by RPATH $ORIGIN/../../xgboost_cpu.libs);
# skipped when that folder already holds the pinned version.
XGB_WHEEL_VERSION=3.2.0
XGB_WHEEL=xgboost_cpu-$XGB_WHEEL_VERSION-py3-none-manylinux_2_28_x86_64.whl
XGB_WHEEL_SHA256=9c10b1653e1a689bf4094a328144cf3633c9be0e5217a76fbdc2fde6abcb2950
XGB_DIR=third_party/xgboost
if [ "$(cat "$XGB_DIR/VERSION" 2>/dev/null)" != "$XGB_WHEEL_VERSION" ]; then
  echo "install-deps: pip download xgboost-cpu==$XGB_WHEEL_VERSION into $XGB_DIR"
  xgb_tmp=$(mktemp -d)
  .venv/bin/pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform manylinux_2_28_x86_64 -d "$xgb_tmp" "xgboost-cpu==$XGB_WHEEL_VERSION"
  if [ "$(sha256sum "$xgb_tmp/$XGB_WHEEL" | cut -d' ' -f1)" != "$XGB_WHEEL_SHA256" ]; then
    echo "install-deps: $XGB_WHEEL does not have the pinned SHA-256 $XGB_WHEEL_SHA256" >&2
    rm -rf "$xgb_tmp"
    exit 1
  fi
  rm -rf "$XGB_DIR"
  .venv/bin/python - "$xgb_tmp/$XGB_WHEEL" "$XGB_DIR" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in wheel.namelist():
        if name == "xgboost/lib/libxgboost.so" or name.startswith("xgboost_cpu.libs/"):
            wheel.extract(name, sys.argv[2])
PY
  rm -rf "$xgb_tmp"
  echo "$XGB_WHEEL_VERSION" > "$XGB_DIR/VERSION"
fi

# uPlot, the /dashboard page's plots, embedded in the binary (scripts/install-uplot.sh).
bash scripts/install-uplot.sh

# llama.cpp's libraries and headers for the llamacpp backend: prebuilt, from npm,
# into ~/.cache/inferd/llamacpp-<release> (scripts/install-llamacpp.sh; the
# llamacpp tests compile two of llama.cpp's programs there too).
bash scripts/install-llamacpp.sh >/dev/null
