#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs Debian/Ubuntu packages if this host can: apt-get as root, or
# through sudo without a password. Never fails the caller's build: when it
# cannot install, it says which packages are missing and why, and exits 1
# so that the caller can leave the component out and say so.
#   apt-install.sh WHO PACKAGE...   (WHO prefixes the messages)
set -uo pipefail
who="$1"; shift
[ $# -gt 0 ] || exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "$who: missing $*; no apt-get on this host: install them with your package manager" >&2
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "$who: missing $*; not root and no password-less sudo: run 'sudo apt-get install $*'" >&2
  exit 1
fi
echo "$who: installing $*" >&2
export DEBIAN_FRONTEND=noninteractive
if "${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1 ||
   { "${sudo[@]}" apt-get update -q >/dev/null 2>&1 &&
     "${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null 2>&1; }; then
  exit 0
fi
echo "$who: apt-get could not install $* (offline, or no such package here)" >&2
exit 1
