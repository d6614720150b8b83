#!/usr/bin/env bash
# Builds the OpenTelemetry Collector the tracing tests send spans to
# (tests/integration/otel): scripts/otelcol, a collector with only the OTLP
# receiver and the file exporter, from the Go module proxy (versions pinned
# by its go.sum), once, into a cache outside the checkout that every clone
# on the machine shares. Its stdout is one line for `eval`: INFERD_OTELCOL.
# Idempotent; the tests run it themselves.
#
# Go: as scripts/install-deploy-deps.sh finds or installs it.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${INFERD_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/inferd}
# The cached build is keyed by the module's pins: a change to them rebuilds.
key=$(cat scripts/otelcol/go.mod scripts/otelcol/go.sum scripts/otelcol/main.go | sha256sum | cut -c1-12)
bin_dir=$CACHE/otelcol-$key
otelcol=$bin_dir/inferd-otelcol

if [ ! -x "$otelcol" ]; then
  eval "$(bash scripts/install-deploy-deps.sh --go-only)"
  echo "install-otel-deps: building the collector with $("$INFERD_GO" version), once, into $bin_dir" >&2
  start=$SECONDS
  mkdir -p "$bin_dir.tmp"
  # CGO off: a static binary, no C toolchain.
  (cd scripts/otelcol && CGO_ENABLED=0 GOTOOLCHAIN=auto GOFLAGS=-mod=readonly \
    "$INFERD_GO" build -trimpath -ldflags "-s -w" -o "$bin_dir.tmp/inferd-otelcol" .) >&2
  rm -rf "$bin_dir" && mv "$bin_dir.tmp" "$bin_dir"
  echo "install-otel-deps: collector built in $((SECONDS - start)) s" >&2
fi
printf 'export INFERD_OTELCOL=%q\n' "$otelcol"
