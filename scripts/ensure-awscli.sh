#!/usr/bin/env bash
# Makes sure the AWS command-line client (`aws`) is available: the file-drop tests use it as a real
# S3 client against a local S3-compatible server. Installs Debian's awscli package when it is absent
# (root, or sudo without a password); otherwise says so and exits 0, and those tests skip.
set -euo pipefail
if command -v aws >/dev/null 2>&1 && aws --version >/dev/null 2>&1; then
  echo "ensure-awscli: $(aws --version 2>&1 | head -n1)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "ensure-awscli: aws is missing and this user cannot install packages; the tests that need it will skip" >&2
    exit 0
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-awscli: aws is missing and apt-get is not available; the tests that need it will skip" >&2
  exit 0
fi
echo "ensure-awscli: installing Debian's awscli package"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
if $SUDO apt-get install -y -qq --no-install-recommends awscli >/dev/null; then
  echo "ensure-awscli: $(aws --version 2>&1 | head -n1)"
else
  echo "ensure-awscli: installing awscli failed; the tests that need it will skip" >&2
fi
exit 0
