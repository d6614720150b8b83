# Sourced by the install scripts that build a Go program from the Go module
# proxy (install-deploy-deps.sh: helm; install-storage-emulators.sh:
# fake-gcs-server): go_toolchain WHO prints the path of a `go` command.
#
# The `go` on PATH (or /usr/local/go/bin/go); on a Debian 12 without one,
# golang-1.23-go from bookworm-backports, whose go command downloads the newer
# toolchain a module's go.mod asks for (GOTOOLCHAIN=auto, from the same proxy).
# WHO prefixes what it says on stderr.
go_toolchain() {
  local who=$1 go
  go=$(command -v go || true)
  [ -n "$go" ] || [ ! -x /usr/local/go/bin/go ] || go=/usr/local/go/bin/go
  [ -n "$go" ] || [ ! -x /usr/lib/go-1.23/bin/go ] || go=/usr/lib/go-1.23/bin/go
  if [ -z "$go" ]; then
    source "$(dirname "${BASH_SOURCE[0]}")/apt-install-missing.sh"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    if ! apt-cache policy golang-1.23-go 2>/dev/null | grep -q bookworm-backports; then
      echo "$who: adding bookworm-backports to apt's sources" >&2
      echo "deb http://deb.debian.org/debian bookworm-backports main" |
        $sudo tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
    fi
    apt_install_missing "$who" golang-1.23-go >&2
    go=/usr/lib/go-1.23/bin/go
  fi
  echo "$go"
}
