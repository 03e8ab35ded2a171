#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the C tree with sanitizers, each into its own build directory, and
# runs the C tests there (C only: no CUDA, no Maven):
#   ASan + UBSan over every C test   (native/target/cmake-asan)
#   TSan over the software NIC engine and the proxy's concurrency tests
#                                    (native/target/cmake-tsan)
# Any sanitizer report fails the run: UBSan does not recover
# (-fno-sanitize-recover=all), ASan/TSan exit non-zero on a report.
#   test-sanitizers.sh [asan|tsan]...   (default: both)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
jobs="$(nproc 2>/dev/null || echo 2)"
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(asan tsan)

# The threaded tests that TSan checks: the software NIC's engine threads
# (doorbell/mailbox watchers, pause, collapsed CQs) and the proxy's workers
# racing producers (hand-off, stop, ring wrap). test_proxy_backpressure is left
# out: its 200 ms ring-full deadlines assume uninstrumented speed. The mlx5
# model's tests: its pollers against the engine, on verbs and DevX queues.
tsan_tests='^(test_softnic_(threads|pause|collapsed|control|owner|overrun|counters|shmwire|shmwire_hostile|dc)|test_proxy_(deliver|stop|chain|wrap)|test_mlx5model_proxy|verbs_test_mlx5model(_marrow|_devx)?)$'

build() { # build dir, sanitizer list
  local dir="$root/native/target/$1" log="$root/native/target/$1.log"
  if ! cmake -S "$root/native" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMARROW_WITH_CUDA=OFF \
        -DMARROW_SANITIZE="$2" >"$log" 2>&1 || ! cmake --build "$dir" -j "$jobs" >>"$log" 2>&1; then
    cat "$log" >&2
    echo "test-sanitizers: $1 build failed" >&2
    exit 1
  fi
}

for kind in "${kinds[@]}"; do
  start=$SECONDS
  case "$kind" in
    asan)
      build cmake-asan address,undefined
      # detect_leaks needs ptrace-like access; LSan says so if it cannot run.
      ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1" \
      UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        ctest --test-dir "$root/native/target/cmake-asan" --output-on-failure -j "$jobs"
      ;;
    tsan)
      build cmake-tsan thread
      TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
        ctest --test-dir "$root/native/target/cmake-tsan" --output-on-failure -j "$jobs" -R "$tsan_tests"
      ;;
    *) echo "test-sanitizers: unknown kind '$kind' (asan|tsan)" >&2; exit 2 ;;
  esac
  echo "test-sanitizers: $kind clean ($((SECONDS - start)) s)"
done
