#!/usr/bin/env bash
# Refresh the vendored xterm.js and asciinema-player files the web console serves and
# recordings' HTML pages inline (built into the binary; no npm at build time, no CDN). Fetches the pinned releases with `npm pack`, checks each tarball's
# sha256 against the pin below, copies the released files and their licences here, and
# rewrites SHA256SUMS (which a test checks the vendored files against).
#
# To move to a new release: change a version, run this once with PIN_CHECK=0, read the diff,
# put the printed sha256 in the pin, run it again without PIN_CHECK=0, run the tests.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# package@version  sha256 of the npm tarball
PINS=(
  "@xterm/xterm@6.0.0 908e66e04af6c8dc6b00dd3b54de088e2e81e5ed866284fd6c2fb3c2d1c7a3f6"
  "@xterm/addon-fit@0.11.0 26003b4517a132b64e4ff228fd88a5fda3fff5e606c76093f6dcff772e9ecec0"
  "@xterm/addon-search@0.16.0 e9d0795c72f4de749ed996ad7868f0738b44f37cee1e483be81977cefd7f4f81"
  "asciinema-player@3.17.0 d03ef67fc2f32a7aa5177c0b64650c7c8fd234ef2d3e4b34886632bb3dd58c5c"
)

cd "$work"
for pin in "${PINS[@]}"; do
  read -r pkg want <<<"$pin"
  tgz="$(npm pack --silent "$pkg")"
  got="$(sha256sum "$tgz" | cut -d' ' -f1)"
  echo "$pkg: $got"
  if [ "${PIN_CHECK:-1}" != 0 ] && [ "$got" != "$want" ]; then
    echo "refresh.sh: $pkg is not the tarball pinned ($want)" >&2
    exit 1
  fi
  dir="${tgz%.tgz}"
  mkdir "$dir"
  tar xzf "$tgz" -C "$dir"
done

cp xterm-xterm-*/package/lib/xterm.js "$here/xterm.js"
cp xterm-xterm-*/package/css/xterm.css "$here/xterm.css"
cp xterm-xterm-*/package/LICENSE "$here/LICENSE-xterm"
cp xterm-addon-fit-*/package/lib/addon-fit.js "$here/addon-fit.js"
cp xterm-addon-fit-*/package/LICENSE "$here/LICENSE-addon-fit"
cp xterm-addon-search-*/package/lib/addon-search.js "$here/addon-search.js"
cp xterm-addon-search-*/package/LICENSE "$here/LICENSE-addon-search"
cp asciinema-player-*/package/dist/bundle/asciinema-player.min.js "$here/asciinema-player.min.js"
cp asciinema-player-*/package/dist/bundle/asciinema-player.css "$here/asciinema-player.css"
cp asciinema-player-*/package/LICENSE "$here/LICENSE-asciinema-player"

cd "$here"
sha256sum xterm.js xterm.css addon-fit.js addon-search.js asciinema-player.min.js \
  asciinema-player.css LICENSE-xterm LICENSE-addon-fit LICENSE-addon-search \
  LICENSE-asciinema-player > SHA256SUMS
echo "vendored files:"
cat SHA256SUMS
