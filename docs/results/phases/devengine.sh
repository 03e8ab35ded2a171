#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU phase "devengine" (sourced by docs/results/h200-run.sh; uses its step, $M, $J, $OUT):
# the software NIC's device engine (docs/design/device-engine.md).
#   1. fidelity: test_softnic_device_fidelity (built here with gcc against the staged
#      libmarrow_cuda.so; CPU engine vs device engine, same CQE streams) and the GPU-tagged
#      JUnit class MiniGdaDeviceEngineTest
#   2. gda issue + put+completion p50/p99, every ordering x {inline, pointer}, host-resident
#      queues (CPU engine) vs GPU-resident queues (device engine, 1 SM); GPU-resident size sweep
#   3. the device engine's ceiling: 8 B inline WRITEs, 16 and 32 QPs, 1/2/4/8 engine SMs
# JSON lines in $OUT/devengine/; every step bounded; about 4 minutes in all.
phase_devengine() {
  local D="$OUT/devengine" SO="$PWD/native/target/stage/lib/libmarrow_cuda.so"
  mkdir -p "$D"
  # The H200 runs of the first device-engine build hung in every fresh process: a kernel's
  # first launch beside the running engine waited for lazy module loading, which waits for
  # an idle device. The library now loads those kernels before starting the engine and
  # defaults CUDA_MODULE_LOADING to EAGER. Canaries first, each bounded: the C bench with
  # the default (eager) loading, then with LAZY forced (the preload alone must suffice).
  if [ -x .jrt/bin/softnic_device_rate ]; then cp .jrt/bin/softnic_device_rate "$D/"; else
  step devengine-build-rate 30 gcc -std=gnu11 -O2 -Inative/include native/bench/softnic_device_rate.c -ldl \
    -o "$D/softnic_device_rate"; fi
  step devengine-canary 20 sh -c "\"$D/softnic_device_rate\" \"$SO\" 16 1 32 20000 1 >>\"$D/canary.jsonl\""
  if tail -1 "$OUT/steps.txt" | grep -q "rc=124"; then
    echo "devengine: the canary hit its time limit; the other device-engine steps are skipped" | tee -a "$OUT/steps.txt"
    return 0
  fi
  step devengine-canary-lazy 20 env CUDA_MODULE_LOADING=LAZY sh -c \
    "\"$D/softnic_device_rate\" \"$SO\" 16 1 32 20000 1 >>\"$D/canary-lazy.jsonl\""
  step devengine-gda-gpu 90 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
    --sweep ordering --experiments issue,putc --iters 5000 --warmup 500 --format json \
    -o "$D/gda-ordering-gpu.jsonl"
  step devengine-gda-host 90 $M gda latency --target cuda --nic softnic --engine-cpu 3 --sweep ordering \
    --experiments issue,putc --iters 5000 --warmup 500 --format json -o "$D/gda-ordering-host.jsonl"
  step devengine-gda-gpu-size 60 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
    --sweep size --iters 2000 --warmup 200 --format json -o "$D/gda-size-gpu.jsonl"
  local q s
  for q in ${DEVENGINE_QPS:-16 32}; do
    for s in ${DEVENGINE_SMS:-1 2 4 8}; do
      step "devengine-rate-q$q-s$s" 30 sh -c "\"$D/softnic_device_rate\" \"$SO\" $q $s 32 100000 3 >>\"$D/rate.jsonl\""
    done
  done
  if [ -x .jrt/bin/test_softnic_device_fidelity ]; then cp .jrt/bin/test_softnic_device_fidelity "$D/"; else
  step devengine-build-fidelity 60 gcc -std=gnu11 -O2 -Inative/include -Inative/src -Inative/tests \
    -DMARROW_CUDA_SO="\"$SO\"" native/tests/test_softnic_device_fidelity.c native/src/softnic/*.c \
    native/src/common/*.c -lpthread -ldl -o "$D/test_softnic_device_fidelity"; fi
  step devengine-fidelity 60 "$D/test_softnic_device_fidelity"
}
