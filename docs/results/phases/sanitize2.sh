#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU phase "sanitize2" (sourced by docs/results/h200-run.sh: step, $M, $CS, $OUT): compute-sanitizer
# memcheck, synccheck and racecheck over the kernel families added after the first sanitizer pass
# (docs/results/h200-compute-sanitizer.md): gda rate (CPU engine and device engine), gda goodput,
# gda loaded, the kernel-cost callers, gda latency on GPU-resident queues (device engine) and the
# doorbell-to-CQE experiment. Small counts: correctness, not timing. Each run is bounded; a tool
# that serialises kernels can make a device-engine run wait for its own engine, which then ends
# as a timeout (recorded, not hidden). Logs: $OUT/sanitize2/<tool>-<family>.log.
sanitize2_one() { # tool
  local t=$1 S="$CS --tool $1 --target-processes all --error-exitcode 99 --print-limit 20" d="$OUT/sanitize2"
  local G="--target cuda --quiet --format json"
  step "s2-$t-rate" 40 sh -c "$S $M gda rate $G --nic softnic --blocks 2 --threads 32 --qps 2 --batch 4 \
    --messages 2000 --warmup 0 --repeats 1 >$d/$t-rate.jsonl 2>$d/$t-rate.log"
  step "s2-$t-rate-devnic" 40 sh -c "$S $M gda rate $G --nic softnic-device --nic-sms 1 --blocks 1 --threads 32 \
    --qps 1 --batch 4 --messages 2000 --warmup 0 --repeats 1 >$d/$t-rate-devnic.jsonl 2>$d/$t-rate-devnic.log"
  step "s2-$t-goodput" 40 sh -c "$S $M gda goodput $G --sizes 8,4096 --bytes-per-point 65536 --iters 10 \
    --warmup 2 >$d/$t-goodput.jsonl 2>$d/$t-goodput.log"
  step "s2-$t-loaded" 40 sh -c "$S $M gda loaded $G --background 0,4 --queue reserved --iters 50 --warmup 5 \
    >$d/$t-loaded.jsonl 2>$d/$t-loaded.log"
  step "s2-$t-kcost" 40 sh -c "$S $M kernel-cost --quiet --format json --transport gda,proxy --arms dormant,send-wait \
    --live 32 --msgs 1 --sizes 8 --blocks 8 --launches 1 --warmup 0 >$d/$t-kcost.jsonl 2>$d/$t-kcost.log"
  step "s2-$t-devengine" 40 sh -c "$S $M gda latency $G --nic softnic --placement gpu --nic-sms 1 \
    --experiments issue,putc --iters 100 --warmup 10 >$d/$t-devengine.jsonl 2>$d/$t-devengine.log"
  step "s2-$t-db2cqe" 40 sh -c "$S $M gda latency $G --nic softnic --experiments db2cqe --iters 100 --warmup 10 \
    >$d/$t-db2cqe.jsonl 2>$d/$t-db2cqe.log"
}
phase_sanitize2() {
  mkdir -p "$OUT/sanitize2"
  local t
  for t in ${SANITIZE2_TOOLS:-memcheck synccheck racecheck}; do sanitize2_one "$t"; done
}
