#!/usr/bin/env bash
# Installs what `make image` needs beyond scripts/install-deps.sh: umoci, which
# packs the root filesystem into an OCI image (no Docker, no registry).
# Idempotent. Root or a sudo user.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/apt-install-missing.sh
apt_install_missing install-image-deps umoci
