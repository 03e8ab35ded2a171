#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs Chromium for the headless report test (ReportBrowserTest), which
# skips itself, with the reason, when no Chromium can be found. Idempotent and
# quiet when Chromium is present; never fails the build.
set -uo pipefail
for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null 2>&1 && exit 0
done
command -v apt-get >/dev/null 2>&1 || { echo "setup-report-test: no apt-get; the report browser test will skip" >&2; exit 0; }
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo -n"; fi
echo "setup-report-test: installing chromium (headless report test)" >&2
if ! { $SUDO apt-get install -y -q chromium >/dev/null 2>&1 || { $SUDO apt-get update -q >/dev/null 2>&1 && $SUDO apt-get install -y -q chromium >/dev/null 2>&1; }; }; then
  echo "setup-report-test: could not install chromium; the report browser test will skip" >&2
fi
exit 0
