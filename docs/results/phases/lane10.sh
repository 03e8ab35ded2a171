#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU phase "lane10" (sourced by docs/results/h200-run.sh; uses its step, $M, $OUT): put+completion on
# GPU-resident queues after the completion side's acquire became fence.acquire.gpu and exec_ci a
# GPU-scope relaxed store (docs/design/orderings.md, "The completion side"), with the pieces that
# split it:
#   1. the fidelity test (every device scenario in both layouts against the CPU engine)
#   2. gda issue, put+completion and doorbell-to-CQE (db2cqe), the ordering sweep, 1 engine SM;
#      the size sweep (gpu-fence)
#   3. the floor (native/bench/sm_handoff.cu), six variants: relaxed, engine, engine-ldacq; the
#      engine's responder with mini-gda's initiator primitives, old (gda) and new (gda-acq)
#      completion side; gda-lines, whose responder touches as many lines as the lane path did
#   4. the stage profile, inline; the engine's ceiling, 64 QPs, lane layout; gda rate, warp
#      posters, 64 QPs, 8 engine SMs (the rate target must still hold)
# JSON lines in $OUT/lane10/; step bounds sum to 330 s.
phase_lane10() {
  local D="$OUT/lane10" SO="$PWD/native/target/stage/lib/libmarrow_cuda.so" b v
  mkdir -p "$D"
  for b in test_softnic_device_fidelity softnic_device_stages softnic_device_rate; do
    [ -x .jrt/bin/$b ] && cp .jrt/bin/$b "$D/"
  done
  step lane10-fidelity 40 sh -c "\"$D/test_softnic_device_fidelity\" >\"$D/fidelity.txt\" 2>&1"
  step lane10-gda-ordering 70 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
    --sweep ordering --experiments issue,putc,db2cqe --iters 5000 --warmup 500 --format json \
    -o "$D/gda-ordering-gpu-sms1.jsonl"
  step lane10-gda-size 50 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
    --ordering gpu-fence --sweep size --iters 2000 --warmup 200 --format json -o "$D/gda-size-gpu-sms1.jsonl"
  for v in relaxed engine engine-ldacq gda gda-acq gda-lines; do
    step "lane10-handoff-$v" 15 sh -c ".jrt/bin/sm_handoff $v 20000 >>\"$D/handoff.jsonl\""
  done
  step lane10-stages-inline 20 sh -c "\"$D/softnic_device_stages\" \"$SO\" inline 4000 96 1 >>\"$D/stages.jsonl\""
  step lane10-rate-64-lane 25 sh -c "\"$D/softnic_device_rate\" \"$SO\" 64 8 16 100000 3 lane >>\"$D/rate.jsonl\""
  step lane10-gda-rate-warp-64 50 $M gda rate --target cuda --nic softnic-device --nic-sms 8 --blocks 64 \
    --threads 32 --qps 64 --qp-map block --publication warp --batch 32 --signal-period 32 --ordering gpu-fence \
    --messages 20000 --warmup 2000 --repeats 3 --format json -o "$D/rate-devnic-warp-64.jsonl"
}
