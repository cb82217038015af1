#!/usr/bin/env bash
# Rebuilds web/dist, the page the binary embeds (go:embed), from web/src:
# the page's own files as they are, and xterm.js at the version
# web/src/package-lock.json pins (npm ci). TestAssetsMatchSources checks
# the committed dist against both.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
(cd src && npm ci --no-audit --no-fund --silent)
rm -rf dist && mkdir dist
cp src/index.html src/app.js src/style.css dist/
cp src/node_modules/@xterm/xterm/lib/xterm.js src/node_modules/@xterm/xterm/css/xterm.css dist/
# What was vendored, for the test: the package, its version, each file's sha256.
ver=$(node -p 'require("./src/node_modules/@xterm/xterm/package.json").version')
{ echo "@xterm/xterm $ver"; (cd dist && sha256sum xterm.js xterm.css); } > dist/VENDOR
