# SPDX-License-Identifier: Apache-2.0
# Sourced by every script: selects JDK 25 and finds the repository root.
MARROW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export MARROW_ROOT
if [ -z "${JAVA_HOME:-}" ] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q 'version "25'; then
  for j in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25-jdk-arm64 /usr/lib/jvm/java-25*; do
    if [ -x "$j/bin/java" ]; then export JAVA_HOME="$j"; break; fi
  done
fi
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/java" ]; then
  echo "marrow: JDK 25 not found; set JAVA_HOME to a JDK 25 (e.g. Temurin 25)" >&2
  exit 1
fi
export PATH="$JAVA_HOME/bin:$PATH"
