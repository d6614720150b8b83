#!/usr/bin/env bash
# Installs what `make fuzz` needs beyond scripts/install-deps.sh: Clang's
# runtime libraries (libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer),
# which Debian ships apart from the compiler. Idempotent. Root or a sudo user.
set -euo pipefail
cd "$(dirname "$0")/.."

clang_major=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -n1)
FUZZ_APT_PACKAGES=("libclang-rt-${clang_major}-dev")

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

missing=()
for p in "${FUZZ_APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-fuzz-deps: apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
