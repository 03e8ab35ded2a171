#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU phase "lane9" (sourced by docs/results/h200-run.sh; uses its step, $M, $OUT): the device
# engine's lane layout and lane path (docs/design/device-engine.md §2.4) against its targets
# (put+completion <= 1.5 us; >= 300 M msg/s on <= 8 SMs over >= 16 QPs).
#   1. the fidelity test first (every device scenario in both layouts against the CPU engine;
#      counters of the two layouts compared): a failure is recorded, the measurements still run
#   2. stage profile, inline and pointer, 1 engine SM (lane layout, the default)
#   3. gda issue and put+completion, GPU-resident queues, 1 engine SM: the ordering sweep, then the
#      size sweep (gpu-fence)
#   4. the engine's ceiling (native/bench/softnic_device_rate.c): 8 B inline, batch 16, 8 SMs;
#      64 and 16 QPs in the lane layout, 64 QPs in the thread layout beside them; 3 repeats each
#   5. gda rate on the device engine: 64 QPs, 8 SMs, batch 16
# JSON lines in $OUT/lane9/; step bounds sum to 300 s.
phase_lane9() {
  local D="$OUT/lane9" SO="$PWD/native/target/stage/lib/libmarrow_cuda.so" b
  mkdir -p "$D"
  for b in test_softnic_device_fidelity softnic_device_stages softnic_device_rate; do
    [ -x .jrt/bin/$b ] && cp .jrt/bin/$b "$D/"
  done
  step lane9-fidelity 40 sh -c "\"$D/test_softnic_device_fidelity\" >\"$D/fidelity.txt\" 2>&1"
  for p in inline pointer; do
    step "lane9-stages-$p" 20 sh -c "\"$D/softnic_device_stages\" \"$SO\" $p 4000 96 1 >>\"$D/stages.jsonl\""
  done
  step lane9-gda-ordering 60 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
    --sweep ordering --experiments issue,putc --iters 5000 --warmup 500 --format json -o "$D/gda-ordering-gpu-sms1.jsonl"
  step lane9-gda-size 50 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
    --ordering gpu-fence --sweep size --iters 2000 --warmup 200 --format json -o "$D/gda-size-gpu-sms1.jsonl"
  step lane9-rate-64-lane 25 sh -c "\"$D/softnic_device_rate\" \"$SO\" 64 8 16 100000 3 lane >>\"$D/rate.jsonl\""
  step lane9-rate-16-lane 25 sh -c "\"$D/softnic_device_rate\" \"$SO\" 16 8 16 100000 3 lane >>\"$D/rate.jsonl\""
  step lane9-rate-64-thread 25 sh -c "\"$D/softnic_device_rate\" \"$SO\" 64 8 16 100000 3 thread >>\"$D/rate.jsonl\""
  step lane9-gda-rate 45 $M gda rate --target cuda --nic softnic-device --nic-sms 8 --blocks 64 --threads 1 \
    --qps 64 --qp-map block --batch 16 --messages 50000 --warmup 4800 --format json -o "$D/rate-devnic.jsonl"
}

# Phase "lane9b": the floor under put+completion (native/bench/sm_handoff.cu: two SMs hand a message
# back and forth through GPU memory, bare and with the engine's memory-model obligations), and the
# device engine fed by the throughput kernel with warp-cooperative posters (gda rate --publication
# warp), 64 and 16 QPs, 8 engine SMs. JSON lines in $OUT/lane9b/; step bounds sum to 150 s.
phase_lane9b() {
  local D="$OUT/lane9b" v q
  mkdir -p "$D"
  for v in relaxed engine engine-ldacq; do
    step "lane9b-handoff-$v" 15 sh -c ".jrt/bin/sm_handoff $v 20000 >>\"$D/handoff.jsonl\""
  done
  for q in 64 16; do
    step "lane9b-gda-rate-warp-$q" 50 $M gda rate --target cuda --nic softnic-device --nic-sms 8 --blocks $q \
      --threads 32 --qps $q --qp-map block --publication warp --batch 32 --signal-period 32 --ordering gpu-fence \
      --messages 20000 --warmup 2000 --repeats 3 --format json -o "$D/rate-devnic-warp-$q.jsonl"
  done
}

# Phase "lane9c": the GPU-tagged JUnit tests of the device engine's rate path (the record's engine
# layout included) and of mini-gda on GPU-resident queues (MiniGdaDeviceEngineTest: the latency
# record's engine layout, threads per SM and distinct SMs), then lane9b's steps again. Needs
# .jrt/junit.jar and java/target/test-classes carried.
phase_lane9c() {
  step lane9c-junit 120 $J -jar .jrt/junit.jar execute -cp java/target/test-classes:java/target/marrow-cli.jar \
    --select-class dev.marrow.gda.rate.GdaRateDeviceEngineGpuTest --select-class dev.marrow.gda.MiniGdaDeviceEngineTest \
    --details=tree --disable-banner
  phase_lane9b
}
