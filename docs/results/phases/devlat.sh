#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU phase "devlat" (sourced by docs/results/h200-run.sh; uses its step, $M, $OUT): the device
# engine's put+completion latency after the per-WQE path was shortened (engine counters in
# private memory, doorbell slots and quiet state of owned QPs in registers, acquire/acq_rel
# atomics instead of fence + atomic + fence; docs/design/device-engine.md §2).
#   1. canary: the C rate bench on GPU-resident queues (bounded 20 s; the phase stops if it hangs)
#   2. gda issue + put+completion, GPU-resident queues, every ordering, 1 engine SM
#   3. the same for gpu-fence with 8 engine SMs
#   4. gda rate on the device engine: 64 QPs, 8 SMs, batch 16 (no-regression row)
#   5. the fidelity test (CPU engine vs device engine CQE streams), built as phase devengine does
# JSON lines in $OUT/devlat/ ($OUT/$DEVLAT_DIR/ when set); step bounds sum to 165 s, plus 35 s for the two builds when
# .jrt/bin does not carry the binaries.
phase_devlat() {
  local D="$OUT/${DEVLAT_DIR:-devlat}" SO="$PWD/native/target/stage/lib/libmarrow_cuda.so"
  mkdir -p "$D"
  if [ -x .jrt/bin/softnic_device_rate ]; then cp .jrt/bin/softnic_device_rate "$D/"; else
  step devlat-build-rate 10 gcc -std=gnu11 -O2 -Inative/include native/bench/softnic_device_rate.c -ldl \
    -o "$D/softnic_device_rate"; fi
  step devlat-canary 20 sh -c "\"$D/softnic_device_rate\" \"$SO\" 16 1 32 20000 1 >>\"$D/canary.jsonl\""
  if tail -1 "$OUT/steps.txt" | grep -q "rc=124"; then
    echo "devlat: the canary hit its time limit; the other devlat steps are skipped" | tee -a "$OUT/steps.txt"
    return 0
  fi
  step devlat-gda-gpu-sms1 60 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
    --sweep ordering --experiments issue,putc --iters 5000 --warmup 500 --format json \
    -o "$D/gda-ordering-gpu-sms1.jsonl"
  step devlat-gda-gpu-sms8 25 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 8 \
    --ordering gpu-fence --experiments issue,putc --iters 5000 --warmup 500 --format json \
    -o "$D/gda-gpufence-gpu-sms8.jsonl"
  step devlat-rate 45 $M gda rate --target cuda --nic softnic-device --nic-sms 8 --blocks 64 --threads 1 \
    --qps 64 --qp-map block --batch 16 --messages 50000 --warmup 4800 --format json -o "$D/rate-devnic.jsonl"
  if [ -x .jrt/bin/test_softnic_device_fidelity ]; then cp .jrt/bin/test_softnic_device_fidelity "$D/"; else
  step devlat-build-fidelity 25 gcc -std=gnu11 -O2 -Inative/include -Inative/src -Inative/tests \
    -DMARROW_CUDA_SO="\"$SO\"" native/tests/test_softnic_device_fidelity.c native/src/softnic/*.c \
    native/src/common/*.c -lpthread -ldl -o "$D/test_softnic_device_fidelity"; fi
  step devlat-fidelity 15 sh -c "\"$D/test_softnic_device_fidelity\" >\"$D/fidelity.txt\" 2>&1"
}

# Phase "devsize": the size sweep on GPU-resident queues (device engine, 1 SM, gpu-fence, inline),
# one pass, beside devlat's ordering sweep (JSON lines in the same folder).
phase_devsize() {
  local D="$OUT/${DEVLAT_DIR:-devlat}"
  mkdir -p "$D"
  step devsize-gda-gpu-sms1 60 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
    --sweep size --iters 2000 --warmup 200 --format json -o "$D/gda-size-gpu-sms1.jsonl"
}
