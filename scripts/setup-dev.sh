#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what the build needs and is missing: rdma-core headers (so the
# verbs backend compiles even without a NIC), cmake and a C compiler.
# Idempotent; quiet when everything is present.
set -euo pipefail
need=()
[ -f /usr/include/infiniband/mlx5dv.h ] || need+=(libibverbs-dev)
command -v cmake >/dev/null || need+=(cmake)
command -v gcc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup-dev: installing ${need[*]}" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  if ! { $SUDO apt-get install -y -q "${need[@]}" >/dev/null 2>&1 || { $SUDO apt-get update -q >/dev/null 2>&1 && $SUDO apt-get install -y -q "${need[@]}" >/dev/null; }; }; then
    echo "setup-dev: could not install ${need[*]}; the build continues without them" >&2
  fi
fi
