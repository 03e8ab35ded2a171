#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cross-compiles libmarrow_emu/host (and libmarrow_verbs when rdma-core
# headers are available) for linux-aarch64 with native/cmake/
# aarch64-linux-gnu.cmake, then checks the output is AArch64 ELF (file,
# readelf) and passes the dependency allow-list. No CUDA, no tests run
# (there is no aarch64 machine here). Installs gcc-aarch64-linux-gnu when
# missing and possible; otherwise prints SKIP with the reason and exits 0.
# Output: native/target/cmake-aarch64/stage/lib.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/native/target/cmake-aarch64"
log="$root/native/target/cmake-aarch64.log"
jobs="$(nproc 2>/dev/null || echo 2)"
triple=aarch64-linux-gnu
fail() { echo "build-aarch64: FAIL: $*" >&2; exit 1; }

if ! command -v "$triple-gcc" >/dev/null 2>&1 &&
   ! "$root/scripts/apt-install.sh" build-aarch64 "gcc-$triple" libc6-dev-arm64-cross; then
  echo "build-aarch64: SKIP (no $triple-gcc cross compiler and it could not be installed)"
  exit 0
fi

# rdma-core's headers are the same on every architecture. Debian's cross gcc
# searches /usr/include after the target's own directories, so the build
# host's libibverbs-dev serves when no arm64 one is installed; elsewhere a
# view holding only infiniband/ is added (the rest of /usr/include is the
# host's libc and must stay out).
flags=""
hdr="$(echo '#include <infiniband/mlx5dv.h>' | "$triple-gcc" -H -fsyntax-only -xc - 2>&1 | sed -n 's/^\. //p' | head -1)"
if [ -z "$hdr" ] && [ -f /usr/include/infiniband/mlx5dv.h ]; then
  view="$build-include"
  rm -rf "$view" && mkdir -p "$view" && ln -s /usr/include/infiniband "$view/infiniband"
  flags="-isystem $view"
  hdr=/usr/include/infiniband/mlx5dv.h
fi
case "$hdr" in
  "") verbs_note=" (no rdma-core headers for either architecture: verbs left out)" ;;
  /usr/$triple/*) verbs_note=" (verbs with the arm64 rdma-core headers)" ;;
  *) verbs_note=" (verbs with the build host's arch-independent rdma-core headers, $(dirname "$hdr"))" ;;
esac

rm -rf "$build"
if ! { cmake -S "$root/native" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/native/cmake/$triple.cmake" \
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$flags" -DMARROW_WITH_CUDA=OFF \
        -DCMAKE_INSTALL_PREFIX="$build/stage" &&
      cmake --build "$build" -j "$jobs" --target marrow_emu marrow_host \
        $(grep -q '^verbs: yes' <(tr ';' '\n' <"$build/marrow-build-summary.txt" | sed 's/^ //') && echo marrow_verbs marrow_mlx5model) &&
      cmake --install "$build"; } >"$log" 2>&1; then
  cat "$log" >&2
  fail "cross build failed"
fi
echo "build-aarch64: $(cat "$build/marrow-build-summary.txt")$verbs_note"
n=0
for so in "$build"/stage/lib/libmarrow_*.so; do
  machine="$(readelf -h "$so" | sed -n 's/^ *Machine: *//p')"
  [ "$machine" = "AArch64" ] || fail "$so is for '$machine', not AArch64"
  file -L "$so" | grep -q "ARM aarch64" || fail "file(1) does not see an ARM aarch64 object: $(file -L "$so")"
  echo "  $(file -L "$so" | sed "s|$build/stage/lib/||")"
  n=$((n + 1))
done
[ -f "$build/stage/lib/libmarrow_emu.so" ] && [ -f "$build/stage/lib/libmarrow_host.so" ] ||
  fail "libmarrow_emu.so and libmarrow_host.so must both be built"
"$root/scripts/check-native-deps.sh" "$build/stage/lib"
echo "build-aarch64: OK ($n AArch64 libraries)"
