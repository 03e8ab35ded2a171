#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures, builds and stages the native shims; called by Maven (native
# module, generate-resources) and usable by hand.
#   build-native.sh [build|test]   (default build; test: ctest without the soak)
# Output: native/target/stage/lib/*.so + native-manifest.properties
# Degrades gracefully: libmarrow_emu.so always; verbs/cuda when possible.
# MARROW_WITH_VERBS=OFF / MARROW_WITH_CUDA=OFF leave a component out on purpose.
# MARROW_WITH_CUDA unset (AUTO): libmarrow_cuda.so only where an NVIDIA GPU is
# present, since nothing else can run it and nvcc takes over ten minutes on two
# cores for sm_90 + sm_100; MARROW_WITH_CUDA=ON compiles it anyway (.ci/run
# does: CI has nvcc and no GPU, and must compile the device code).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
build="$root/native/target/cmake"
stage="$root/native/target/stage"
mode="${1:-build}"
mkdir -p "$root/native/target"
jobs="$(nproc 2>/dev/null || echo 2)"

if [ "$mode" = test ]; then
  # The soak (label soak) is a hardening test: only with MARROW_TEST_HARDENING=1 (.ci/run sets it).
  soak=(-LE soak)
  [ "${MARROW_TEST_HARDENING:-0}" = 1 ] && soak=()
  ctest --test-dir "$build" --output-on-failure -j "$jobs" "${soak[@]}"
  exit $?
fi

# An NVIDIA GPU on this host: a device node of the loaded driver, as
# containers and Slurm jobs see it.
has_gpu() {
  compgen -G '/dev/nvidia[0-9]*' >/dev/null || compgen -G '/proc/driver/nvidia/gpus/*' >/dev/null
}
with_cuda="${MARROW_WITH_CUDA:-AUTO}"
cuda_off_reason="disabled with MARROW_WITH_CUDA=OFF"
case "$with_cuda" in
  AUTO|auto|"")
    if has_gpu; then with_cuda=ON; else
      with_cuda=OFF
      cuda_off_reason="no NVIDIA GPU on this host; MARROW_WITH_CUDA=ON compiles it anyway"
    fi ;;
  ON|on|1|OFF|off|0) ;;
  *) echo "build-native: MARROW_WITH_CUDA=$with_cuda: use ON, OFF or AUTO (unset)" >&2; exit 2 ;;
esac

# Options are passed every time: CMake caches them, and a component turned
# off once must come back when the caller no longer asks for that.
cmake -S "$root/native" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$stage" -DMARROW_WITH_VERBS="${MARROW_WITH_VERBS:-ON}" \
  -DMARROW_WITH_CUDA="$with_cuda" -DMARROW_CUDA_OFF_REASON="$cuda_off_reason" ${MARROW_CMAKE_ARGS:-} >"$root/native/target/cmake-configure.log" 2>&1 \
  || { cat "$root/native/target/cmake-configure.log" >&2; exit 1; }
cmake --build "$build" -j "$jobs" >"$root/native/target/cmake-build.log" 2>&1 \
  || { cat "$root/native/target/cmake-build.log" >&2; echo "build-native: build failed" >&2; exit 1; }
rm -rf "$stage/lib"
cmake --install "$build" >/dev/null

arch="$(uname -m)"
summary="$(cat "$build/marrow-build-summary.txt")"
{
  echo "# written by scripts/build-native.sh"
  echo "components=$(cat "$build/marrow-built.txt")"
  echo "summary=$summary"
  echo "arch=$arch"
  echo "abi_version=$(grep -Eo 'MARROW_ABI_VERSION [0-9]+' "$root/native/include/marrow/marrow_abi.h" | awk '{print $2}')"
  # Provenance of every result header (Environment.java reads these, never
  # the repository of the directory the CLI runs in).
  echo "git_sha=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
  if git -C "$root" rev-parse HEAD >/dev/null 2>&1; then
    echo "git_dirty=$([ -n "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] && echo true || echo false)"
  else
    echo "git_dirty=unknown"
  fi
  echo "rdma_core=$(pkg-config --modversion libibverbs 2>/dev/null || echo none)"
  echo "nvcc=$( (nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null) | grep -Eo 'release [0-9.]+' | awk '{print $2}' || true)"
  echo "built_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$stage/lib/native-manifest.properties"
echo "marrow native: $summary"
