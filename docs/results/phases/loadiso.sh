# SPDX-License-Identifier: Apache-2.0
# GPU phase "loadiso" (sourced by docs/results/h200-run.sh; uses its step, $M, $OUT and rr from
# docs/results/phases/medians.sh): gda loaded --target cuda with the probe's QPs on an engine
# thread of their own (docs/design/methods.md 6.3, "Engine placement"). The claim under test:
# at 64 background CTAs reserved queues keep the probe's p50 within 2x of idle while a shared
# queue grows >= 10x. With one software-NIC engine thread the reserved probe also waits behind
# the background's WQEs inside the engine (an emulator capacity limit); here 4 pinned engine
# threads, thread 0 serving only the probe (--probe-engine dedicated), beside the same sweep on
# today's single engine thread, a control with the background spread over all 4 threads
# (--probe-engine shared: more engine capacity without isolation), and one paced reserved point.
# Each family: three process runs merged to medians (scripts/repeat-runs.sh + marrow merge-runs).
# Merged files: $OUT/medians/loadiso-<name>.jsonl; per-run files beside them in -runs/.
# EMULATED NIC ("hardware": false, "nic_hardware": false); the GPU is real ("gpu_hardware": true).
# Step bounds sum to 231 s; the single-engine sweep took ~1-9 s per run before.
phase_loadiso() {
  mkdir -p "$OUT/medians"
  local L="gda loaded --target cuda --iters 2000 --warmup 200"
  local T4="--engine-threads 4 --engine-cpus 2,3,4,5"
  rr loadiso-t4-dedicated 75 $M $L $T4 --probe-engine dedicated --background 0,1,4,16,64 --queue both \
    --max-seconds 15
  rr loadiso-t1 66 $M $L --engine-cpu 2 --background 0,1,4,16,64 --queue both --max-seconds 12
  rr loadiso-t4-shared-64 45 $M $L $T4 --probe-engine shared --background 0,64 --queue reserved --max-seconds 8
  rr loadiso-t4-dedicated-paced 45 $M $L $T4 --probe-engine dedicated --background 64 --queue reserved \
    --pace 30M --max-seconds 8
}
