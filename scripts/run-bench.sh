#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the JMH benchmarks (building them if needed) with JSON output in
# results/jmh-<UTC time>.json; the jar's main (dev.marrow.bench.BenchMain)
# writes the build's git SHA and the EMULATED/HOST label into every result, and
# `scripts/marrow report --input results/jmh-*.json` renders them.
#   scripts/run-bench.sh [JMH args...]     e.g. scripts/run-bench.sh SoftNicRate -f 1
# --smoke: one short iteration of everything, to prove the jar works.
set -euo pipefail
source "$(dirname "$0")/env.sh"
jar="$MARROW_ROOT/bench/target/benchmarks.jar"
[ -f "$jar" ] || (cd "$MARROW_ROOT" && mvn -B -q -ntp -DskipTests -Dmaven.javadoc.skip=true package >&2)
if [ "${1:-}" = "--smoke" ]; then
  shift
  exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar "$jar" -f 1 -wi 1 -i 1 -w 200ms -r 200ms "$@"
fi
mkdir -p "$MARROW_ROOT/results"
out="$MARROW_ROOT/results/jmh-$(date -u +%Y%m%dT%H%M%SZ).json"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -jar "$jar" -rf json -rff "$out" "$@"
