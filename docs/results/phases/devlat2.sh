#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU phase "devlat2" (sourced by docs/results/h200-run.sh; uses its step, $M, $OUT): where the
# device engine's put+completion goes, and the per-WQE path after its dependent round trips were
# cut (docs/design/device-engine.md §2.1, §2.2).
#   1. stage profile (native/bench/softnic_device_stages.c): one initiator thread, 8 B WRITEs on
#      GPU-resident queues, 1 engine SM, gpu-fence; median SM cycles and ns per engine stage
#      (slot seen -> taken -> fetched -> executed -> CQE written) beside the initiator-visible
#      put+completion of the same run, inline and pointer. Also the canary: a hang skips the rest.
#   2. gda put+completion, GPU-resident queues, 1 engine SM, gpu-fence: inline and pointer 8 B
#   3. the same, size sweep
#   4. gda rate on the device engine: 64 QPs, 8 SMs, batch 16 (no-regression row)
#   5. the fidelity test (CPU engine vs device engine CQE streams), built as phase devlat does
# JSON lines in $OUT/devlat2/; step bounds sum to 200 s, plus 35 s for the two builds when
# .jrt/bin does not carry the binaries.
phase_devlat2() { devlat_stage_steps devlat2; }

# The steps above, named NAME-* and written to $OUT/NAME/ (phase devlat3 runs them again).
devlat_stage_steps() {
  local n=$1 D="$OUT/$1" SO="$PWD/native/target/stage/lib/libmarrow_cuda.so" p
  mkdir -p "$D"
  if [ -x .jrt/bin/softnic_device_stages ]; then cp .jrt/bin/softnic_device_stages "$D/"; else
  step $n-build-stages 10 gcc -std=gnu11 -O2 -Inative/include native/bench/softnic_device_stages.c -ldl \
    -o "$D/softnic_device_stages"; fi
  for p in inline pointer; do
    step "$n-stages-$p" 20 sh -c "\"$D/softnic_device_stages\" \"$SO\" $p 4000 96 1 >>\"$D/stages.jsonl\""
    if tail -1 "$OUT/steps.txt" | grep -q "rc=124"; then
      echo "$n: the stage profile hit its time limit; the other $n steps are skipped" | tee -a "$OUT/steps.txt"
      return 0
    fi
  done
  for p in inline pointer; do
    step "$n-gda-$p" 25 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
      --ordering gpu-fence --payload $p --size 8 --experiments issue,putc --iters 5000 --warmup 500 --format json \
      -o "$D/gda-gpufence-$p-sms1.jsonl"
  done
  step $n-gda-size 50 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
    --ordering gpu-fence --sweep size --iters 2000 --warmup 200 --format json -o "$D/gda-size-gpu-sms1.jsonl"
  step $n-rate 45 $M gda rate --target cuda --nic softnic-device --nic-sms 8 --blocks 64 --threads 1 \
    --qps 64 --qp-map block --batch 16 --messages 50000 --warmup 4800 --format json -o "$D/rate-devnic.jsonl"
  if [ -x .jrt/bin/test_softnic_device_fidelity ]; then cp .jrt/bin/test_softnic_device_fidelity "$D/"; else
  step $n-build-fidelity 25 gcc -std=gnu11 -O2 -Inative/include -Inative/src -Inative/tests \
    -DMARROW_CUDA_SO="\"$SO\"" native/tests/test_softnic_device_fidelity.c native/src/softnic/*.c \
    native/src/common/*.c -lpthread -ldl -o "$D/test_softnic_device_fidelity"; fi
  step $n-fidelity 15 sh -c "\"$D/test_softnic_device_fidelity\" >\"$D/fidelity.txt\" 2>&1"
}
