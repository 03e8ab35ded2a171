#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Proves the native tree builds on a host without the rdma-core headers
# (no libibverbs-dev): compiles it with those headers really absent, not
# with a CMake switch that pretends. The compiler's include search list is
# rebuilt with -nostdinc, each directory that holds infiniband/ replaced by
# a directory of links to everything else in it; no root needed.
# Then: the build must say what it left out, libmarrow_host must build and
# pass the dependency check, the proxy's verbs backend must report itself
# unavailable naming the headers, and the header-needing tests must skip.
# C only (no CUDA, no Maven). Output: native/target/cmake-noverbs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/native/target/cmake-noverbs"
log="$root/native/target/cmake-noverbs.log"
jobs="$(nproc 2>/dev/null || echo 2)"
cc="${CC:-cc}"
fail() { echo "test-no-verbs-headers: FAIL: $*" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The compiler's own system include directories, in search order.
mapfile -t dirs < <("$cc" -xc -E -v /dev/null 2>&1 >/dev/null |
  sed -n '/#include <...> search starts here:/,/End of search list./p' | sed '1d;$d' | sed 's/^ *//')
[ ${#dirs[@]} -gt 0 ] || fail "cannot read the include search list of $cc"
flags="-nostdinc"
i=0
for d in "${dirs[@]}"; do
  [ -d "$d" ] || continue
  if [ -e "$d/infiniband" ]; then
    view="$tmp/inc$i"
    mkdir -p "$view"
    for e in "$d"/*; do
      [ "$(basename "$e")" = infiniband ] || ln -s "$e" "$view/"
    done
    d="$view"
  fi
  flags="$flags -isystem $d"
  i=$((i + 1))
done

# The view must really hide them (and still compile ordinary C).
if echo '#include <infiniband/verbs.h>' | "$cc" $flags -fsyntax-only -xc - 2>/dev/null; then
  fail "infiniband/verbs.h is still reachable with: $flags"
fi
echo '#include <stdio.h>
#include <pthread.h>
int main(void) { return 0; }' | "$cc" $flags -fsyntax-only -xc - || fail "the header view breaks libc headers"
echo "test-no-verbs-headers: rdma-core headers hidden (infiniband/verbs.h not found)"

# The stub's own test and the proxy/gda tests that use libmarrow_host (built
# here), and the header-needing tests, which must be reported as skipped (77).
tests="test_proxy_verbs_unavailable test_proxy_chain test_proxy_stop test_gda_errors"
rm -rf "$build"
if ! { cmake -S "$root/native" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
        -DCMAKE_C_FLAGS="$flags" -DMARROW_WITH_CUDA=OFF -DCMAKE_INSTALL_PREFIX="$build/stage" &&
      cmake --build "$build" -j "$jobs" --target marrow_emu marrow_host $tests &&
      cmake --install "$build"; } >"$log" 2>&1; then
  cat "$log" >&2
  fail "the native build broke without the rdma-core headers"
fi
summary="$(cat "$build/marrow-build-summary.txt")"
echo "test-no-verbs-headers: build summary: $summary"
case "$summary" in
  *"host: yes, without the proxy's verbs backend (rdma-core headers"*"libibverbs-dev)"*) ;;
  *) fail "the summary does not say the proxy's verbs backend was left out" ;;
esac
case "$summary" in
  *"verbs: no (rdma-core headers"*) ;;
  *) fail "the summary does not say libmarrow_verbs.so was left out" ;;
esac
[ -f "$build/stage/lib/libmarrow_host.so" ] || fail "libmarrow_host.so was not built"
[ ! -e "$build/stage/lib/libmarrow_verbs.so" ] || fail "libmarrow_verbs.so was built without headers?"
"$root/scripts/check-native-deps.sh" "$build/stage/lib"

out="$(ctest --test-dir "$build" --output-on-failure -j "$jobs" \
         -R '^(test_proxy_(verbs|verbs_unavailable|chain|stop)|test_gda_errors|verbs_test_.*)$' 2>&1)" \
  || { echo "$out"; fail "ctest failed"; }
echo "$out" | grep -E "Test +#|tests passed"
grep -h "^[a-z_0-9]*: SKIP (" "$build/Testing/Temporary/LastTest.log" | sort -u || true
for t in test_proxy_verbs verbs_test_mlx5_golden verbs_test_mlx5_attrs verbs_test_probe_nodev; do
  echo "$out" | grep -Eq "$t \.+\*+Skipped" || fail "$t was not reported as skipped"
done
echo "$out" | grep -q "test_proxy_verbs_unavailable \.*   Passed" || fail "test_proxy_verbs_unavailable did not pass"
echo "test-no-verbs-headers: OK (libmarrow_emu/host built and tested without rdma-core headers)"
