#!/usr/bin/env bash
# Installs what `make bench` needs beyond scripts/install-deps.sh: wrk and nginx
# (the static-file baseline), libb64 for perf_analyzer, and requirements-bench.txt
# into .venv. Idempotent. Root or a sudo user.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH_APT_PACKAGES=(wrk nginx libb64-0d)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

missing=()
for p in "${BENCH_APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-bench-deps: apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

stamp=.venv/.requirements-bench.sha
want=$(sha256sum requirements-bench.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -r requirements-bench.txt
  echo "$want" > "$stamp"
fi
