#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs one measuring command N times as separate processes and merges their
# JSON lines into one record per point: the median of the N runs with the
# min and max beside it (`marrow merge-runs`; docs/design/methods.md,
# "Repetition").
#
#   scripts/repeat-runs.sh [-n N] -o MERGED.jsonl [-k DIR] -- COMMAND [ARGS...]
#
# COMMAND must be a marrow measuring command (it gets `--format json -o
# DIR/run-I.jsonl` appended). Each run is its own process: JIT, native
# library load, CUDA context and NIC set-up are redone every time, which is
# the point. -k DIR keeps the per-run files there (default: a temporary
# directory, removed afterwards). MARROW names the CLI used for the merge
# (default: scripts/marrow beside this script; the GPU phases pass theirs).
# A run that exits 1 but wrote result records (some rows FAILED, valid=false:
# an unsafe ordering that lost a WQE, say) still counts: the merge marks those
# points valid=false, and the script exits 1 after merging. Any other failure
# (no records, a usage error, 77, a timeout) stops before the merge.
# Exit: 0; 1 when merged with FAILED rows; 2 on bad arguments; otherwise the
# first failing run's exit code (no merge of an incomplete set).
set -uo pipefail
n=3 out="" keep="" failed=0
usage() { echo "usage: $0 [-n N] -o MERGED.jsonl [-k DIR] -- COMMAND [ARGS...]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    -n) [ $# -ge 2 ] || usage; n=$2; shift 2 ;;
    -o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    -k) [ $# -ge 2 ] || usage; keep=$2; shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
case "$n" in ''|*[!0-9]*) echo "repeat-runs: -n must be a positive integer, not '$n'" >&2; exit 2 ;; esac
[ "$n" -ge 1 ] || { echo "repeat-runs: -n must be >= 1" >&2; exit 2; }
[ -n "$out" ] || { echo "repeat-runs: -o MERGED.jsonl is required" >&2; exit 2; }
[ $# -ge 1 ] || { echo "repeat-runs: no command after --" >&2; exit 2; }
[ -e "$out" ] && { echo "repeat-runs: $out exists; not overwriting it" >&2; exit 2; }
marrow=${MARROW:-"$(cd "$(dirname "$0")" && pwd)/marrow"}
if [ -n "$keep" ]; then dir=$keep; mkdir -p "$dir"; else dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; fi
files=()
for i in $(seq 1 "$n"); do
  f="$dir/run-$i.jsonl"
  rm -f "$f"
  echo "repeat-runs: run $i/$n: $*" >&2
  "$@" --format json -o "$f"
  rc=$?
  if [ $rc -eq 1 ] && grep -q '"record":"result"' "$f" 2>/dev/null; then
    echo "repeat-runs: run $i exited 1 with result records (FAILED rows); keeping it" >&2
    failed=1
  elif [ $rc -ne 0 ]; then
    echo "repeat-runs: run $i exited $rc; not merging an incomplete set" >&2
    exit $rc
  fi
  files+=("$f")
done
# shellcheck disable=SC2086  # MARROW may be a command line (java -jar ...)
$marrow merge-runs -o "$out" "${files[@]}" || exit $?
exit $failed
