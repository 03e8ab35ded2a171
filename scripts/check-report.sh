#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The results as data (docs/results/README.md): every page's generated tables equal what its raw
# archive gives (report --markdown --check), then the report is built from all archives into
# target/report (CI keeps it as an artifact) and rendered in headless Chromium: it must load, every
# section must have a table cell, every curated section a cell from "GPU-Initiated Communication:
# Dissecting Down to the Bone" (or the DSM study), and no image may be broken.
# Without Chromium it says so and skips the render, except under CI=true, where that is a failure.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$MARROW_ROOT"
fail=0
for a in docs/results/*.tar.gz; do
  page="${a%.tar.gz}.md"
  if ! scripts/marrow report --markdown "$page" --input "$a" --check; then
    echo "check-report: $page differs from $a; regenerate: scripts/marrow report --markdown $page --input $a" >&2
    fail=1
  fi
done
[ "$fail" = 0 ] || exit 1
rm -rf target/report
scripts/marrow report --input docs/results/*.tar.gz --output target/report >/dev/null
chromium=""
for b in "${MARROW_CHROMIUM:-}" chromium chromium-browser google-chrome; do
  [ -n "$b" ] && command -v "$b" >/dev/null 2>&1 && { chromium="$b"; break; }
done
if [ -z "$chromium" ]; then
  if [ "${CI:-}" = true ]; then
    echo "check-report: no Chromium (scripts/setup-report-test.sh installs it); CI must render the report" >&2
    exit 1
  fi
  echo "check-report: SKIP render: no Chromium (scripts/setup-report-test.sh installs it)"
  exit 0
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
dom=$(timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
  --virtual-time-budget=10000 --dump-dom "file://$PWD/target/report/index.html" 2>/dev/null)
attr() { sed -n "s/.*id=\"report-check\"[^>]* $1=\"\([^\"]*\)\".*/\1/p" <<<"$dom" | head -1; }
[ "$(attr data-done)" = yes ] || { echo "check-report: the page's load check never ran" >&2; exit 1; }
for a in data-broken data-empty data-noref data-errors; do
  v=$(attr "$a")
  [ -z "$v" ] || { echo "check-report: $a: $v" >&2; fail=1; }
done
[ "$fail" = 0 ] || exit 1
echo "check-report: $(ls docs/results/*.tar.gz | wc -l) pages current; report target/report/index.html:" \
  "$(attr data-sections) sections, $(attr data-images) images, none empty or broken"
