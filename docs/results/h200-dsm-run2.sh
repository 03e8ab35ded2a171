#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# "The study" below: "How does Hopper distributed shared memory actually move data?"
# DSM run 2: the probes E11-E16 (address offset, shared-memory pressure,
# burst credit, store variants, 16-SM ring isolation, the study's model on
# our fits) and the load-width sweep with the INFLIGHT_BYTES load kernel
# (the same 208 B in flight per thread at 4, 8 and 16 B), for
# docs/results/h200-dsm.md. Run from the repository root of a clean build
# (java/target/marrow-cli.jar, java/target/test-classes, native/target/stage):
#   J=".jrt/jrt-px/bin/java --enable-native-access=ALL-UNNAMED -Dmarrow.native.dir=native/target/stage/lib" \
#   OUT=$OUT bash docs/results/h200-dsm-run2.sh
# J is the java command (without -jar). Every step is bounded by `timeout`;
# the bounds add up to < 4 minutes (the expected wall time is ~1-2 minutes).
# Everything lands in one archive, $OUT/h200-dsm-run2.tgz (raw JSON lines,
# per-step logs with the progress lines, nvidia-smi before/after, steps.txt).
set -u
: "${J:?set J to the java command, e.g. .jrt/jrt-px/bin/java --enable-native-access=ALL-UNNAMED -Dmarrow.native.dir=native/target/stage/lib}"
OUT="${OUT:-out}"
W="$OUT/run2"
mkdir -p "$W"
CLI="$J -jar java/target/marrow-cli.jar dsm run"

smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1; }
{ echo "# before"; smi; git rev-parse HEAD 2>/dev/null; } > "$W/nvidia-smi.txt"

step() { local name=$1 secs=$2; shift 2; local t0=$(date +%s%N)
  timeout "$secs" "$@" > "$W/$name.out" 2> "$W/$name.log"; local rc=$?
  echo "$name rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$W/steps.txt"; }

# The probes, one process each so that one failure loses nothing else.
step e11-offset   35 $CLI --experiment E11 --format json -o "$W/e11-offset.jsonl"
step e12-pressure 25 $CLI --experiment E12 --format json -o "$W/e12-pressure.jsonl"
step e13-burst    35 $CLI --experiment E13 --format json -o "$W/e13-burst.jsonl"
step e14-store    20 $CLI --experiment E14 --format json -o "$W/e14-store.jsonl"
step e15-ring16   25 $CLI --experiment E15 --format json -o "$W/e15-ring16.jsonl"
step e16-model    15 $CLI --experiment E16 --format json -o "$W/e16-model.jsonl"
# E3 with the default kernel build in the same call, beside E14's variants.
step e3-default   10 $CLI --experiment E3 --format json -o "$W/e3-default.jsonl"
# Load width with the same bytes in flight at every width (16 B: the control
# against the default INFLIGHT kernel's E2).
for w in 4 8 16; do
  step "e2-bytes-$w" 10 $CLI --experiment E2 --load-kernel INFLIGHT_BYTES --load-width $w --format json -o "$W/e2-bytes-$w.jsonl"
done
# The GPU-tagged tests of the new kernels (checksums, placement, probe fields), if the JUnit console is there.
if [ -f .jrt/junit.jar ]; then
  step gpu-tests 40 $J -jar .jrt/junit.jar execute --class-path java/target/test-classes:java/target/marrow-cli.jar \
    --select-class dev.marrow.dsm.DsmProbeGpuTest --details=tree
fi
{ echo "# after"; smi; } >> "$W/nvidia-smi.txt"
tar -C "$OUT" -czf "$OUT/h200-dsm-run2.tgz" run2 && rm -rf "$W"
