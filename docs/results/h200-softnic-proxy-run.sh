#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run 1 (software NIC engine acting as soon as the doorbell record moved; raw
# files now in docs/results/h200-softnic-proxy/run1-dbrec-triggered/). The
# current run is h200-softnic-proxy-run2.sh.
# The exact commands behind run 1 in docs/results/h200-softnic-proxy.md: mini-proxy
# with CUDA producers on the software NIC (EMULATED NIC), run on one H200 from
# the repository root with a jlinked runtime (.jrt/jrt-px: java.base,
# jdk.unsupported, java.management, java.logging -- the last for the JUnit
# console that runs the GPU tests) and the built jar. Writes raw
# JSON lines under ${OUT:-out}. Every step is bounded by `timeout`.
set -u
OUT="${OUT:-out}"
mkdir -p "$OUT"
J=".jrt/jrt-px/bin/java --enable-native-access=ALL-UNNAMED -Dmarrow.native.dir=native/target/stage/lib"
# ProxyMain existed in the run-1 build only; on later builds use: CLI="$J -jar java/target/marrow-cli.jar proxy"
CLI="$J -cp java/target/marrow-cli.jar dev.marrow.proxy.ProxyMain proxy"
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
step gpu_tests 120 $J -jar java/target/junit-console.jar execute --class-path java/target/test-classes:java/target/marrow-cli.jar --select-class dev.marrow.proxy.GpuProducersTest --details=tree
tar -C "$OUT" -czf /tmp/proxy-results.tgz . && rm -rf "$OUT"/* && mv /tmp/proxy-results.tgz "$OUT/"
