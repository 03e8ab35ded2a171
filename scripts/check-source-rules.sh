#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Source rules that the compiler cannot check. Each rule is one function
# rule_<name> ROOT that prints offending lines (file:line: text) and returns
# non-zero when it finds any; add a rule by writing the function and naming
# it in RULES (and a planted case in self_test).
#   check-source-rules.sh              check this repository
#   check-source-rules.sh --self-test  prove each rule catches a planted violation
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

RULES=(no_status_literals comment_refs)

# Java must not know C's status numbers (enum marrow_status): it compares
# against dev.marrow.api.Status, whose values come from the library. Flags
#  - rc/status/err/code (or status()) compared with a negative literal,
#  - == or != against the value of a MARROW_E* code other than -1,
#  - a switch case on a negative literal,
#  - a constant named like a status (EIO, ENODEV, ...) set to a negative literal.
rule_no_status_literals() {
  local dir="$1/java/src/main"
  [ -d "$dir" ] || return 0
  local codes='2|5|12|16|19|22|28|34|38|71|104|110'
  local re="\\b(rc|ret|status|err|error|code)(\\(\\))?[[:space:]]*[!=]=[[:space:]]*-[0-9]+"
  re+="|[!=]=[[:space:]]*-(${codes})\\b"
  re+="|\\bcase[[:space:]]+-[0-9]+[[:space:]]*(->|:)"
  re+="|\\bE[A-Z]{2,}[[:space:]]*=[[:space:]]*-[0-9]+"
  ! grep -rnE --include='*.java' "$re" "$dir"
}

# Comments and docs must not point outside the repository (the project stands
# alone: design facts live in docs/design/, studies are named by title).
# The rule's own scanner, with its own --self-test, is check-comment-refs.sh.
rule_comment_refs() {
  (cd "$1" && "$root/scripts/check-comment-refs.sh" >/dev/null 2>&1) \
    || { "$root/scripts/check-comment-refs.sh" 2>&1 | grep -v '^check-comment-refs:' ; return 1; }
}

run_rules() {
  local r bad=0
  for r in "${RULES[@]}"; do
    if ! out="$("rule_$r" "$1")"; then
      echo "check-source-rules: $r:" >&2
      echo "$out" >&2
      bad=1
    fi
  done
  return $bad
}

self_test() {
  local t
  t="$(mktemp -d)"
  trap 'rm -rf "$t"' RETURN
  mkdir -p "$t/java/src/main/x"
  # innocent: a -1 sentinel, a negative default, a mismatch index
  cat >"$t/java/src/main/x/Ok.java" <<'JAVA'
class Ok { int cpu = -1; boolean f(long mismatch) { return mismatch != -1 && cpu == -1; } }
JAVA
  rule_no_status_literals "$t" >/dev/null || { echo "self-test: no_status_literals flags innocent code" >&2; return 1; }
  local planted=(
    'class A { boolean f(int rc) { return rc == -19; } }'
    'class B { boolean f(E e) { return e.status() != -71; } }'
    'class C { String f(int s) { return switch (s) { case -110 -> "t"; default -> ""; }; } }'
    'class D { static final int EPROTO = -71; }'
    'class F { boolean f(int x) { return x == -5; } }'
  )
  local p
  for p in "${planted[@]}"; do
    printf '%s\n' "$p" >"$t/java/src/main/x/Bad.java"
    if rule_no_status_literals "$t" >/dev/null; then
      echo "self-test: no_status_literals missed: $p" >&2
      return 1
    fi
  done
  "$root/scripts/check-comment-refs.sh" --self-test >/dev/null || { echo "self-test: comment_refs" >&2; return 1; }
  echo "check-source-rules: self-test passed (${#planted[@]} planted status literals caught, innocent code accepted; comment_refs self-test passed)"
}

case "${1:-}" in
  --self-test) self_test ;;
  "") run_rules "$root" && echo "check-source-rules: ${#RULES[@]} rule(s) passed" ;;
  *) echo "usage: $0 [--self-test]" >&2; exit 2 ;;
esac
