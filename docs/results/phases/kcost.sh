# SPDX-License-Identifier: Apache-2.0
# GPU phase "kcost" (sourced by docs/results/h200-run.sh; run as `... h200-run.sh kcost`):
# the kernel-cost study (docs/design/methods.md §7), the doorbell-to-CQE
# time, the 50 us timer check, and three-process-run medians of mini-gda
# put+completion and mini-proxy latency (docs/design/methods.md §8-§10).
# JSON lines under $OUT/kcost/. About 4 minutes in all (the kernel-cost matrix stops starting
# points after --max-seconds); every step bounded by `timeout`.
# The NIC is the software NIC throughout: kernel-cost records of the sending
# arms say "hardware": false, "gpu_hardware": true, "nic_hardware": false;
# the baseline and dormant arms use no NIC.
phase_kcost() {
  local d="$OUT/kcost"
  mkdir -p "$d"
  # Dormant code at every built live-value count, 15 timed launches per point (no NIC needed).
  step kcost-dormant 45 $M kernel-cost --arms dormant --live 8,16,32,160,224 --launches 15 --warmup 3 \
    --max-seconds 35 --quiet --format json -o "$d/kernel-cost-dormant.jsonl"
  # The second residency point of the paper "GPU-Initiated Communication: Dissecting Down to the Bone": eight blocks per SM (1056 blocks), streaming caller, 16 live values.
  step kcost-dormant-1056 25 $M kernel-cost --arms dormant --caller stream --live 16 --blocks 1056 \
    --launches 15 --warmup 3 --max-seconds 20 --quiet --format json -o "$d/kernel-cost-dormant-1056.jsonl"
  # The full matrix per transport: 2 callers x live 32,160,224 x (dormant + {1,4,16} x {8 B, 7 KiB} x
  # {send, send-wait}), fewer launches to stay inside the bound.
  step kcost-gda 80 $M kernel-cost --transport gda --launches 7 --warmup 2 --engine-cpu 3 \
    --max-seconds 65 --quiet --format json -o "$d/kernel-cost-gda.jsonl"
  step kcost-proxy 80 $M kernel-cost --transport proxy --launches 7 --warmup 2 --engine-cpu 3 \
    --max-seconds 65 --quiet --format json -o "$d/kernel-cost-proxy.jsonl"
  # Doorbell store to the first sight of the valid CQE, beside put+completion of the same queues.
  step kcost-db2cqe 45 $M gda latency --target cuda --nic softnic --engine-cpu 3 --experiments putc,db2cqe \
    --iters 20000 --warmup 2000 --quiet --format json -o "$d/db2cqe.jsonl"
  # Timer check: a 50 us responder delay must move the round trip by 50 us +- 1.
  step kcost-timer-check 45 $M gda timer-check --target cuda --engine-cpu 3 --delay-us 50 --tolerance-us 1 \
    --iters 5000 --warmup 500 --quiet --format json -o "$d/timer-check.jsonl"
  # Repetition: three process runs each, merged to median [min, max] per point.
  step kcost-gda-3runs 60 env MARROW="$M" scripts/repeat-runs.sh -n 3 -o "$d/gda-latency-3runs.jsonl" \
    -k "$d/gda-latency-runs" -- $M gda latency --target cuda --nic softnic --engine-cpu 3 \
    --experiments issue,putc,rtt --iters 20000 --warmup 2000 --quiet
  step kcost-proxy-3runs 75 env MARROW="$M" scripts/repeat-runs.sh -n 3 -o "$d/proxy-latency-3runs.jsonl" \
    -k "$d/proxy-latency-runs" -- $M proxy latency --producer cuda --handoff both --iters 20000 --warmup 2000 \
    --engine-cpu 5 --cpus 6,7 --quiet
}
