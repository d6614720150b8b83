#!/usr/bin/env bash
# llama.cpp for the llamacpp backend (backends/llamacpp), and the llama.cpp programs its
# tests and bench compare against. Debian 12 does not package llama.cpp. The npm package
# @node-llama-cpp/linux-x64 carries a CPU build of one llama.cpp release as shared
# libraries (libllama, libggml, libggml-base, libllama-common, and one libggml-cpu-<arch>.so
# per x86-64 CPU generation, of which ggml loads the best the machine runs), and
# node-llama-cpp carries that release's source as a git bundle (headers, examples, tools).
# Both are fetched with `npm pack`, their integrity checked, into
# ~/.cache/inferd/llamacpp-<release>: src/ the source, build/bin/ the libraries. Nothing is
# compiled for the backend, and the same libraries run on any x86-64 machine.
#   --with-tools   also builds llama.cpp's examples/simple (a greedy generator) and
#                  tools/tokenize on those libraries (seconds): the tests' references.
#   --with-server  also builds llama-server from the source, with the whole of llama.cpp
#                  (minutes; only the bench compares against it), into build-server/.
# Skipped when the folder already holds what was asked. Prints the folder.
# Usage: scripts/install-llamacpp.sh [--print-dir | --with-tools | --with-server]
set -euo pipefail

NLC_VERSION=3.22.1      # node-llama-cpp, which pins llama.cpp's release:
LLAMACPP_RELEASE=v0.5.0
NLC_LIBS_INTEGRITY=sha512-5uCCDNqWCNfaAm8aR/Uzxbo4HBpKgNF91kCHPepKhgMgV2OAmatoefbOlMihsqCiH2Od35E/eUHQCFbfRBJuOg==
NLC_SOURCE_INTEGRITY=sha512-bltIipuWmc123H7tMIgDGKSsSrhmhlQYeVUC48XTjVW7XGJJiJJyCdlTMzQ/LiWoPkGDpcL4FviDpgw7qfTiDw==

CACHE=${INFERD_CACHE:-$HOME/.cache/inferd}
dir=$CACHE/llamacpp-$LLAMACPP_RELEASE
mode=${1:-}
if [ "$mode" = --print-dir ]; then echo "$dir"; exit 0; fi
bin=$dir/build/bin

# `npm pack PACKAGE` into $2, checked against the pinned integrity $3.
npm_pack() {
  (cd "$2" && npm pack --silent "$1" >/dev/null)
  local tgz got
  tgz=$(ls "$2"/*.tgz)
  got=sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)
  if [ "$got" != "$3" ]; then
    echo "install-llamacpp: $1 does not have the pinned integrity $3" >&2
    exit 1
  fi
  tar -xzf "$tgz" -C "$2"
  rm "$tgz"
}

install_libraries() {
  echo "install-llamacpp: npm pack @node-llama-cpp/linux-x64@$NLC_VERSION and node-llama-cpp@$NLC_VERSION (llama.cpp $LLAMACPP_RELEASE) into $dir" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir "$tmp/libs" "$tmp/source"
  npm_pack "@node-llama-cpp/linux-x64@$NLC_VERSION" "$tmp/libs" "$NLC_LIBS_INTEGRITY"
  npm_pack "node-llama-cpp@$NLC_VERSION" "$tmp/source" "$NLC_SOURCE_INTEGRITY"
  rm -rf "$dir"
  mkdir -p "$bin"
  git clone -q "$tmp/source/package/llama/gitRelease.bundle" "$dir/src" 2>/dev/null
  cp "$tmp/libs/package/bins/linux-x64/"*.so "$tmp/libs/package/LICENSE" "$bin/"
  # The libraries' SONAMEs carry the release; the backend links the plain names.
  ln -s "libllama.$LLAMACPP_RELEASE.so" "$bin/libllama.so"
  ln -s "libggml.$LLAMACPP_RELEASE.so" "$bin/libggml.so"
  echo "$LLAMACPP_RELEASE" > "$dir/LIBS_DONE"
}

# llama.cpp's own one-file programs on the installed libraries.
build_tools() {
  local flags=(-std=c++17 -O2 -I"$dir/src/include" -I"$dir/src/ggml/include" -L"$bin"
               -Wl,-rpath,"$bin")
  c++ "${flags[@]}" "$dir/src/examples/simple/simple.cpp" -lllama -lggml -lggml-base \
    -o "$bin/llama-simple"
  c++ "${flags[@]}" -I"$dir/src/common" -I"$dir/src/vendor" "$dir/src/tools/tokenize/tokenize.cpp" \
    -lllama-common -lllama -lggml -lggml-base -o "$bin/llama-tokenize"
  echo "$LLAMACPP_RELEASE" > "$dir/TOOLS_DONE"
}

# llama-server compiled from the release's source as a whole (CPU only, no UI or
# OpenSSL: it only serves the bench on localhost).
build_server() {
  echo "install-llamacpp: building llama-server in $dir/build-server" >&2
  local start=$SECONDS
  cmake -S "$dir/src" -B "$dir/build-server" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=ON -DGGML_CCACHE=ON -DGGML_BLAS=OFF -DGGML_NATIVE=ON \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF >&2
  cmake --build "$dir/build-server" --target llama-server >&2
  echo "$LLAMACPP_RELEASE" > "$dir/SERVER_DONE"
  echo "install-llamacpp: llama-server built in $((SECONDS - start)) s" >&2
}

case "$mode" in
  --with-tools) want=TOOLS_DONE ;;
  --with-server) want=SERVER_DONE ;;
  "") want=LIBS_DONE ;;
  *) echo "usage: scripts/install-llamacpp.sh [--print-dir | --with-tools | --with-server]" >&2; exit 2 ;;
esac
if [ -f "$dir/$want" ] && [ -f "$dir/LIBS_DONE" ]; then echo "$dir"; exit 0; fi
mkdir -p "$CACHE"
# One install at a time (several checkouts share the cache): a second caller waits
# for the first and then finds it done.
exec 9>"$dir.lock"
flock 9
[ -f "$dir/LIBS_DONE" ] || install_libraries
if [ "$want" = TOOLS_DONE ] && [ ! -f "$dir/TOOLS_DONE" ]; then build_tools; fi
if [ "$want" = SERVER_DONE ] && [ ! -f "$dir/SERVER_DONE" ]; then build_server; fi
echo "$dir"
