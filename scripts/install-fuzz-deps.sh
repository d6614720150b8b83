#!/usr/bin/env bash
# Installs what `make fuzz` needs beyond scripts/install-deps.sh: Clang's
# runtime libraries (libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer),
# which Debian ships apart from the compiler. Idempotent. Root or a sudo user.
set -euo pipefail
cd "$(dirname "$0")/.."

clang_major=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n1)
FUZZ_APT_PACKAGES=("libclang-rt-${clang_major}-dev")

source scripts/apt-install-missing.sh
apt_install_missing install-fuzz-deps "${FUZZ_APT_PACKAGES[@]}"
