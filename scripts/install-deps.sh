#!/usr/bin/env bash
# Installs everything inferd needs to build, run and test on Debian 12.
# Idempotent: a second run only checks and returns. Root or a sudo user.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  libboost-dev zlib1g-dev
  libprotobuf-dev protobuf-compiler
  rapidjson-dev libcli11-dev libspdlog-dev libgtest-dev libgmock-dev
  python3 python3-venv python3-dev python3-pip
  curl
)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python virtual environment for tests and tools. It sees Debian's python packages
# (python3-onnx, python3-torch later), so numpy stays below 2 as they require.
if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
stamp=.venv/.requirements.sha
want=$(sha256sum requirements-test.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -r requirements-test.txt
  echo "$want" > "$stamp"
fi
