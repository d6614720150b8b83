#!/usr/bin/env bash
# Installs what `make deploy-test` needs beyond scripts/install-deps.sh (whose
# requirements-test.txt brings kubernetes-validate, the Kubernetes schemas):
# Go, and the pinned helm built from the Go module proxy, once, into a cache
# outside the checkout that every clone of the machine shares. Its stdout is
# two lines for `eval`: INFERD_HELM and INFERD_GO (tests/deploy downloads the
# CRDs it validates against with that go, as Go modules). Idempotent.
# With --go-only, only Go, and only INFERD_GO.
#
# Go: scripts/go-toolchain.sh's (helm's go.mod asks for a newer one than
# Debian's backports: GOTOOLCHAIN=auto below fetches it).
set -euo pipefail
cd "$(dirname "$0")/.."
HELM_VERSION=${HELM_VERSION:-v3.22.0}   # its go.mod: go 1.26.0
CACHE=${INFERD_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/inferd}
bin_dir=$CACHE/helm-$HELM_VERSION
helm=$bin_dir/helm

source scripts/go-toolchain.sh
go=$(go_toolchain install-deploy-deps)

# --go-only: only find (or install) Go, for scripts/install-otel-deps.sh.
if [ "${1:-}" = --go-only ]; then
  printf 'export INFERD_GO=%q\n' "$go"
  exit 0
fi

if ! { [ -x "$helm" ] && "$helm" version --short 2>/dev/null | grep -Eq "^$HELM_VERSION(\+|$)"; }; then
  echo "install-deploy-deps: building helm $HELM_VERSION with $("$go" version), once, into $bin_dir" >&2
  start=$SECONDS
  mkdir -p "$bin_dir"
  # CGO off: a static binary, no C toolchain; the version stamped as helm's
  # releases do, so `helm version` names it.
  CGO_ENABLED=0 GOTOOLCHAIN=auto GOBIN="$bin_dir" "$go" install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
    "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
  echo "install-deploy-deps: helm built in $((SECONDS - start)) s: $("$helm" version --short)" >&2
fi
printf 'export INFERD_HELM=%q\nexport INFERD_GO=%q\n' "$helm" "$go"
