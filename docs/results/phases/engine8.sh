#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# phase_engine8: softnic rate after the second hot-path pass of issue 8 (engine: call-free fast
# loop, one 64-bit control-word compare, shared CQE body, prefetch of the doorbell-covered SQ
# lines the next fetch copies; producer: one specialised loop for 8-byte inline WQEs; see
# docs/design/software-nic.md section 6.1). Sourced by docs/results/h200-run.sh; uses its
# helpers (step NAME TIMEOUT_S cmd..., $M, $OUT). Every record is EMULATED NIC
# ("hardware": false): rates of the emulator on the host CPUs.
# 1 + 1 and 8 + 8 are each run as 5 separate processes (a process run is 500,000 warm-up
# and 5 x 5,000,000 timed messages, --repeats 5, its record the median of its 5), so the
# spread between processes (fresh QPs, buffers and JVM each time) shows next to the spread
# inside one. A rate step took 2-4 s in the run of phase_engine; 15 s bounds each of the 12,
# 30 s each of the two no-regression rows: the phase is bounded at 240 s (expected total
# about 60 s).
# Writes under $OUT/engine8/:
#   cpu-topology.txt          lscpu -e and each CPU's SMT siblings (which CPUs share a core)
#   p1-run{1..5}.jsonl        1 producer + 1 engine, 8 B inline, batch 16, poll hot,
#                             engine on CPU 1, producer on CPU 2 (as phase_engine's P = 1 row)
#   p8-run{1..5}.jsonl        8 + 8, engines on CPUs 0-7, producers on 8-15 (as phase_engine)
#   p1-cpus3-4.jsonl,         1 + 1 once more on two other CPU pairs: whether the 1 + 1 rate
#   p1-cpus9-14.jsonl         follows the pair of cores it lands on
#   gda-putc.jsonl            no-regression rows, the commands of phase_engine: gda put+completion
#   proxy-rate.jsonl          (cuda, gpu-fence, 8 B inline; one WQE per doorbell, the path that
#                             got about 25 instructions per message dearer) and proxy rate
#                             (cuda producers, tuned, 4 engine threads, T 1,4 x B 16,32)
phase_engine8() {
  local d="$OUT/engine8" i
  mkdir -p "$d"
  { lscpu -e 2>&1; echo; for c in /sys/devices/system/cpu/cpu[0-9]*; do
      echo "$(basename "$c") siblings $(cat "$c/topology/thread_siblings_list" 2>/dev/null)"; done; } \
    >"$d/cpu-topology.txt" 2>&1
  for i in 1 2 3 4 5; do
    step "engine8/p1-run$i" 15 $M softnic rate --size 8 --batch 16 --producers 1 --engine-threads 1 \
      --poll hot --engine-cpus 1 --producer-cpus 2 --repeats 5 --format json -o "$d/p1-run$i.jsonl"
  done
  for i in 1 2 3 4 5; do
    step "engine8/p8-run$i" 15 $M softnic rate --size 8 --batch 16 --producers 8 --engine-threads 8 \
      --poll hot --engine-cpus 0,1,2,3,4,5,6,7 --producer-cpus 8,9,10,11,12,13,14,15 --repeats 5 \
      --format json -o "$d/p8-run$i.jsonl"
  done
  step engine8/p1-cpus3-4 15 $M softnic rate --size 8 --batch 16 --producers 1 --engine-threads 1 \
    --poll hot --engine-cpus 3 --producer-cpus 4 --repeats 5 --format json -o "$d/p1-cpus3-4.jsonl"
  step engine8/p1-cpus9-14 15 $M softnic rate --size 8 --batch 16 --producers 1 --engine-threads 1 \
    --poll hot --engine-cpus 9 --producer-cpus 14 --repeats 5 --format json -o "$d/p1-cpus9-14.jsonl"
  step engine8/gda-putc 30 $M gda latency --target cuda --nic softnic --engine-cpu 3 --ordering gpu-fence \
    --payload inline --size 8 --experiments putc --iters 20000 --warmup 2000 --format json -o "$d/gda-putc.jsonl"
  step engine8/proxy-rate 30 $M proxy rate --producer cuda --handoff tuned --workers 1,4 --rings 32 --batch 16,32 \
    --engine-threads 4 --messages 2000000 --warmup 100000 --engine-cpu 1 --cpus 2,3,4,5 --format json \
    -o "$d/proxy-rate.jsonl"
}
