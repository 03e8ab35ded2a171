#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run 2 (doorbell-triggered software NIC; raw files in docs/results/h200-softnic-proxy/).
# It was run from a directory holding a clean build of a3bf9bd (java/target/marrow-cli.jar,
# java/target/test-classes, native/target/stage):
#   cd .jrt/run2 && OUT=$OUT/p bash ../../docs/results/h200-softnic-proxy-run2.sh
# so the relative paths below resolve in that directory. Run 1: h200-softnic-proxy-run.sh.
# The exact commands behind the re-run (doorbell-triggered software NIC) in docs/results/h200-softnic-proxy.md: mini-proxy
# with CUDA producers on the software NIC (EMULATED NIC), run on one H200 from
# that directory with a jlinked runtime (.jrt/jrt-px: java.base,
# jdk.unsupported, java.management, java.logging -- the last for the JUnit
# console that runs the GPU tests) and the built jar. Writes raw
# JSON lines under ${OUT:-out}. Every step is bounded by `timeout`.
set -u
OUT="${OUT:-out}"
mkdir -p "$OUT"
J=".jrt/jrt-px/bin/java --enable-native-access=ALL-UNNAMED -Dmarrow.native.dir=native/target/stage/lib"
CLI="$J -jar java/target/marrow-cli.jar proxy"
# Engine thread on core 1, workers on cores 2..9: nothing else is pinned there.
PIN="--engine-cpu 1 --cpus 2,3,4,5,6,7,8,9"

{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current --format=csv
  lscpu | grep -E "Model name|^CPU\(s\)|NUMA|MHz"
  ls /sys/devices/system/cpu/cpu2/cpufreq 2>&1 | head -3
  ldconfig -p | grep -i gdrapi || echo "libgdrapi: not installed"; } > "$OUT/env.txt" 2>&1

step() { local name=$1; shift; local t0=$(date +%s%N)
  timeout "$@" > "$OUT/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$OUT/steps.txt"; }

step latency_cuda 90 $CLI latency --producer cuda --handoff both --iters 20000 --warmup 2000 $PIN --format json -o "$OUT/latency_cuda.json"
step latency_cuda_warm 90 $CLI latency --producer cuda --handoff both --iters 20000 --warmup 2000 --precondition-seconds 2 $PIN --format json -o "$OUT/latency_cuda_warm.json"
step latency_cpu 60 $CLI latency --producer cpu --handoff both --iters 20000 --warmup 2000 $PIN --format json -o "$OUT/latency_cpu.json"
step sweep_tuned 150 $CLI rate --producer cuda --handoff tuned --sweep --messages 2000000 --warmup 100000 $PIN --format json -o "$OUT/rate_sweep_tuned.json"
step sweep_baseline 150 $CLI rate --producer cuda --handoff baseline --sweep --messages 1000000 --warmup 100000 $PIN --format json -o "$OUT/rate_sweep_baseline.json"
step rate_engine4 60 $CLI rate --producer cuda --handoff tuned --workers 1,2,4,8 --rings 32 --batch 16,32 --engine-threads 4 --messages 2000000 --warmup 100000 $PIN --format json -o "$OUT/rate_engine4.json"
step gpu_tests 120 $J -jar .jrt/junit.jar execute --class-path java/target/test-classes:java/target/marrow-cli.jar --select-class dev.marrow.proxy.GpuProducersTest --details=tree
tar -C "$OUT" -czf /tmp/proxy-results.tgz . && rm -rf "$OUT"/* && mv /tmp/proxy-results.tgz "$OUT/"
