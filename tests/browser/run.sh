#!/usr/bin/env bash
# The real-browser check of the board view: headless Debian Chromium opens the overview, a chess
# game, a janggi game and the serving dashboard of a running board server, checks the DOM (the
# game page's board changes after a live move) and saves screenshots under BUILD/screenshots;
# then the same for `arena view` (its list of tournaments, an overview and a game growing live).
# Usage: tests/browser/run.sh [BUILD_DIR]   (default: build). Needs `chromium` (Debian package),
# node and npm; playwright-core is installed into BUILD/browser on first use.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-$here/../../build}" && pwd)"
if [ ! -x /usr/bin/chromium ]; then
  echo "browser check skipped: /usr/bin/chromium is missing (apt-get install -y --no-install-recommends chromium)"
  exit 77
fi
if [ ! -d "$build/browser/node_modules/playwright-core" ]; then
  mkdir -p "$build/browser"
  (cd "$build/browser" && npm install --no-save --no-audit --no-fund playwright-core@1.57 >/dev/null)
fi
export NODE_PATH="$build/browser/node_modules"
export ARENA_BROWSER_SCRIPT="$here/check.cjs"
exec "$build/tests/server_tests" "[.browser]"
