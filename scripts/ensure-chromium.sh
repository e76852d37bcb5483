#!/usr/bin/env bash
# Makes sure a Chromium for the headless Temporal UI check is installed (Debian package).
# Idempotent; non-interactive. Prints the path of the browser on success.
set -euo pipefail
bin="${PERFLOW_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
sudo=""
if [ "$(id -u)" != "0" ]; then
  command -v sudo >/dev/null || { echo "Chromium is missing and neither root nor sudo is available: install the Debian package 'chromium'" >&2; exit 1; }
  sudo="sudo -n"
fi
echo "installing Debian package chromium (for the Temporal UI check)…" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y --no-install-recommends chromium >&2 \
  || { $sudo apt-get update >&2 && $sudo apt-get install -y --no-install-recommends chromium >&2; }
[ -x "$bin" ] || { echo "apt-get finished but $bin is not there" >&2; exit 1; }
echo "$bin"
