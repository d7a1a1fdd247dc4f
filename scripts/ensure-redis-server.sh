#!/usr/bin/env bash
# The chaos run (npm run chaos) starts and stops a redis-server of its own, so it needs Debian's redis-server binary
# (and redis-cli, which it pings it with), not only a Redis service. Installs it with apt-get when it is missing and this is root (a fresh CI machine);
# otherwise says why the chaos run cannot start. Prints nothing when it is there.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing redis-server for the chaos run (apt-get)" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server redis-tools >/dev/null
  exit 0
fi
echo "redis-server or redis-cli is not installed and cannot be installed here (not root, or no apt-get): npm run chaos cannot start" >&2
exit 1
