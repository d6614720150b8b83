# Sourced by the install-*-deps.sh scripts: apt_install_missing WHO PACKAGE...
# installs, in one apt-get call, those of the Debian packages that are not
# installed yet (nothing when all are), as root or through sudo. WHO prefixes
# the line that says what is installed.
apt_install_missing() {
  local who=$1
  shift
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo=sudo; fi
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "$who: apt-get install ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}
