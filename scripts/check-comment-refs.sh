#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails on references that point outside the repository, so that the project
# stands alone (docs/design/architecture.md §3):
#   outside-repo  a path into material that is not part of the repository
#                 (the reading folder beside the checkout, its reference and seed
#                 subfolders; the exact patterns are $outside below);
#   md-ref        a *.md name that resolves to no file, neither from the
#                 repository root nor from the citing file's directory
#                 (URLs are ignored);
#   paper-title   "paper" in a file that never names the paper's title,
#                 "GPU-Initiated Communication: Dissecting Down to the Bone";
#   study-title   "the study" in a file that never names the DSM study's title,
#                 "How does Hopper distributed shared memory actually move data?".
# Scans source, script and documentation files (not raw result data).
#   check-comment-refs.sh [PATH...]    only these files/directories (default: all)
#   check-comment-refs.sh --self-test  proves each rule catches a planted violation
# Output: one "path:line: rule: text" per violation.
# Exit: 0 clean; 1 violations; 2 usage error.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
self="scripts/check-comment-refs.sh"

usage() {
  sed -n '3,18p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# Lists the files to scan under $1 (repository-relative), one per line.
list_files() {
  local r="$1"
  if git -C "$r" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$r" ls-files -co --exclude-standard
  else
    (cd "$r" && find . \( -name .git -o -name target \) -prune -o -type f -print | sed 's|^\./||')
  fi | grep -E '(\.(c|h|cu|cuh|inc|java|sh|py|md|in|xml|properties|cmake)|(^|/)CMakeLists\.txt|^scripts/[^./]+|^\.ci/[^./]+)$' \
     | grep -vE '(^|/)target/' | grep -vxF "$self" || true
}

# Scans the named files (repository-relative) under root $1; prints violations.
scan() {
  local r="$1"
  shift
  [ "$#" -gt 0 ] || return 0
  ( cd "$r" && perl -e '
    use strict; use warnings;
    my $paper = "Dissecting Down to the Bone";
    my $study = "How does Hopper distributed shared memory actually move data";
    my $outside = qr{\.\./shared\b|/work/shared\b|\bshared/(?:reference|seeds)\b};
    my $n = 0;
    for my $f (@ARGV) {
      next unless -f $f;
      open(my $fh, "<", $f) or next;
      my @lines = <$fh>;
      close($fh);
      my $all = join("", @lines);
      next if $all =~ /\x00/;          # binary
      # A title may wrap across lines, behind comment leaders.
      (my $flat = $all) =~ s{\s*\n\s*(?:\*(?!/)|//+|#+)?\s*}{ }g;
      $flat =~ s/\s+/ /g;
      my $has_paper = index($flat, $paper) >= 0;
      my $has_study = index($flat, $study) >= 0;
      (my $dir = $f) =~ s{[^/]*$}{};
      for my $i (0 .. $#lines) {
        my $l = $lines[$i];
        chomp(my $t = $l);
        $t =~ s/^\s+//;
        my @why;
        push @why, "outside-repo" if $l =~ $outside;
        (my $nourl = $l) =~ s{[a-z][a-z0-9+.-]*://\S+}{}gi;
        while ($nourl =~ m{(?<![\w./-])([\w./-]*[\w-]\.md)(?![\w-]|\.\w)}g) {
          my $ref = $1;
          $ref =~ s{^\./}{};
          next if $ref =~ m{^/} ? -e $ref : (-e $ref || -e "$dir$ref");
          push @why, "md-ref ($ref does not exist here)";
        }
        push @why, "paper-title" if !$has_paper && $l =~ /\bpapers?(?:\x27s)?\b/i;
        push @why, "study-title" if !$has_study && $l =~ /\bthe study\b|\bstudy\x27s\b/i;
        for my $w (@why) {
          printf "%s:%d: %s: %s\n", $f, $i + 1, $w, $t;
          $n++;
        }
      }
    }
    exit($n ? 1 : 0);
  ' "$@" )
}

self_test() {
  local tmp out rc=0
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/docs/design" "$tmp/native/src"
  printf '# note\n' >"$tmp/docs/design/note.md"
  # Four planted violations, one per rule ...
  cat >"$tmp/native/src/bad.c" <<'EOF'
/* Layout: mlx5-queue-formats.md 6.2 (not in this repository). */
@OUTSIDE@
/* The seven variants of the paper's Table 4. */
/* Commands of 16 KiB, as the study used. */
EOF
  # The outside path is assembled here, so this script names no such path itself.
  local up=".." dir="shared"
  sed -i "s|@OUTSIDE@|/* Facts from $up/$dir/reference/ */|" "$tmp/native/src/bad.c"
  # ... and a file that follows every rule.
  cat >"$tmp/native/src/good.c" <<'EOF'
/* Layout: docs/design/note.md §2; see also https://example.org/x/README.md.
 * Table 4 of the paper "GPU-Initiated Communication: Dissecting Down to the
 * Bone"; the study "How does Hopper distributed shared memory actually move
 * data?" used 16 KiB commands. Input: report.md.in, any *.md file. */
EOF
  printf 'See [note](note.md) and ../../native/src/good.c.\n' >"$tmp/docs/design/other.md"
  out="$(scan "$tmp" native/src/bad.c native/src/good.c docs/design/note.md docs/design/other.md)" || rc=$?
  printf '%s\n' "$out"
  local want
  for want in "native/src/bad.c:1: md-ref" "native/src/bad.c:2: outside-repo" \
              "native/src/bad.c:3: paper-title" "native/src/bad.c:4: study-title"; do
    if ! grep -qF "$want" <<<"$out"; then
      echo "check-comment-refs: self-test FAILED: expected a violation '$want'" >&2
      return 1
    fi
  done
  if [ "$rc" -ne 1 ] || [ "$(grep -c . <<<"$out")" -ne 4 ]; then
    echo "check-comment-refs: self-test FAILED: expected exactly 4 violations and exit 1, got exit $rc" >&2
    return 1
  fi
  echo "check-comment-refs: self-test passed (4 planted violations caught, clean file accepted)"
}

case "${1:-}" in
  --self-test) self_test; exit $? ;;
  -h|--help) usage ;;
  -*) echo "check-comment-refs: unknown option $1" >&2; usage ;;
esac

mapfile -t all < <(list_files "$root")
files=()
if [ "$#" -eq 0 ]; then
  files=("${all[@]}")
else
  for p in "$@"; do
    p="${p#./}"
    p="${p%/}"
    case "$p" in /*) p="${p#"$root"/}" ;; esac
    if [ ! -e "$root/$p" ]; then
      echo "check-comment-refs: no such file or directory: $p" >&2
      exit 2
    fi
    for f in "${all[@]}"; do
      if [ "$f" = "$p" ] || [[ "$f" == "$p"/* ]]; then files+=("$f"); fi
    done
  done
fi
if scan "$root" "${files[@]}"; then
  echo "check-comment-refs: ${#files[@]} files, no reference points outside the repository" >&2
else
  echo "check-comment-refs: references above point outside the repository or to nothing;" \
       "cite docs/design/... or name the study by its title" >&2
  exit 1
fi
