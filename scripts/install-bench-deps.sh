#!/usr/bin/env bash
# Installs what `make bench` needs beyond scripts/install-deps.sh: wrk and nginx
# (the static-file baseline), libb64 for perf_analyzer, and requirements-bench.txt
# into .venv. Idempotent. Root or a sudo user.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH_APT_PACKAGES=(wrk nginx libb64-0d)

source scripts/apt-install-missing.sh
apt_install_missing install-bench-deps "${BENCH_APT_PACKAGES[@]}"

stamp=.venv/.requirements-bench.sha
want=$(sha256sum requirements-bench.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -r requirements-bench.txt
  echo "$want" > "$stamp"
fi
