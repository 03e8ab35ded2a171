#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Registers and spills of every kernel-cost build, from ptxas itself: compiles
# native/src/gda/gda_kcost.cu as the native build does (Release: -O3, C++17,
# --expt-relaxed-constexpr) with -Xptxas -v for one architecture and prints
# one TSV row per caller build:
#   caller  transport  live  arch  regs  stack_bytes  spill_store_bytes  spill_load_bytes
# caller and transport are the values of enum marrow_kcost_caller and enum
# marrow_kcost_transport (marrow_kcost.h) that the template arguments carry.
# cudaFuncGetAttributes (what `marrow kernel-cost` records) gives registers
# and local bytes (spills + stack) but not spill stores and loads apart.
#   kcost-ptxas.sh [--arch sm_90] [-o FILE]   (needs nvcc)
#   kcost-ptxas.sh --self-test                 parses a canned ptxas log
# Exit: 0; 2 on bad arguments; 77 without nvcc; 1 when nvcc fails or no row came out.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
arch=sm_90 out=""

# stdin: ptxas -v output; stdout: the TSV
parse() {
  awk '
    BEGIN { OFS = "\t"; print "caller", "transport", "live", "arch", "regs", "stack_bytes", "spill_store_bytes", "spill_load_bytes" }
    /Compiling entry function/ {
      name = ""; if (match($0, /kc_kernelILi[0-9]+ELi[0-9]+ELi[0-9]+E/)) {
        s = substr($0, RSTART + 12, RLENGTH - 13); gsub(/ELi/, " ", s); split(s, v, " ")
        name = v[1] OFS v[3] OFS v[2]
        a = $0; sub(/.* for \x27/, "", a); sub(/\x27.*/, "", a)
      }
      stack = st = ld = ""; next
    }
    name != "" && /bytes stack frame/ {
      for (i = 1; i <= NF; i++) {
        if ($(i + 1) == "bytes" && $(i + 2) == "stack") stack = $i
        if ($(i + 1) == "bytes" && $(i + 2) == "spill" && $(i + 3) ~ /^stores/) st = $i
        if ($(i + 1) == "bytes" && $(i + 2) == "spill" && $(i + 3) ~ /^loads/) ld = $i
      }
      next
    }
    name != "" && /Used [0-9]+ registers/ {
      match($0, /Used [0-9]+ registers/); r = substr($0, RSTART + 5, RLENGTH - 15)
      print name, a, r, stack, st, ld; name = ""
    }'
}

self_test() {
  local got want
  got=$(parse <<'LOG'
ptxas info    : Compiling entry function '_ZN45_GLOBAL__N__x9kc_kernelILi0ELi224ELi1EEEvNS_7kc_argsE' for 'sm_90'
ptxas info    : Function properties for _ZN45_GLOBAL__N__x9kc_kernelILi0ELi224ELi1EEEvNS_7kc_argsE
    40 bytes stack frame, 28 bytes spill stores, 52 bytes spill loads
ptxas info    : Used 255 registers, used 0 barriers, 40 bytes cumulative stack size
ptxas info    : Compiling entry function '_ZN45_GLOBAL__N__x14kc_drain_proxyENS_7kc_argsE' for 'sm_90'
ptxas info    : Function properties for _ZN45_GLOBAL__N__x14kc_drain_proxyENS_7kc_argsE
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 16 registers, used 0 barriers
ptxas info    : Compiling entry function '_ZN45_GLOBAL__N__x9kc_kernelILi1ELi16ELi0EEEvNS_7kc_argsE' for 'sm_100'
ptxas info    : Function properties for _ZN45_GLOBAL__N__x9kc_kernelILi1ELi16ELi0EEEvNS_7kc_argsE
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers
LOG
)
  want=$(printf 'caller\ttransport\tlive\tarch\tregs\tstack_bytes\tspill_store_bytes\tspill_load_bytes\n0\t1\t224\tsm_90\t255\t40\t28\t52\n1\t0\t16\tsm_100\t40\t0\t0\t0')
  if [ "$got" != "$want" ]; then
    printf 'kcost-ptxas: self-test FAILED\nwant:\n%s\ngot:\n%s\n' "$want" "$got" >&2
    return 1
  fi
  echo "kcost-ptxas: self-test passed"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --self-test) self_test; exit $? ;;
    --arch) [ $# -ge 2 ] || { echo "kcost-ptxas: --arch needs a value" >&2; exit 2; }; arch=$2; shift 2 ;;
    -o) [ $# -ge 2 ] || { echo "kcost-ptxas: -o needs a file" >&2; exit 2; }; out=$2; shift 2 ;;
    *) echo "usage: $0 [--arch sm_90] [-o FILE] | --self-test" >&2; exit 2 ;;
  esac
done
case "$arch" in sm_[0-9]*) ;; *) echo "kcost-ptxas: --arch must look like sm_90, not '$arch'" >&2; exit 2 ;; esac
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "kcost-ptxas: nvcc not found: skipped" >&2; exit 77; }
log=$(mktemp); trap 'rm -f "$log"' EXIT
if ! "$nvcc" -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr -arch="$arch" -I"$root/native/include" \
     -I"$root/native/src" -c "$root/native/src/gda/gda_kcost.cu" -o /dev/null -Xptxas -v >"$log" 2>&1; then
  cat "$log" >&2; echo "kcost-ptxas: nvcc failed" >&2; exit 1
fi
table=$(parse <"$log")
[ "$(printf '%s\n' "$table" | wc -l)" -gt 1 ] || { echo "kcost-ptxas: no kernel rows in the ptxas log" >&2; exit 1; }
if [ -n "$out" ]; then printf '%s\n' "$table" >"$out"; else printf '%s\n' "$table"; fi
