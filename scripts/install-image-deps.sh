#!/usr/bin/env bash
# Installs what `make image` needs beyond scripts/install-deps.sh: umoci, which
# packs the root filesystem into an OCI image (no Docker, no registry), and
# skopeo, with which tests/image reads the archives as registries' tools do
# (and which copies them into podman's or Docker's storage or to a registry).
# Idempotent. Root or a sudo user.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/apt-install-missing.sh
apt_install_missing install-image-deps umoci skopeo
