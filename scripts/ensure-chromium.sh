#!/usr/bin/env bash
# The console's browser tests drive Debian's chromium through playwright-core (never a browser downloaded at run
# time). Installs it with apt-get when it is missing and this is root (a fresh CI machine); otherwise says why the
# browser tests will skip. Prints nothing when chromium is there.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x "${GATEWAY_TEST_CHROMIUM:-}" ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing chromium for the console's browser tests (apt-get)" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  exit 0
fi
echo "chromium is not installed and cannot be installed here (not root, or no apt-get): the browser tests will skip" >&2
