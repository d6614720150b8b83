#!/usr/bin/env bash
# uPlot (MIT, https://github.com/leeoniya/uPlot), the plotting library of the
# /dashboard page (docs/dashboard.md), vendored from npm into third_party/uplot/:
# its minified IIFE build, its stylesheet and its licence. CMake embeds them in
# the binary (cmake/embed_files.cmake), so the page needs no network but the
# server. Skipped when the folder already holds the pinned version.
set -euo pipefail
cd "$(dirname "$0")/.."

UPLOT_VERSION=1.6.32
UPLOT_SHA1=c800a63b432bad692d6d746f44f0882aa73a49ae
UPLOT_DIR=third_party/uplot
if [ "$(cat "$UPLOT_DIR/VERSION" 2>/dev/null)" = "$UPLOT_VERSION" ]; then exit 0; fi
echo "install-uplot: npm pack uplot@$UPLOT_VERSION into $UPLOT_DIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "uplot@$UPLOT_VERSION" >/dev/null)
tgz="$tmp/uplot-$UPLOT_VERSION.tgz"
if [ "$(sha1sum "$tgz" | cut -d' ' -f1)" != "$UPLOT_SHA1" ]; then
  echo "install-uplot: $tgz does not have the pinned SHA-1 $UPLOT_SHA1" >&2
  exit 1
fi
tar -xzf "$tgz" -C "$tmp" package/dist/uPlot.iife.min.js package/dist/uPlot.min.css \
  package/LICENSE
rm -rf "$UPLOT_DIR"
mkdir -p "$UPLOT_DIR"
cp "$tmp/package/dist/uPlot.iife.min.js" "$tmp/package/dist/uPlot.min.css" \
  "$tmp/package/LICENSE" "$UPLOT_DIR/"
echo "$UPLOT_VERSION" > "$UPLOT_DIR/VERSION"
