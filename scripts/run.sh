#!/usr/bin/env bash
# The two set-up commands of the README:
#   bash scripts/run.sh start [serve options]   install, build, and start the service (SQLite, local buckets)
#   bash scripts/run.sh test                    install and run the whole test suite
# Where the machine's Node is older than 22.13, Node 24 is fetched once from the npm registry
# (package node@24) into ~/.cache/tributary-node and put first on PATH for this script only.
set -euo pipefail
cd "$(dirname "$0")/.."

node_ok() {
  command -v node >/dev/null 2>&1 && node -e '
    const [a, b] = process.versions.node.split(".").map(Number);
    process.exit(a > 22 || (a === 22 && b >= 13) ? 0 : 1)'
}
if ! node_ok; then
  prefix="${TRIBUTARY_NODE_PREFIX:-$HOME/.cache/tributary-node}"
  if [ ! -x "$prefix/node_modules/.bin/node" ]; then
    echo "run.sh: Node $(node --version 2>/dev/null || echo none) is too old; installing node@24 from the npm registry into $prefix" >&2
    npm install --silent --no-save --prefix "$prefix" node@24 >&2
  fi
  export PATH="$prefix/node_modules/.bin:$PATH"
fi
echo "run.sh: using Node $(node --version)" >&2

# npm ci takes most of a restart: skip it when node_modules was installed from this very lockfile
# (the stamp holds the lockfile's hash and the Node major it was installed under).
install() {
  local stamp=node_modules/.tributary-installed want
  want="$(sha256sum package-lock.json package.json 2>/dev/null | sha256sum | cut -c1-64) node$(node -p 'process.versions.node.split(".")[0]')"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "run.sh: dependencies already installed from this lockfile; skipping npm ci" >&2
    return
  fi
  if [ -f package-lock.json ]; then npm ci --no-audit --no-fund --loglevel=error; else npm install --no-audit --no-fund --loglevel=error; fi
  printf '%s' "$want" >"$stamp"
}

cmd="${1:-}"; shift || true
case "$cmd" in
  start)
    install
    if [ -f scripts/build-web.sh ]; then bash scripts/build-web.sh; fi
    # Through its shebang: the environment and V8 flags tributary runs with are written there only.
    exec bin/tributary.js serve "$@"
    ;;
  test)
    install
    exec npm test --silent
    ;;
  *)
    echo "usage: bash scripts/run.sh start|test" >&2; exit 2 ;;
esac
