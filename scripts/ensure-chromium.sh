#!/usr/bin/env bash
# Installs Debian's chromium for the browser tests (test/web), only when /usr/bin/chromium is absent.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
echo "ensure-chromium: installing chromium with apt-get" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium
