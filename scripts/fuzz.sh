#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and runs the libFuzzer harnesses of native/fuzz/: the software NIC
# (softnic_fuzz.c), the shared-memory wire between two processes
# (shmwire_fuzz.c, a hostile owner or peer) and the device engine lane path's
# checks against exec_write (lane_fuzz.c). MARROW_FUZZ_TARGET=softnic
# (default), shmwire or lane picks the harness of every mode but --ci.
#
#   scripts/fuzz.sh --ci            every harness: corpus replay + 60 s of fuzzing each
#                                   (what scripts/test runs)
#   scripts/fuzz.sh --time S        fuzz for S seconds
#   scripts/fuzz.sh --runs N        fuzz for N executions (e.g. 10000000)
#   scripts/fuzz.sh --runs N --jobs J   (or --time S --jobs J) J worker processes
#                                   (libFuzzer -fork=J): N counts executions over all
#                                   workers; stops at the first crash
#   scripts/fuzz.sh --replay        run every committed corpus file once (regression)
#   scripts/fuzz.sh --gen-corpus    regenerate native/fuzz/corpus/softnic from gen_corpus.c
#   scripts/fuzz.sh FILE...         run the harness on the given inputs (reproduce a crash)
#
# Needs clang with libFuzzer (Debian: clang + libclang-rt-NN-dev); installs
# them with apt-get when run as root. Where that is impossible it prints
# SKIP and exits 0 under --ci, 77 otherwise -- except in CI (CI=true), where
# a fuzzer that cannot run is a failure (exit 1), not a silent pass. Build
# and scratch files live in native/target/fuzz; crash artifacts in
# native/target/fuzz/artifacts.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FUZZ_DIR="$ROOT/native/fuzz"
OUT="$ROOT/native/target/fuzz"
CI_SECONDS="${MARROW_FUZZ_CI_SECONDS:-60}"

# The harness in use: its source, seed corpus, binary and scratch corpus.
select_target() {
  TARGET="$1"
  case "$TARGET" in
    softnic|shmwire|lane) ;;
    *) echo "scripts/fuzz.sh: MARROW_FUZZ_TARGET=$TARGET: softnic, shmwire or lane" >&2; exit 2 ;;
  esac
  SEEDS="$FUZZ_DIR/corpus/$TARGET"
  BIN="$OUT/${TARGET}_fuzz"
  SCRATCH="$OUT/corpus-$TARGET"
}
select_target "${MARROW_FUZZ_TARGET:-softnic}"

mode="${1:---ci}"
jobs=1
if [[ "${3:-}" == "--jobs" ]]; then
  jobs="${4:?--jobs needs a worker count}"
  [[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "scripts/fuzz.sh: --jobs $jobs: not a positive integer" >&2; exit 2; }
fi
skip_rc=77
[[ "$mode" == "--ci" ]] && skip_rc=0

skip() {
  if [[ "${CI:-}" == "true" ]]; then
    echo "scripts/fuzz.sh: FAILED: CI=true and the fuzzer cannot run: $*" >&2
    exit 1
  fi
  echo "scripts/fuzz.sh: SKIP: $*" >&2
  exit "$skip_rc"
}

find_clang() {
  local c
  for c in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
    command -v "$c" >/dev/null 2>&1 && { echo "$c"; return 0; }
  done
  return 1
}

# True when $1 can link a libFuzzer target with ASan and UBSan.
has_libfuzzer() {
  local t
  t="$(mktemp -d)"
  printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$t/t.c"
  "$1" -fsanitize=fuzzer,address,undefined "$t/t.c" -o "$t/t" >/dev/null 2>&1
  local rc=$?
  rm -rf "$t"
  return $rc
}

ensure_clang() {
  local cc
  if cc="$(find_clang)" && has_libfuzzer "$cc"; then echo "$cc"; return 0; fi
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "scripts/fuzz.sh: installing clang and libFuzzer with apt-get" >&2
    local ver
    ver="$(apt-cache policy clang 2>/dev/null | sed -n 's/^ *Candidate: 1:\([0-9]*\).*/\1/p')"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang ${ver:+libclang-rt-$ver-dev} >&2 \
      || { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang ${ver:+libclang-rt-$ver-dev} >&2; } \
      || true
    if cc="$(find_clang)" && has_libfuzzer "$cc"; then echo "$cc"; return 0; fi
  fi
  return 1
}

CC="$(ensure_clang)" || skip "no clang with libFuzzer (install clang and libclang-rt-NN-dev, e.g. apt-get install clang libclang-rt-14-dev)"
mkdir -p "$OUT/artifacts"

build() {
  local srcs=("$FUZZ_DIR/${TARGET}_fuzz.c") f
  for f in "$ROOT"/native/src/softnic/*.c "$ROOT"/native/src/common/*.c; do
    # shmwire_fuzz.c includes emu_shmwire.c itself (it calls its static functions).
    [[ "$TARGET" == shmwire && "$f" == */emu_shmwire.c ]] && continue
    # lane_fuzz.c includes emu_exec.c itself (the lane path's checks and exec_write are static there).
    [[ "$TARGET" == lane && "$f" == */emu_exec.c ]] && continue
    srcs+=("$f")
  done
  local newest=0
  # Every softnic source counts, also one a harness #includes.
  for f in "${srcs[@]}" "$ROOT"/native/src/softnic/*.c "$FUZZ_DIR"/*.h "$ROOT"/native/src/softnic/*.h "$ROOT"/native/src/common/*.h "$ROOT"/native/include/marrow/*.h "$0"; do
    local m; m="$(stat -c %Y "$f")"; (( m > newest )) && newest=$m
  done
  if [[ -x "$BIN" ]] && (( $(stat -c %Y "$BIN") >= newest )); then return 0; fi
  echo "scripts/fuzz.sh: building $BIN with $CC (libFuzzer + ASan + UBSan)" >&2
  "$CC" -std=gnu11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Wno-unused-parameter -Werror \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$ROOT/native/include" -I"$ROOT/native/src" -I"$FUZZ_DIR" \
    "${srcs[@]}" -lpthread -o "$BIN.tmp"
  mv "$BIN.tmp" "$BIN"
}

gen_corpus() {
  select_target softnic   # the shmwire seeds are committed as they are (docs/results/fuzz.md)
  "$CC" -std=gnu11 -O1 -Wall -Wextra -Werror -I"$ROOT/native/include" -I"$FUZZ_DIR" \
    "$FUZZ_DIR/gen_corpus.c" -o "$OUT/gen_corpus"
  mkdir -p "$SEEDS"
  find "$SEEDS" -maxdepth 1 -type f ! -name 'regress-*' -delete
  "$OUT/gen_corpus" "$SEEDS"
  echo "scripts/fuzz.sh: wrote $(ls "$SEEDS" | wc -l) files to $SEEDS" >&2
}

# libFuzzer adds new inputs to the first corpus directory: a scratch copy,
# so the committed seeds stay as they are.
fuzz() {
  build
  mkdir -p "$SCRATCH"
  local log="$OUT/last-$TARGET-${mode#--}.log"   # one per target and mode: a CI run beside a long run keeps both
  local par=()
  # Fork mode: J worker processes, each running batches; the parent merges
  # their corpora and counts executions over all of them.
  (( jobs > 1 )) && par=(-fork="$jobs")
  set +e
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    "$BIN" -max_len=4096 -print_final_stats=1 -artifact_prefix="$OUT/artifacts/" "${par[@]}" "$@" \
    "$SCRATCH" "$SEEDS" 2>&1 | tee "$log" | grep -E "^#[0-9]+.*(INITED|DONE|pulse)|^#[0-9]+: cov|stat::|ERROR|invariant|SUMMARY|Test unit written|Done [0-9]+ runs|INFO: fuzzed for|INFO: exiting" >&2
  local rc=${PIPESTATUS[0]}
  set -e
  if (( jobs > 1 )); then
    # The last fork-mode status line holds the total over all workers.
    local total
    total="$(grep -oE '^#[0-9]+: cov' "$log" | tail -1 | tr -dc 0-9)"
    echo "scripts/fuzz.sh: $jobs workers, ${total:-?} executions in total (log: $log)" >&2
  fi
  if (( rc != 0 )); then
    echo "scripts/fuzz.sh: FAILED (exit $rc); log: $log; reproduce with: scripts/fuzz.sh $OUT/artifacts/<crash-file>" >&2
    exit 1
  fi
}

case "$mode" in
  --ci)
    for t in softnic shmwire lane; do
      select_target "$t"
      fuzz -max_total_time="$CI_SECONDS" -timeout=10 -rss_limit_mb=2048
      echo "scripts/fuzz.sh: $t fuzzing: ${CI_SECONDS}s, no invariant violations" >&2
    done ;;
  --time) fuzz -max_total_time="${2:?seconds}" -timeout=10 ;;
  --runs) fuzz -runs="${2:?executions}" -timeout=10 ;;
  --replay)
    build
    "$BIN" -runs=0 -artifact_prefix="$OUT/artifacts/" "$SEEDS" 2>&1 | tail -3 >&2
    echo "scripts/fuzz.sh: replayed $(ls "$SEEDS" | wc -l) corpus files" >&2 ;;
  --gen-corpus) gen_corpus ;;
  -*) echo "usage: scripts/fuzz.sh [--ci | --time S [--jobs J] | --runs N [--jobs J] | --replay | --gen-corpus | FILE...]" >&2; exit 2 ;;
  *) build; "$BIN" "$@" ;;
esac
