#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# phase_engine: the software NIC engine after the hot-path work of issue 8
# (docs/design/software-nic.md, "Hot path"). Sourced by docs/results/h200-run.sh;
# uses its helpers (step NAME TIMEOUT_S cmd..., $M, $OUT). Each step took about 2 s in the
# last run of the same commands; the timeouts (30 s a step) bound the whole phase at 4 minutes.
# Writes JSON lines under $OUT/engine/:
#   cpu-topology.txt        lscpu -e and each CPU's SMT siblings (which CPUs share a core)
#   scaling-pP.jsonl        softnic rate, 8 B inline, batch 16, P producers = P engines,
#                           P in 1 2 4 8, pinned exactly as phase_scaling pins them
#   scaling-p4-paired.jsonl the P = 4 point again with engine i and producer i on
#                           neighbouring CPUs (2i+1, 2i+2): tells whether the weak 2 -> 4
#                           step of the last run follows the CPU placement
#   gda-putc.jsonl          gda put+completion, cuda, gpu-fence, 8 B inline (no-regression row)
#   gda-putc-logsq6.jsonl   the same with --log-sq 6 (sq_wqebbs 64 in the record)
#   proxy-rate.jsonl        proxy rate, cuda producers, tuned, 4 engine threads, T 1,4 x B 16,32
phase_engine() {
  local d="$OUT/engine" p
  mkdir -p "$d"
  { lscpu -e 2>&1; echo; for c in /sys/devices/system/cpu/cpu[0-9]*; do
      echo "$(basename "$c") siblings $(cat "$c/topology/thread_siblings_list" 2>/dev/null)"; done; } \
    >"$d/cpu-topology.txt" 2>&1
  for p in 1 2 4 8; do
    local base=1; [ $((2 * p + 1)) -gt "$(nproc)" ] && base=0   # 8+8 on 16 CPUs: CPU 0 too
    step "engine/scaling-p$p" 30 $M softnic rate --size 8 --batch 16 --producers $p --engine-threads $p \
      --poll hot --engine-cpus "$(seq -s, $base $((base + p - 1)))" \
      --producer-cpus "$(seq -s, $((base + p)) $((base + 2 * p - 1)))" --repeats 5 --format json \
      -o "$d/scaling-p$p.jsonl"
  done
  step engine/scaling-p4-paired 30 $M softnic rate --size 8 --batch 16 --producers 4 --engine-threads 4 \
    --poll hot --engine-cpus 1,3,5,7 --producer-cpus 2,4,6,8 --repeats 5 --format json \
    -o "$d/scaling-p4-paired.jsonl"
  step engine/gda-putc 30 $M gda latency --target cuda --nic softnic --engine-cpu 3 --ordering gpu-fence \
    --payload inline --size 8 --experiments putc --iters 20000 --warmup 2000 --format json -o "$d/gda-putc.jsonl"
  step engine/gda-putc-logsq6 20 $M gda latency --target cuda --nic softnic --engine-cpu 3 --ordering gpu-fence \
    --payload inline --size 8 --experiments putc --log-sq 6 --iters 5000 --warmup 500 --format json \
    -o "$d/gda-putc-logsq6.jsonl"
  step engine/proxy-rate 40 $M proxy rate --producer cuda --handoff tuned --workers 1,4 --rings 32 --batch 16,32 \
    --engine-threads 4 --messages 2000000 --warmup 100000 --engine-cpu 1 --cpus 2,3,4,5 --format json \
    -o "$d/proxy-rate.jsonl"
}
