#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU phase "devlat4" (sourced by docs/results/h200-run.sh; uses its step, $OUT): the device
# engine's warp mode (docs/design/device-engine.md §2.4: the 32 lanes of a warp execute a QP's
# run of one-WQEBB inline WRITEs at once) against the thread-per-QP mode.
#   1. the fidelity test (CPU engine vs device engine CQE streams and bytes), now also with the
#      device engine in warp mode, an overlapping-destination scenario and the stage profile
#      in warp mode. A failure or hang here skips the rate steps.
#   2. the C rate bench (native/bench/softnic_device_rate.c), 8 B inline WRITEs, GPU-resident
#      queues, 8 engine SMs, batch 16, 3 repeats: 16 and 64 QPs, thread mode (32 threads per
#      SM, as before) and warp mode (one warp per QP: 64 or 256 threads per SM).
# JSON lines in $OUT/devlat4/; step bounds sum to 90 s, plus 35 s for the two builds when
# .jrt/bin does not carry the binaries (both must be built from this branch's sources: the rate
# bench takes new optional arguments, and the fidelity test runs the warp mode).
phase_devlat4() {
  local D="$OUT/devlat4" SO="$PWD/native/target/stage/lib/libmarrow_cuda.so" q m
  mkdir -p "$D"
  if [ -x .jrt/bin/test_softnic_device_fidelity ]; then cp .jrt/bin/test_softnic_device_fidelity "$D/"; else
  step devlat4-build-fidelity 25 gcc -std=gnu11 -O2 -Inative/include -Inative/src -Inative/tests \
    -DMARROW_CUDA_SO="\"$SO\"" native/tests/test_softnic_device_fidelity.c native/src/softnic/*.c \
    native/src/common/*.c -lpthread -ldl -o "$D/test_softnic_device_fidelity"; fi
  step devlat4-fidelity 30 sh -c "\"$D/test_softnic_device_fidelity\" >\"$D/fidelity.txt\" 2>&1"
  if tail -1 "$OUT/steps.txt" | grep -Eq "rc=(1|124|137) "; then
    echo "devlat4: the fidelity test failed or hit its limit; the rate steps are skipped" | tee -a "$OUT/steps.txt"
    return 0
  fi
  if [ -x .jrt/bin/softnic_device_rate ]; then cp .jrt/bin/softnic_device_rate "$D/"; else
  step devlat4-build-rate 10 gcc -std=gnu11 -O2 -Inative/include native/bench/softnic_device_rate.c -ldl \
    -o "$D/softnic_device_rate"; fi
  for q in 16 64; do
    for m in thread warp; do
      # softnic_device_rate SO NQPS NIC_SMS BATCH MSGS_PER_QP REPEATS MODE
      step "devlat4-rate-$m-q$q" 15 sh -c "\"$D/softnic_device_rate\" \"$SO\" $q 8 16 20000 3 $m >>\"$D/rate.jsonl\""
    done
  done
}
