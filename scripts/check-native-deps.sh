#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the staged native libraries against a DT_NEEDED allow-list, so that
# each .so loads on a host without CUDA or rdma-core and reports
# "unavailable" at run time instead of failing to load.
#   check-native-deps.sh [stage-lib-dir]   (default native/target/stage/lib)
# Also rejects undefined dynamic symbols of libibverbs/libmlx5/libcuda/
# libcudart: those must be reached through dlopen/dlsym (or static cudart).
# Exit: 0 clean; 1 violations (listed); 2 usage error or nothing to check.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-$root/native/target/stage/lib}"

if ! command -v readelf >/dev/null 2>&1; then
  echo "check-native-deps: readelf not found (install binutils)" >&2
  exit 2
fi
if [ ! -d "$dir" ]; then
  echo "check-native-deps: no such directory: $dir (run scripts/build-native.sh)" >&2
  exit 2
fi

# Sonames every library may need (glibc before 2.34 still splits libpthread).
base='libc.so.6 libpthread.so.0 libgcc_s.so.1 ld-linux-x86-64.so.2 ld-linux-aarch64.so.1'

allowed_for() {
  case "$1" in
    emu)   echo "$base" ;;
    verbs) echo "$base libdl.so.2" ;;
    # gda executor / proxy workers: dlopen libibverbs like _verbs.
    host)  echo "$base libdl.so.2" ;;
    # the mlx5 model defines ibv_*/mlx5dv_* itself (docs/design/mlx5-model.md) and needs no rdma-core.
    mlx5model) echo "$base libdl.so.2" ;;
    # static cudart needs dl/rt/pthread; nvcc-compiled host code may pull libstdc++/libm.
    cuda)  echo "$base libdl.so.2 librt.so.1 libstdc++.so.6 libm.so.6" ;;
    *)     return 1 ;;
  esac
}

# Symbols that must never be resolved by the dynamic linker.
forbidden_syms='^(ibv_|mlx5dv_|cuda[A-Z]|cu[A-Z][A-Za-z]*(_v[0-9]+)?$)'

violations=()
checked=0
shopt -s nullglob
for lib in "$dir"/libmarrow_*.so; do
  name="$(basename "$lib" .so)"
  comp="${name#libmarrow_}"
  if ! allowed="$(allowed_for "$comp")"; then
    violations+=("$name.so: no allow-list for component '$comp' (add it to $(basename "$0"))")
    continue
  fi
  checked=$((checked + 1))
  needed="$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
  for so in $needed; do
    if ! printf '%s\n' $allowed | grep -qxF "$so"; then
      case "$so" in
        libcudart*|libcuda.so*) why="the CUDA runtime must be static and the driver dlopened" ;;
        libibverbs*|libmlx5*)   why="rdma-core must be dlopened at run time" ;;
        *)                      why="not in the allow-list" ;;
      esac
      violations+=("$name.so: DT_NEEDED $so ($why)")
    fi
  done
  und="$(readelf --dyn-syms -W "$lib" |
         awk '$7 == "UND" && $8 != "" { sub(/@.*/, "", $8); print $8 }' |
         grep -E "$forbidden_syms" || true)"
  for s in $und; do
    violations+=("$name.so: undefined symbol $s (resolve it with dlsym)")
  done
  printf '%-22s NEEDED: %s\n' "$name.so" "$(echo $needed)"
done

if [ "$checked" -eq 0 ] && [ "${#violations[@]}" -eq 0 ]; then
  echo "check-native-deps: no libmarrow_*.so in $dir" >&2
  exit 2
fi
if [ "${#violations[@]}" -gt 0 ]; then
  echo "check-native-deps: ${#violations[@]} violation(s) in $dir:" >&2
  printf '  %s\n' "${violations[@]}" >&2
  exit 1
fi
echo "check-native-deps: $checked librar$([ "$checked" -eq 1 ] && echo y || echo ies) OK"
