#!/usr/bin/env bash
# llama.cpp for the llamacpp backend (backends/llamacpp) and for the llama-server its
# tests and bench compare against. Debian 12 does not package llama.cpp; the
# llama-cpp-python sdist on PyPI vendors a pinned llama.cpp (vendor/llama.cpp), so it is
# fetched from PyPI, its SHA-256 checked, and only the shared libraries (llama, ggml) are
# built, CPU only, with ccache, once, into ~/.cache/inferd/llamacpp-<ver> (src/ the vendored
# source, build/ the build tree: build/bin has the libraries). `--with-server` builds
# llama-server and examples/simple as well: only the tests and bench compare against them,
# and llama-server is most of the build (`make run` does not wait for it). Skipped when that
# folder already holds a finished build. Prints the folder.
# Usage: scripts/install-llamacpp.sh [--print-dir | --with-server]
set -euo pipefail

LLAMACPP_PY_VERSION=0.3.36
LLAMACPP_PY_SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
LLAMACPP_PY_URL=https://files.pythonhosted.org/packages/ec/e9/e7de2b0463ea3ffbf0ede6cb21b58c1258a8f6521aae45ca773a59fe7cf3/llama_cpp_python-$LLAMACPP_PY_VERSION.tar.gz

CACHE=${INFERD_CACHE:-$HOME/.cache/inferd}
dir=$CACHE/llamacpp-$LLAMACPP_PY_VERSION
if [ "${1:-}" = --print-dir ]; then echo "$dir"; exit 0; fi
with_server=false
if [ "${1:-}" = --with-server ]; then with_server=true; fi
# What this call needs finished: the libraries (LIBS_DONE), or everything (DONE).
done_file=$dir/LIBS_DONE
if $with_server; then done_file=$dir/DONE; fi
# llama.cpp's own minimal greedy generator (examples/simple, one file on the
# libraries): the tests' reference beside llama-server, and quick to build.
build_simple() {
  c++ -std=c++17 -O2 "$dir/src/examples/simple/simple.cpp" -I"$dir/src/include" \
    -I"$dir/src/ggml/include" -L"$dir/build/bin" -lllama -lggml -lggml-base \
    -Wl,-rpath,"$dir/build/bin" -o "$dir/build/bin/llama-simple"
}
if [ -f "$done_file" ] || [ -f "$dir/DONE" ]; then
  if $with_server; then [ -x "$dir/build/bin/llama-simple" ] || build_simple; fi
  echo "$dir"
  exit 0
fi

mkdir -p "$CACHE"
# One build at a time (several checkouts share the cache): a second caller waits
# for the first and then finds DONE.
exec 9>"$dir.lock"
flock 9
if [ -f "$done_file" ] || [ -f "$dir/DONE" ]; then echo "$dir"; exit 0; fi
if [ ! -f "$dir/src/CMakeLists.txt" ]; then
  echo "install-llamacpp: llama-cpp-python $LLAMACPP_PY_VERSION sdist (vendored llama.cpp) into $dir/src" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  curl -fsSL --retry 3 -o "$tmp/sdist.tar.gz" "$LLAMACPP_PY_URL"
  if [ "$(sha256sum "$tmp/sdist.tar.gz" | cut -d' ' -f1)" != "$LLAMACPP_PY_SHA256" ]; then
    echo "install-llamacpp: $LLAMACPP_PY_URL does not have the pinned SHA-256 $LLAMACPP_PY_SHA256" >&2
    exit 1
  fi
  tar -xzf "$tmp/sdist.tar.gz" -C "$tmp" "llama_cpp_python-$LLAMACPP_PY_VERSION/vendor/llama.cpp"
  rm -rf "$dir"
  mkdir -p "$dir"
  mv "$tmp/llama_cpp_python-$LLAMACPP_PY_VERSION/vendor/llama.cpp" "$dir/src"
fi

# CPU only: no CUDA/Metal/Vulkan (their defaults are off on Linux); no BLAS (ggml's own
# kernels are faster than OpenBLAS for the small batches of token generation); no OpenSSL
# or web UI (llama-server only serves localhost tests). Shared libraries so the backend and
# llama-server use the very same ggml build.
echo "install-llamacpp: building llama and ggml$($with_server && echo ' and llama-server') in $dir/build" >&2
start=$SECONDS
cmake -S "$dir/src" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=ON -DGGML_CCACHE=ON -DGGML_BLAS=OFF -DGGML_NATIVE=ON \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON \
  -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF >&2
# The libraries first: the backend builds on them while llama-server (tests, bench) compiles.
cmake --build "$dir/build" --target llama ggml >&2
echo "$LLAMACPP_PY_VERSION" > "$dir/LIBS_DONE"
if $with_server; then
  build_simple
  cmake --build "$dir/build" --target llama-server >&2
  echo "$LLAMACPP_PY_VERSION" > "$dir/DONE"
fi
echo "install-llamacpp: built in $((SECONDS - start)) s" >&2
echo "$dir"
