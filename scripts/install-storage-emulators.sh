#!/usr/bin/env bash
# Installs the object-store emulators the cloud repository tests start
# (tests/integration/cloud_repository: test_gcs_repository.py,
# test_azure_repository.py), once, into a cache outside the checkout that
# every clone of the machine shares:
#   fake-gcs-server, Google Cloud Storage's JSON API, built from the Go module
#     proxy (CGO off: a static binary);
#   Azurite, Microsoft's Azure Storage emulator, from the npm registry, run by
#     the machine's Node.js (3.35.0: the last release that runs on Debian 12's
#     Node 18; 3.36 asks for Node 21, 3.37 for 22).
# Its stdout is two lines for `eval`: INFERD_FAKE_GCS_SERVER and INFERD_AZURITE
# (Azurite's blob-only entry point, run with node). Idempotent: a second run
# only checks and prints. Measured here (2 cores shared with five other builds,
# load ~17, 2026-11-29): fake-gcs-server 371 s with empty Go module and build
# caches (274 s with the modules already downloaded; ~80 s of CPU), Azurite
# 36-51 s (374 npm packages, 186 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
FAKE_GCS_VERSION=${FAKE_GCS_VERSION:-v1.56.1}  # its go.mod: go 1.26
AZURITE_VERSION=${AZURITE_VERSION:-3.35.0}
CACHE=${INFERD_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/inferd}

gcs_dir=$CACHE/fake-gcs-server-$FAKE_GCS_VERSION
fake_gcs=$gcs_dir/fake-gcs-server
if [ ! -x "$fake_gcs" ]; then
  source scripts/go-toolchain.sh
  go=$(go_toolchain install-storage-emulators)
  echo "install-storage-emulators: building fake-gcs-server $FAKE_GCS_VERSION with $("$go" version), once, into $gcs_dir" >&2
  start=$SECONDS
  mkdir -p "$gcs_dir.tmp"
  CGO_ENABLED=0 GOTOOLCHAIN=auto GOBIN="$gcs_dir.tmp" "$go" install -trimpath -ldflags "-s -w" \
    "github.com/fsouza/fake-gcs-server@$FAKE_GCS_VERSION" >&2
  rm -rf "$gcs_dir" && mv "$gcs_dir.tmp" "$gcs_dir"
  echo "install-storage-emulators: fake-gcs-server built in $((SECONDS - start)) s" >&2
fi

azurite_dir=$CACHE/azurite-$AZURITE_VERSION
azurite=$azurite_dir/node_modules/azurite/dist/src/blob/main.js
if [ ! -f "$azurite" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    source scripts/apt-install-missing.sh
    apt_install_missing install-storage-emulators nodejs npm >&2
  fi
  echo "install-storage-emulators: npm install azurite@$AZURITE_VERSION, once, into $azurite_dir" >&2
  start=$SECONDS
  rm -rf "$azurite_dir.tmp" && mkdir -p "$azurite_dir.tmp"
  npm install --prefix "$azurite_dir.tmp" --omit=dev --no-audit --no-fund --loglevel=error \
    "azurite@$AZURITE_VERSION" >&2
  rm -rf "$azurite_dir" && mv "$azurite_dir.tmp" "$azurite_dir"
  echo "install-storage-emulators: Azurite installed in $((SECONDS - start)) s" >&2
fi
printf 'export INFERD_FAKE_GCS_SERVER=%q\nexport INFERD_AZURITE=%q\n' "$fake_gcs" "$azurite"
