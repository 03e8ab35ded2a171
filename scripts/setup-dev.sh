#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what the build needs and is missing: rdma-core headers (so the
# verbs backend compiles even without a NIC), cmake and a C compiler.
# Idempotent; quiet when everything is present. Degrades: without root,
# sudo or apt it prints what is missing and returns 0; the native build then
# prints what it left out (e.g. "verbs: no (rdma-core headers ... not found)").
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
need=()
[ -f /usr/include/infiniband/mlx5dv.h ] || need+=(libibverbs-dev)
command -v cmake >/dev/null || need+=(cmake)
command -v gcc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
if [ ${#need[@]} -gt 0 ] && ! "$here/apt-install.sh" setup-dev "${need[@]}"; then
  echo "setup-dev: continuing without ${need[*]}; the build leaves out what needs them" >&2
fi
exit 0
