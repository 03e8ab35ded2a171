#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every `scripts/marrow ...` line of README.md's code blocks that is not
# a sweep (--sweep), each under `timeout 60`, and fails if one takes longer or
# exits with anything but 0 or 77 (77: the GPU/NIC it needs is not here).
# Prints each command's wall time. Outputs go to a scratch directory.
# --self-test: proves that a slow command and a failing command are caught.
set -euo pipefail
source "$(dirname "$0")/env.sh"
limit=${MARROW_README_LIMIT_S:-60}

commands_of() { # README: the scripts/marrow lines inside ``` blocks, comments cut
  awk '/^```/ { inblock = !inblock; next } inblock && /^scripts\/marrow / { sub(/[[:space:]]+#.*/, ""); print }' "$1"
}

check() { # README-file marrow-launcher: 0 when every command passes
  local readme=$1 launcher=$2 scratch failed=0 unavailable=0
  scratch=$(mktemp -d)
  while IFS= read -r line; do
    case " $line " in
      *" --sweep "*) echo "skip (sweep): $line"; continue ;;
    esac
    # A command reading an earlier command's output (dsm plot --input dsm.jsonl) is skipped
    # when that command exited 77 and wrote nothing.
    local input
    input=$(sed -n 's/.*--input \([^ ]*\).*/\1/p' <<<"$line")
    if [ -n "$input" ] && [ ! -e "$scratch/$input" ] && [ "${unavailable:-0}" = 1 ]; then
      echo "skip (its --input $input comes from an unavailable command): $line"; continue
    fi
    local t0 rc=0
    t0=$(date +%s.%N)
    (cd "$scratch" && timeout "$limit" bash -c "$launcher ${line#scripts/marrow }" >/dev/null 2>"$scratch/err") || rc=$?
    local secs
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    [ "$rc" = 77 ] && unavailable=1
    if [ "$rc" = 0 ] || [ "$rc" = 77 ]; then
      echo "ok   ${secs} s (exit $rc): $line"
    else
      failed=1
      if [ "$rc" = 124 ]; then
        echo "FAIL ${secs} s: longer than ${limit} s: $line"
      else
        echo "FAIL ${secs} s (exit $rc): $line"; tail -5 "$scratch/err" | sed 's/^/     /'
      fi
    fi
  done < <(commands_of "$readme")
  rm -rf "$scratch"
  return $failed
}

if [ "${1:-}" = --self-test ]; then
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  printf '#!/usr/bin/env bash\ncase "$1" in slow) sleep 5 ;; bad) exit 3 ;; gpu) exit 77 ;; esac\n' >"$tmp/fake"
  chmod +x "$tmp/fake"
  printf '```\nscripts/marrow gpu\nscripts/marrow ok   # comment\nscripts/marrow slow --sweep x\n```\n' >"$tmp/good.txt"
  printf '```\nscripts/marrow slow\n```\n' >"$tmp/slow.txt"
  printf '```\nscripts/marrow bad\n```\n' >"$tmp/bad.txt"
  check "$tmp/good.txt" "$tmp/fake" || { echo "self-test: a passing README failed" >&2; exit 1; }
  limit=1; if check "$tmp/slow.txt" "$tmp/fake"; then echo "self-test: slow command not caught" >&2; exit 1; fi; limit=60
  if check "$tmp/bad.txt" "$tmp/fake"; then echo "self-test: failing command not caught" >&2; exit 1; fi
  echo "check-readme-commands: self-test passed"
  exit 0
fi
cd "$MARROW_ROOT"
check README.md "$MARROW_ROOT/scripts/marrow" && echo "check-readme-commands: every README command finished within ${limit} s"
