#!/usr/bin/env bash
# Builds the web UI (src/web, React + Vite) into dist/web, which `tributary serve` serves at /.
# Skips the build when dist/web is newer than every source file (set TRIBUTARY_WEB_REBUILD=1 to force).
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist/web/index.html
if [ -z "${TRIBUTARY_WEB_REBUILD:-}" ] && [ -f "$out" ] \
  && [ -z "$(find src/web package-lock.json -newer "$out" -type f -print -quit 2>/dev/null)" ]; then
  echo "build-web: dist/web is up to date" >&2
  exit 0
fi
echo "build-web: building the web UI into dist/web" >&2
node node_modules/vite/bin/vite.js build --config src/web/vite.config.ts
