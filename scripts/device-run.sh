#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One batched H200 call (device tool), run from the repository root with a
# build made on the development machine (java/target/marrow-cli.jar,
# java/target/test-classes, native/target/stage/lib) and a jlinked runtime
# in .jrt/jrt plus the JUnit console in .jrt/junit.jar:
#   OUT=$OUT bash scripts/device-run.sh PHASE...
# scripts/device-prep.sh builds the carried helpers (.jrt/bin, .jrt/jrt) and checks the jar's provenance
# and the carry limit before the call; nothing in the tree moves (docs/results is small).
# Phases (any subset, in order):
#   env        nvidia-smi, CPU, doctor
#   junit      every GPU-tagged JUnit test (tree output)
#   sanitize   compute-sanitizer memcheck, racecheck and synccheck over every
#              kernel family (gda orderings x payloads, gda round trip, proxy
#              latency and rate producers, DSM timer/latency/one-way/TMA),
#              with small counts: correctness, not timing
#   scaling    softnic rate, 8 B inline, batch 16, P producers = E engines,
#              P in 1 2 4 8 (pinned where the CLI supports it)
#   gda        gda latency ordering sweep + put+completion (no-regression rows)
#   proxy      proxy rate, CUDA producers (no-regression rows)
#   dsm        DSM run 2: probes E11-E16 and the load-width sweep (docs/results/h200-dsm.md)
#   soak       SOAK_SECONDS (default 570) of back-to-back gda put+completion
#              runs (cuda, 10^6 iterations each) and, at the same time, proxy
#              latency runs (cuda producers, tuned handoff), on disjoint CPUs;
#              one JSON file per run, for the percentile-drift check
#   fuzz       the software-NIC libFuzzer harness built here (scripts/fuzz.sh,
#              carried as .jrt/fuzz/softnic_fuzz): 15 jobs x 666,667 runs =
#              10^7 executions over a copy of the committed corpus
# Every step is bounded by `timeout`; each writes its log under $OUT and one
# line to $OUT/steps.txt (name, exit code, milliseconds). Clocks and GPU
# settings are never touched.
set -u
OUT="${OUT:-out}"
mkdir -p "$OUT"
export JAVA_HOME="$PWD/.jrt/jrt"
J="$JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED -Dmarrow.native.dir=native/target/stage/lib"
M="$J -jar java/target/marrow-cli.jar"
CS=compute-sanitizer
command -v $CS >/dev/null || CS=/usr/local/cuda/bin/compute-sanitizer

# HARD_END_S (seconds since this script started): no step starts after it, and every step's
# limit is cut to what is left, so one device call ends inside its own limit with its files.
step() { local name=$1 limit=$2; shift 2; local t0; t0=$(date +%s%N)
  if [ -n "${HARD_END_S:-}" ]; then
    local rem=$((HARD_END_S - SECONDS))
    if [ "$rem" -lt 5 ]; then echo "$name skipped (HARD_END_S)" | tee -a "$OUT/steps.txt"; return 0; fi
    [ "$rem" -lt "$limit" ] && limit=$rem
  fi
  # -k: a child that survives SIGTERM (a JVM whose shutdown waits on a stuck CUDA call, say)
  # is killed 10 s later, so no orphan competes with the steps after it.
  timeout -k 10 "$limit" "$@" >"$OUT/$name.log" 2>&1; local rc=$?
  echo "$name rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$OUT/steps.txt"; }

phase_env() {
  { nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,pcie.link.gen.current,pcie.link.width.current --format=csv
    lscpu | grep -E "Model name|^CPU\(s\)|NUMA|MHz"; $CS --version 2>&1 | head -3; } >"$OUT/env.txt" 2>&1
  step doctor 60 $M doctor
}

phase_junit() {
  step junit-gpu 300 $J -jar .jrt/junit.jar execute -cp java/target/test-classes:java/target/marrow-cli.jar \
    --include-tag gpu --scan-classpath --details=tree --disable-banner
}

sanitize_one() { # tool
  local t=$1 S="$CS --tool $1 --target-processes all --error-exitcode 99 --print-limit 20"
  step "cs-$t-gda-sweep" 240 $S $M gda latency --target cuda --nic softnic --sweep ordering --iters 40 --warmup 4 --format json
  step "cs-$t-gda-rtt" 120 $S $M gda latency --target cuda --nic softnic --experiments rtt --iters 40 --warmup 4 --format json
  step "cs-$t-proxy-latency" 120 $S $M proxy latency --producer cuda --handoff both --iters 200 --warmup 20 --format json
  step "cs-$t-proxy-rate" 120 $S $M proxy rate --producer cuda --handoff both --workers 1 --rings 4 --batch 4 --messages 20000 --warmup 1000 --format json
  step "cs-$t-dsm" 240 $S $M dsm run --experiment E0,E1,E2,E4 --reps 2 --warmup 0 --format json --quiet
}
phase_sanitize() { for t in memcheck racecheck synccheck; do sanitize_one $t; done; }

phase_scaling() {
  local p
  for p in ${SCALING_POINTS:-1 2 4 8}; do
    local pin=""
    if $M softnic rate --help 2>&1 | grep -q -- "--producer-cpus"; then
      local base=1; [ $((2 * p + 1)) -gt "$(nproc)" ] && base=0   # 8+8 on 16 CPUs: use CPU 0 too
      pin="--engine-cpus $(seq -s, $base $((base + p - 1))) --producer-cpus $(seq -s, $((base + p)) $((base + 2 * p - 1)))"
    fi
    step "scaling-p$p" 180 $M softnic rate --size 8 --batch 16 --producers $p --engine-threads $p --poll hot \
      $pin --repeats 5 --format json -o "$OUT/scaling-p$p.jsonl"
  done
}

phase_gda() {
  step gda-ordering 300 $M gda latency --target cuda --nic softnic --engine-cpu 3 --sweep ordering \
    --iters 20000 --warmup 2000 --format json -o "$OUT/gda-ordering.jsonl"
}

phase_proxy() {
  step proxy-rate 240 $M proxy rate --producer cuda --handoff tuned --workers 1,2,4 --rings 32 --batch 16,32 \
    --engine-threads 4 --messages 2000000 --warmup 100000 --engine-cpu 1 --cpus 2,3,4,5 --format json \
    -o "$OUT/proxy-rate.jsonl"
}

# DSM run 2 (was docs/results/h200-dsm-run2.sh): the probes E11-E16 and the load-width sweep of
# docs/results/h200-dsm.md, in a subshell so its own step() and $OUT stay its own. The study:
# "How does Hopper distributed shared memory actually move data?".
phase_dsm() (
  OUT="$OUT/dsm"
  : "${J:?set J to the java command, e.g. .jrt/jrt-px/bin/java --enable-native-access=ALL-UNNAMED -Dmarrow.native.dir=native/target/stage/lib}"
  OUT="${OUT:-out}"
  W="$OUT/run2"
  mkdir -p "$W"
  CLI="$J -jar java/target/marrow-cli.jar dsm run"

  smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1; }
  { echo "# before"; smi; git rev-parse HEAD 2>/dev/null; } > "$W/nvidia-smi.txt"

  step() { local name=$1 secs=$2; shift 2; local t0=$(date +%s%N)
    timeout "$secs" "$@" > "$W/$name.out" 2> "$W/$name.log"; local rc=$?
    echo "$name rc=$rc $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$W/steps.txt"; }

  # The probes, one process each so that one failure loses nothing else.
  step e11-offset   35 $CLI --experiment E11 --format json -o "$W/e11-offset.jsonl"
  step e12-pressure 25 $CLI --experiment E12 --format json -o "$W/e12-pressure.jsonl"
  step e13-burst    35 $CLI --experiment E13 --format json -o "$W/e13-burst.jsonl"
  step e14-store    20 $CLI --experiment E14 --format json -o "$W/e14-store.jsonl"
  step e15-ring16   25 $CLI --experiment E15 --format json -o "$W/e15-ring16.jsonl"
  step e16-model    15 $CLI --experiment E16 --format json -o "$W/e16-model.jsonl"
  # E3 with the default kernel build in the same call, beside E14's variants.
  step e3-default   10 $CLI --experiment E3 --format json -o "$W/e3-default.jsonl"
  # Load width with the same bytes in flight at every width (16 B: the control
  # against the default INFLIGHT kernel's E2).
  for w in 4 8 16; do
    step "e2-bytes-$w" 10 $CLI --experiment E2 --load-kernel INFLIGHT_BYTES --load-width $w --format json -o "$W/e2-bytes-$w.jsonl"
  done
  # The GPU-tagged tests of the new kernels (checksums, placement, probe fields), if the JUnit console is there.
  if [ -f .jrt/junit.jar ]; then
    step gpu-tests 40 $J -jar .jrt/junit.jar execute --class-path java/target/test-classes:java/target/marrow-cli.jar \
      --select-class dev.marrow.dsm.DsmProbeGpuTest --details=tree
  fi
  { echo "# after"; smi; } >> "$W/nvidia-smi.txt"
  tar -C "$OUT" -czf "$OUT/h200-dsm-run2.tgz" run2 && rm -rf "$W"
)

soak_loop() { # name seconds command...: runs the command back to back until the time is up
  local name=$1 secs=$2 i=0 end; shift 2; end=$((SECONDS + secs))
  while [ $SECONDS -lt "$end" ]; do
    timeout 60 "$@" --format json -o "$OUT/soak/$name-$(printf %04d $i).jsonl" >>"$OUT/soak/$name.log" 2>&1
    echo "$name $i rc=$? t=$SECONDS" >>"$OUT/soak/$name.log"; i=$((i + 1))
  done
}
phase_soak() {
  local secs=${SOAK_SECONDS:-570}; mkdir -p "$OUT/soak"
  soak_loop gda "$secs" $M gda latency --target cuda --nic softnic --engine-cpu 3 --ordering gpu-fence \
    --experiments putc --iters 1000000 --warmup 2000 &
  soak_loop proxy "$secs" $M proxy latency --producer cuda --handoff tuned --iters 200000 --warmup 2000 \
    --engine-cpu 5 --cpus 6,7 &
  wait
  echo "soak rc=0 ${secs} s" | tee -a "$OUT/steps.txt"
}

phase_fuzz() {
  local root="$PWD" c="$OUT/fuzz-corpus"
  mkdir -p "$c" "$OUT/fuzz-artifacts" "$OUT/fuzz-logs"
  cp native/fuzz/corpus/softnic/* "$c/"
  (cd "$OUT/fuzz-logs" && step fuzz-1e7 540 "$root/.jrt/fuzz/softnic_fuzz" -jobs=15 -workers=15 -runs=666667 \
    -artifact_prefix="$OUT/fuzz-artifacts/" -print_final_stats=1 "$c")
  rm -rf "$c"   # grown corpus: not kept (the seeds are in the repository)
}

# The phase families below were one file each (docs/results/phases/*.sh until bc07907b0d4e); each
# defines phase_<name>() with the helpers above (step, $M, $J, $OUT).

# ===== phase family: devengine =====
# GPU phase "devengine" (in scripts/device-run.sh; uses its step, $M, $J, $OUT):
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

# ===== phase family: devlat =====
# GPU phase "devlat" (in scripts/device-run.sh; uses its step, $M, $OUT): the device
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

# ===== phase family: devlat2 =====
# GPU phase "devlat2" (in scripts/device-run.sh; uses its step, $M, $OUT): where the
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

# ===== phase family: devlat3 =====
# GPU phase "devlat3" (in scripts/device-run.sh; uses its step, $M, $OUT): the device
# engine's put+completion and stage profile after own-page doorbells are taken by comparison
# (no exchange) and the QP fields, L1 lines and first relaxed reads cross the acquire
# (docs/design/device-engine.md §2.3; before: §2.2's numbers, phase devlat2).
#   1. stage profile (native/bench/softnic_device_stages.c): one initiator thread, 8 B WRITEs on
#      GPU-resident queues, 1 engine SM, gpu-fence; median SM cycles and ns per engine stage
#      (slot seen -> taken -> fetched -> executed -> CQE written) beside the initiator-visible
#      put+completion of the same run, inline and pointer. Also the canary: a hang skips the rest.
#   2. gda put+completion, GPU-resident queues, 1 engine SM, gpu-fence: inline and pointer 8 B
#   3. the same, size sweep
#   4. gda rate on the device engine: 64 QPs, 8 SMs, batch 16 (no-regression row)
#   5. the fidelity test (CPU engine vs device engine CQE streams), built as phase devlat2 does
# JSON lines in $OUT/devlat3/; step bounds sum to 200 s, plus 35 s for the two builds when
# .jrt/bin does not carry the binaries.
phase_devlat3() { devlat_stage_steps devlat3; }   # the steps of phase family devlat2

# ===== phase family: devlat4dbg =====
# GPU phase "devlat4dbg": the device-engine fidelity test under compute-sanitizer memcheck (it found the
# system-scope CAS on a host-memory doorbell slot at the engine's exit; docs/results/h200-gpu-resident.md).
# Output: $OUT/devlat4dbg/memcheck.txt. Bounded at 120 s.
phase_devlat4dbg() {
  local D="$OUT/devlat4dbg"
  mkdir -p "$D"
  step devlat4dbg-memcheck 120 sh -c "$CS --tool memcheck --show-backtrace device --print-limit 20 \
    .jrt/bin/test_softnic_device_fidelity >\"$D/memcheck.txt\" 2>&1"
}

# ===== phase family: devx9 =====
# In scripts/device-run.sh (helpers step, $M, $J, $OUT). Phase devx9
# (docs/design/mlx5-queue-formats.md §7): mlx5 with GPU-resident queues (DevX) on
# a machine with a GPU and no RDMA NIC, so what can run here is the GPU half:
#   1. JUnit Mlx5GpuMemOpsTest (gpu-tagged): libmarrow_cuda's memory operations
#      for DevX queues on the H200 -- cudaMalloc, copies both ways, the dma-buf
#      export of cudaMalloc memory (or the driver's refusal, printed), cudaFree --
#      and MiniGdaMlx5GpuQueuesTest (the CLI/API stop with exit 77, GPU present);
#   2. the CLI, one host and --peer: must exit 77 naming the missing mlx5 device
#      (not the GPU), before any exchange.
# Writes $OUT/devx9/results.jsonl: one line per step {"step","rc","expected_rc",
# "last_line"}. Nothing here is a measurement; no NIC is touched. About 1 minute.

devx9_line() { # step expected-rc log
  local rc last
  rc=$(sed -n "s/^$1 rc=\([0-9]*\) .*/\1/p" "$OUT/steps.txt" | tail -1)
  last=$(grep -v '^\s*$' "$3" 2>/dev/null | tail -1 | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\r\t')
  printf '{"record":"devx9","step":"%s","rc":%s,"expected_rc":%s,"gpu_hardware":true,"nic_hardware":false,"last_line":"%s"}\n' \
    "$1" "${rc:-null}" "$2" "$last" >>"$OUT/devx9/results.jsonl"
}

phase_devx9() {
  local d="$OUT/devx9"
  mkdir -p "$d"
  step devx9-junit 120 $J -jar .jrt/junit.jar execute -cp java/target/test-classes:java/target/marrow-cli.jar \
    --select-class dev.marrow.mlx5.Mlx5GpuMemOpsTest --select-class dev.marrow.gda.MiniGdaMlx5GpuQueuesTest \
    --details=tree --disable-banner
  cp "$OUT/devx9-junit.log" "$d/junit.log" 2>/dev/null
  devx9_line devx9-junit 0 "$d/junit.log"
  step devx9-cli-one-host 60 $M gda latency --target cuda --nic mlx5 --placement gpu --iters 10 --warmup 1 \
    --format json
  devx9_line devx9-cli-one-host 77 "$OUT/devx9-cli-one-host.log"
  step devx9-cli-peer 60 $M gda latency --target cuda --nic mlx5 --placement gpu --peer 127.0.0.1:9 \
    --iters 10 --warmup 1 --format json
  devx9_line devx9-cli-peer 77 "$OUT/devx9-cli-peer.log"
}

# ===== phase family: dsmab =====
# GPU phase "dsmab" (in scripts/device-run.sh; uses its step, $M, $OUT):
# the DSM traffic kernel before and after the touch-word change (one word per
# load-group lane instead of one per warp, which removed racecheck's
# write-write hazard; docs/results/h200-compute-sanitizer.md). Run once with
# the build before the change and once with the build after it, with DSMAB_TAG
# naming the build ("before"/"after"); the raw records then say which kernel
# measured them (git_sha). Default E2+E3 (DSMAB_EXPS) three times (three processes), E2 at
# load widths 4 and 8, and E2 with the INFLIGHT_BYTES kernel at 4/8/16 B: every
# load experiment that runs the changed store. About 40 s; each step bounded.
phase_dsmab() {
  local tag=${DSMAB_TAG:?set DSMAB_TAG=before or after} d="$OUT/dsmab" i w exps=${DSMAB_EXPS:-E2,E3}
  mkdir -p "$d"
  for i in 1 2 3; do
    step "dsmab-$tag-default-$i" 25 $M dsm run --experiment "$exps" --format json -o "$d/$tag-default-$i.jsonl"
  done
  for w in 4 8; do
    step "dsmab-$tag-width-$w" 15 $M dsm run --experiment E2 --load-width $w --format json -o "$d/$tag-width-$w.jsonl"
  done
  for w in 4 8 16; do
    step "dsmab-$tag-bytes-$w" 15 $M dsm run --experiment E2 --load-kernel INFLIGHT_BYTES --load-width $w \
      --format json -o "$d/$tag-bytes-$w.jsonl"
  done
}

# ===== phase family: engcheck =====
# GPU phase "engcheck" (in scripts/device-run.sh: step, $M, $J, $OUT): checks after the
# second pass over the CPU engine's fast path (docs/design/software-nic.md 6.1), which changed the
# execution core that the device engine compiles too.
#   1. the device-engine fidelity test (CPU and device engine, same CQE streams), built on the
#      development machine as .jrt/bin/test_softnic_device_fidelity (it dlopens
#      ./native/target/stage/lib/libmarrow_cuda.so, so it runs from the repository root);
#   2. proxy rate with CPU producers, this build against the native libraries of the build before
#      the change (ENGCHECK_OLD_LIBS, a -Dmarrow.native.dir folder; its manifest names that build),
#      alternating, two processes each: phase engine8 measured proxy rate 20-30 % below run 3 and
#      this says whether the engine change or the machine did it.
# JSON under $OUT/engcheck/. About 1 minute.
phase_engcheck() {
  local d="$OUT/engcheck" i old=${ENGCHECK_OLD_LIBS:-}
  mkdir -p "$d"
  if [ -x .jrt/bin/test_softnic_device_fidelity ]; then
    step engcheck-fidelity 60 .jrt/bin/test_softnic_device_fidelity
  fi
  local P="proxy rate --producer cpu --handoff tuned --workers 1,4 --rings 8 --batch 16 --engine-threads 4 \
    --engine-cpu 1 --cpus 2,3,4,5 --messages 2000000 --warmup 100000 --format json --quiet"
  for i in 1 2; do
    step "engcheck-proxy-new-$i" 40 $M $P -o "$d/proxy-new-$i.jsonl"
    if [ -n "$old" ]; then
      step "engcheck-proxy-old-$i" 40 $JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED \
        -Dmarrow.native.dir="$old" -jar java/target/marrow-cli.jar $P -o "$d/proxy-old-$i.jsonl"
    fi
  done
}

# ===== phase family: engine =====
# phase_engine: the software NIC engine after the hot-path work of issue 8
# (docs/design/software-nic.md, "Hot path"). In scripts/device-run.sh;
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

# ===== phase family: engine8 =====
# phase_engine8: softnic rate after the second hot-path pass of issue 8 (engine: call-free fast
# loop, one 64-bit control-word compare, shared CQE body, prefetch of the doorbell-covered SQ
# lines the next fetch copies; producer: one specialised loop for 8-byte inline WQEs; see
# docs/design/software-nic.md section 6.1). In scripts/device-run.sh; uses its
# helpers (step NAME TIMEOUT_S cmd..., $M, $OUT). Every record is EMULATED NIC
# ("hardware": false): rates of the emulator on the host CPUs.
# 1 + 1 and 8 + 8 are each run as 5 separate processes (a process run is 500,000 warm-up
# and 5 x 5,000,000 timed messages, --repeats 5, its record the median of its 5), so the
# spread between processes (fresh QPs, buffers and JVM each time) shows next to the spread
# inside one. A rate step took 2-4 s in the run of phase_engine; 15 s bounds each of the 12,
# 30 s each of the two no-regression rows: the phase is bounded at 240 s (expected total
# about 60 s).
# Writes under $OUT/engine8/:
#   cpu-topology.txt          lscpu -e and each CPU's SMT siblings (which CPUs share a core)
#   p1-run{1..5}.jsonl        1 producer + 1 engine, 8 B inline, batch 16, poll hot,
#                             engine on CPU 1, producer on CPU 2 (as phase_engine's P = 1 row)
#   p8-run{1..5}.jsonl        8 + 8, engines on CPUs 0-7, producers on 8-15 (as phase_engine)
#   p1-cpus3-4.jsonl,         1 + 1 once more on two other CPU pairs: whether the 1 + 1 rate
#   p1-cpus9-14.jsonl         follows the pair of cores it lands on
#   gda-putc.jsonl            no-regression rows, the commands of phase_engine: gda put+completion
#   proxy-rate.jsonl          (cuda, gpu-fence, 8 B inline; one WQE per doorbell, the path that
#                             got about 25 instructions per message dearer) and proxy rate
#                             (cuda producers, tuned, 4 engine threads, T 1,4 x B 16,32)
phase_engine8() {
  local d="$OUT/engine8" i
  mkdir -p "$d"
  { lscpu -e 2>&1; echo; for c in /sys/devices/system/cpu/cpu[0-9]*; do
      echo "$(basename "$c") siblings $(cat "$c/topology/thread_siblings_list" 2>/dev/null)"; done; } \
    >"$d/cpu-topology.txt" 2>&1
  for i in 1 2 3 4 5; do
    step "engine8/p1-run$i" 15 $M softnic rate --size 8 --batch 16 --producers 1 --engine-threads 1 \
      --poll hot --engine-cpus 1 --producer-cpus 2 --repeats 5 --format json -o "$d/p1-run$i.jsonl"
  done
  for i in 1 2 3 4 5; do
    step "engine8/p8-run$i" 15 $M softnic rate --size 8 --batch 16 --producers 8 --engine-threads 8 \
      --poll hot --engine-cpus 0,1,2,3,4,5,6,7 --producer-cpus 8,9,10,11,12,13,14,15 --repeats 5 \
      --format json -o "$d/p8-run$i.jsonl"
  done
  step engine8/p1-cpus3-4 15 $M softnic rate --size 8 --batch 16 --producers 1 --engine-threads 1 \
    --poll hot --engine-cpus 3 --producer-cpus 4 --repeats 5 --format json -o "$d/p1-cpus3-4.jsonl"
  step engine8/p1-cpus9-14 15 $M softnic rate --size 8 --batch 16 --producers 1 --engine-threads 1 \
    --poll hot --engine-cpus 9 --producer-cpus 14 --repeats 5 --format json -o "$d/p1-cpus9-14.jsonl"
  step engine8/gda-putc 30 $M gda latency --target cuda --nic softnic --engine-cpu 3 --ordering gpu-fence \
    --payload inline --size 8 --experiments putc --iters 20000 --warmup 2000 --format json -o "$d/gda-putc.jsonl"
  step engine8/proxy-rate 30 $M proxy rate --producer cuda --handoff tuned --workers 1,4 --rings 32 --batch 16,32 \
    --engine-threads 4 --messages 2000000 --warmup 100000 --engine-cpu 1 --cpus 2,3,4,5 --format json \
    -o "$d/proxy-rate.jsonl"
}

# ===== phase family: gdaload2p =====
# In scripts/device-run.sh (helpers step, $M, $OUT). Phase gdaload2p
# (docs/design/two-process.md section 11, docs/design/methods.md 6.3): gda
# loaded between two processes of the H200 host over the software NIC's
# shared-memory wire, both endpoints loaded (rank 1 answers the probe and runs
# the same background toward rank 0), background 0,1,4, queue shared and
# reserved: rank 0 on the GPU (--target cuda: probe and background CTAs) and
# on CPU threads; rank 1 always answers on CPU threads. Beside them the
# one-process numbers with the same flags. JSON lines in $OUT/gdaload2p/.
# About 1-2 minutes; every step is bounded.
# Records: "hardware": false, "nic_hardware": false; "gpu_hardware" true on
# the cuda rows only. The cuda pair has not run before this phase: its first
# result is this phase's.

gdaload2p_pair() { # name rank0-target port
  local name=$1 target=$2 port=$3 d="$OUT/gdaload2p"
  local flags="--background 0,1,4 --queue both --iters 20000 --warmup 2000 --timeout-ms 5000 --peer-timeout-s 30"
  # rank 1 first: it retries its connection until rank 0 listens; it answers on CPU threads whatever --target says
  ( env RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout -k 10 80 \
      $M gda loaded --target cpu --engine-cpu 4 $flags >"$d/$name-responder.log" 2>&1
    echo "gdaload2p-$name-responder rc=$?" >>"$OUT/steps.txt" ) &
  local rpid=$!
  step "gdaload2p-$name" 80 env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    $M gda loaded --target "$target" --engine-cpu 2 $flags --format json -o "$d/$name.jsonl"
  wait "$rpid"
}

phase_gdaload2p() {
  local d="$OUT/gdaload2p"
  mkdir -p "$d"
  local one="--background 0,1,4 --queue both --iters 20000 --warmup 2000 --timeout-ms 5000 --engine-cpu 2"
  step gdaload2p-single-cuda 40 $M gda loaded --target cuda $one --format json -o "$d/single-cuda.jsonl"
  step gdaload2p-single-cpu 40 $M gda loaded --target cpu $one --format json -o "$d/single-cpu.jsonl"
  gdaload2p_pair pair-cuda cuda 29621
  gdaload2p_pair pair-cpu cpu 29623
  ls /dev/shm | grep -c marrow-wire >"$d/leftover-shm-segments.txt" 2>&1
}

# Phase gdaload2p64: the GPU pair at the sweep's upper levels, 16 and 64 background streams per side.
# Rank 1's streams are CPU threads, so both sides cap at cores - 3 (13 on 16 vCPUs) unless
# --oversubscribe: one pass as capped (16 and 64 both become 13: one row per queue), one with
# --oversubscribe on both sides (records: cpu_oversubscribed, spinning_threads). JSON lines in
# $OUT/gdaload2p/pair-cuda-hi*.jsonl. About 1-2 minutes.
gdaload2p_pair_hi() { # name port extra-flags...
  local name=$1 port=$2 d="$OUT/gdaload2p"; shift 2
  local flags="--background 16,64 --queue both --iters 5000 --warmup 500 --timeout-ms 10000 --peer-timeout-s 30 $*"
  ( env RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout -k 10 100 \
      $M gda loaded --target cpu --engine-cpu 4 $flags >"$d/$name-responder.log" 2>&1
    echo "gdaload2p-$name-responder rc=$?" >>"$OUT/steps.txt" ) &
  local rpid=$!
  step "gdaload2p-$name" 100 env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    $M gda loaded --target cuda --engine-cpu 2 $flags --format json -o "$d/$name.jsonl"
  wait "$rpid"
}
phase_gdaload2p64() {
  mkdir -p "$OUT/gdaload2p"
  gdaload2p_pair_hi pair-cuda-hi-capped 29631
  gdaload2p_pair_hi pair-cuda-hi-oversubscribed 29633 --oversubscribe
  ls /dev/shm | grep -c marrow-wire >"$OUT/gdaload2p/leftover-shm-segments-hi.txt" 2>&1
}

# Phase gdaload2piso: the GPU pair with reserved queues isolated from the background inside each
# side's software NIC (docs/design/two-process.md section 11, "Engine placement across processes";
# docs/design/methods.md 6.3): --engine-threads 4 --probe-engine dedicated on both sides, each side's own flags
# on its own NIC (rank 0: probe QP on engine thread 0, its background QPs on threads 1-3, engines on
# CPUs 2-5; rank 1: answering QP on thread 0, background on 1-3, engines on CPUs 8-11). Background
# 0,1,4,16,64 per side with --oversubscribe on both (records: cpu_oversubscribed, spinning_threads
# with both sides' engine threads), queue shared and reserved, 5000 probes per point. Rank 0's
# records carry both sides' placement as the NICs reported it (probe_engine_alone,
# peer_probe_engine_alone, ...); a dedicated reserved point whose placement is not alone fails.
# JSON lines in $OUT/gdaload2p/pair-cuda-iso.jsonl. About 2-3 minutes; every step is bounded.
gdaload2p_pair_iso() { # name port
  local name=$1 port=$2 d="$OUT/gdaload2p"
  local flags="--background 0,1,4,16,64 --queue both --iters 5000 --warmup 500 --timeout-ms 10000 --peer-timeout-s 30"
  flags="$flags --oversubscribe --engine-threads 4 --probe-engine dedicated"
  # rank 1 first: it retries its connection until rank 0 listens; it answers on CPU threads
  ( env RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout -k 10 170 \
      $M gda loaded --target cpu --engine-cpus 8,9,10,11 $flags >"$d/$name-responder.log" 2>&1
    echo "gdaload2p-$name-responder rc=$?" >>"$OUT/steps.txt" ) &
  local rpid=$!
  step "gdaload2p-$name" 170 env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    $M gda loaded --target cuda --engine-cpus 2,3,4,5 $flags --format json -o "$d/$name.jsonl"
  wait "$rpid"
}
phase_gdaload2piso() {
  mkdir -p "$OUT/gdaload2p"
  gdaload2p_pair_iso pair-cuda-iso 29641
  ls /dev/shm | grep -c marrow-wire >"$OUT/gdaload2p/leftover-shm-segments-iso.txt" 2>&1
}

# ===== phase family: goodput =====
# phase_goodput: goodput and loaded round trip on the software NIC (docs/design/methods.md §6,
# docs/design/wire-model.md). In scripts/device-run.sh (step, $M, $OUT). JSON lines in
# $OUT/goodput/, one file per step; every step bounded by `timeout` and --max-seconds
# (at most 350 s in all; about 3 min expected).
#   gda-goodput-{cuda,cpu}-w200   pipelined pointer WRITEs 8 B..4 MiB, one QP, 200 Gb/s model
#   gda-goodput-cuda-nowire       the same on the CUDA target with no model (the copy engine's)
#   gda-singleop-cuda-w200        Fig. 11: put+completion of one pointer WRITE, 8 B..1 MiB
#   proxy-goodput-{cpu,cuda}-w200 / proxy-goodput-cpu-nowire   the proxy's rate loop per size
#   gda-loaded-cuda               8 B probe RTT at 0/1/4/16/64 background CTAs, shared vs reserved
#   gda-loaded-cuda-paced         64 reserved CTAs held at 30 M msg/s
#   gda-loaded-cpu, proxy-loaded-cpu   the same with CPU threads as background (the proxy's
#                                 producers are CPU threads: GPU background producers are not written)
#   proxy-loaded-cpu-paced        64 reserved producer threads held at 30 M msg/s
# Claims this tests (docs/design/methods.md §6.5): reserved p50 within 2x of idle at 64 streams while shared
# is >= 10x idle; gda goodput first reaches 90 % of line rate by 2 KiB under the 200 Gb/s model.
phase_goodput() {
  local d="$OUT/goodput"; mkdir -p "$d"
  local G="--format json --quiet"
  step gda-goodput-cuda-w200 40 $M gda goodput --target cuda --engine-cpu 2 --wire-gbps 200 \
    --bytes-per-point 67108864 --max-seconds 30 $G -o "$d/gda-goodput-cuda-w200.jsonl"
  step gda-goodput-cuda-nowire 30 $M gda goodput --target cuda --engine-cpu 2 --wire-gbps 0 \
    --bytes-per-point 67108864 --max-seconds 20 $G -o "$d/gda-goodput-cuda-nowire.jsonl"
  step gda-goodput-cpu-w200 25 $M gda goodput --target cpu --engine-cpu 2 --wire-gbps 200 \
    --bytes-per-point 33554432 --max-seconds 15 $G -o "$d/gda-goodput-cpu-w200.jsonl"
  step gda-singleop-cuda-w200 30 $M gda goodput --single-op --target cuda --engine-cpu 2 --wire-gbps 200 \
    --iters 2000 --warmup 200 --max-seconds 20 $G -o "$d/gda-singleop-cuda-w200.jsonl"
  step proxy-goodput-cpu-w200 25 $M proxy goodput --producer cpu --workers 4 --rings 8 --batch 16 \
    --engine-threads 2 --wire-gbps 200 --bytes-per-point 33554432 --max-seconds 15 $G \
    -o "$d/proxy-goodput-cpu-w200.jsonl"
  step proxy-goodput-cpu-nowire 20 $M proxy goodput --producer cpu --workers 4 --rings 8 --batch 16 \
    --engine-threads 2 --wire-gbps 0 --bytes-per-point 33554432 --max-seconds 10 $G \
    -o "$d/proxy-goodput-cpu-nowire.jsonl"
  step proxy-goodput-cuda-w200 25 $M proxy goodput --producer cuda --workers 4 --rings 8 --batch 16 \
    --engine-threads 2 --wire-gbps 200 --bytes-per-point 33554432 --max-seconds 15 $G \
    -o "$d/proxy-goodput-cuda-w200.jsonl"
  step gda-loaded-cuda 45 $M gda loaded --target cuda --engine-cpu 2 --background 0,1,4,16,64 --queue both \
    --iters 2000 --warmup 200 --max-seconds 35 $G -o "$d/gda-loaded-cuda.jsonl"
  step gda-loaded-cuda-paced 20 $M gda loaded --target cuda --engine-cpu 2 --background 64 --queue reserved \
    --pace 30M --iters 2000 --warmup 200 --max-seconds 10 $G -o "$d/gda-loaded-cuda-paced.jsonl"
  step gda-loaded-cpu 40 $M gda loaded --target cpu --engine-cpu 2 --background 0,1,4,16,64 --queue both \
    --iters 1000 --warmup 100 --max-seconds 20 $G -o "$d/gda-loaded-cpu.jsonl"
  step proxy-loaded-cpu 40 $M proxy loaded --background 0,1,4,16,64 --queue both --workers 4 --batch 16 \
    --engine-threads 2 --iters 2000 --warmup 200 --max-seconds 30 $G -o "$d/proxy-loaded-cpu.jsonl"
  step proxy-loaded-cpu-paced 20 $M proxy loaded --background 64 --queue reserved --pace 30M --workers 4 \
    --batch 16 --engine-threads 2 --iters 2000 --warmup 200 --max-seconds 10 $G \
    -o "$d/proxy-loaded-cpu-paced.jsonl"
}

# phase_loaded_rerun: only the gda loaded steps of phase_goodput (after the fix of the CUDA background
# drain's pads and the CPU target's cap of background threads at cores - 3); < 2 min in all, the same
# JSON files in $OUT/goodput/ (each row's background_streams_requested/_capped say where the cap applied).
phase_loaded_rerun() {
  local d="$OUT/goodput"; mkdir -p "$d"
  local G="--format json --quiet"
  step gda-loaded-cuda 40 $M gda loaded --target cuda --engine-cpu 2 --background 0,1,4,16,64 --queue both \
    --iters 2000 --warmup 200 --max-seconds 30 $G -o "$d/gda-loaded-cuda.jsonl"
  step gda-loaded-cuda-paced 20 $M gda loaded --target cuda --engine-cpu 2 --background 64 --queue reserved \
    --pace 30M --iters 2000 --warmup 200 --max-seconds 10 $G -o "$d/gda-loaded-cuda-paced.jsonl"
  step gda-loaded-cpu 40 $M gda loaded --target cpu --engine-cpu 2 --background 0,1,4,16,64 --queue both \
    --iters 1000 --warmup 100 --max-seconds 30 $G -o "$d/gda-loaded-cpu.jsonl"
}

# ===== phase family: goodput2k =====
# phase_goodput2k: mini-gda goodput vs payload with MANY posters (issue 11 §2: "mini-gda goodput
# crosses 90 % of line rate by 2 KiB under the 200 Gb/s wire model; report mini-proxy's crossing
# size beside it"). phase_goodput9 posts from ONE GPU thread, flat at ~0.59 M msg/s, so 90 % came
# only at 64 KiB; 2 KiB at 22.5 GB/s needs ~11 M msg/s. `gda goodput --posters BxT` runs the gda
# rate poster (gda_rate_post.h: slot publication, --batch WQEs per doorbell, poster t on QP
# t mod --qps) with pointer payloads at every size, on the CPU software NIC engine
# (--engine-threads, pinned), under the 200 Gb/s model (ONE port for every QP, poster and engine
# thread: records wire_model, wire_model_scope). docs/design/methods.md §6.1 ("Many posters").
# Every record: "hardware": false, "gpu_hardware": true, "nic_hardware": false (EMULATED NIC on a
# real GPU); bytes checked at the destination and the engine's WRITE count equal to the WQEs
# posted (valid).
# In scripts/device-run.sh (step NAME TIMEOUT_S cmd..., $M, $OUT). JSON lines under
# $OUT/goodput2k/, one file per step. Sizes: 11 of 8 B..4 MiB, dense around 2 KiB. Bounds sum to
# 215 s; expected about 40-60 s. Each point opens fresh queues and 2 x 64 MiB buffers (slots wrap
# beyond that), maps them into the GPU and checks the destination (~0.3 s), then times 1 GiB of
# payload (gda) within 64..10^6 WRITEs: ~10^6 WRITEs up to 1 KiB, 512 Ki WRITEs (~50 ms at 11 M/s)
# at 2 KiB, ~45 ms at the model's line rate from 4 KiB up. proxy keeps phase_goodput9's 32 MiB.
#   gda-cuda-p16-q16-e8-w200    16 blocks x 1 thread, 16 QPs, batch 16, 8 engine threads (CPUs 1-8)
#   gda-cuda-p16-q16-e12-w200   the same on 12 engine threads (CPUs 1-12): is the copy the bound?
#   gda-cuda-p32-q16-e8-w200    32 posters (2 per QP, slot publication shares the SQ): poster-bound?
#   gda-cuda-p16-q16-e8-nowire  the first shape with no wire model: the copy engines' own ceiling
#   proxy-cuda-e8-w200          proxy goodput, GPU producers, 8 workers (8 QPs) on 8 engine threads,
#                               the same sizes (flags of phase_goodput9): mini-proxy's crossing size
phase_goodput2k() {
  local d="$OUT/goodput2k"; mkdir -p "$d"
  local G="--format json --quiet"
  local S="--sizes 8,64,256,512,1024,2048,4096,8192,65536,1048576,4194304"
  local P="--target cuda --qps 16 --batch 16 --bytes-per-point 1073741824 --max-seconds 35"
  step goodput2k/gda-cuda-p16-q16-e8-w200 45 $M gda goodput $P --posters 16x1 --engine-threads 8 \
    --engine-cpus 1,2,3,4,5,6,7,8 --wire-gbps 200 $S $G -o "$d/gda-cuda-p16-q16-e8-w200.jsonl"
  step goodput2k/gda-cuda-p16-q16-e12-w200 45 $M gda goodput $P --posters 16x1 --engine-threads 12 \
    --engine-cpus 1,2,3,4,5,6,7,8,9,10,11,12 --wire-gbps 200 $S $G -o "$d/gda-cuda-p16-q16-e12-w200.jsonl"
  step goodput2k/gda-cuda-p32-q16-e8-w200 45 $M gda goodput $P --posters 32x1 --engine-threads 8 \
    --engine-cpus 1,2,3,4,5,6,7,8 --wire-gbps 200 $S $G -o "$d/gda-cuda-p32-q16-e8-w200.jsonl"
  step goodput2k/gda-cuda-p16-q16-e8-nowire 45 $M gda goodput $P --posters 16x1 --engine-threads 8 \
    --engine-cpus 1,2,3,4,5,6,7,8 --wire-gbps 0 $S $G -o "$d/gda-cuda-p16-q16-e8-nowire.jsonl"
  step goodput2k/proxy-cuda-e8-w200 35 $M proxy goodput --producer cuda --workers 8 --rings 8 --batch 16 \
    --engine-threads 8 --wire-gbps 200 $S --bytes-per-point 33554432 --max-seconds 25 $G \
    -o "$d/proxy-cuda-e8-w200.jsonl"
}

# phase_goodput2kb: which shape holds 90 % at 2 KiB from pass to pass. At 2 KiB the goodput2k rows
# say limited_by: nic, and the wire model's CQE hold stops an engine thread (and every other QP it
# serves) while its burst waits for the shared port (docs/design/wire-model.md §3). Shapes: one QP per
# engine thread (14 posters, 14 QPs, 14 engine threads); 16 QPs on 12 threads with a 4x longer signal
# period (fewer holds). Three passes each, sizes 1, 2, 4 KiB, 1 GiB per point. About 30 s.
phase_goodput2kb() {
  local d="$OUT/goodput2kb"; mkdir -p "$d"
  local G="--format json --quiet --sizes 1024,2048,4096 --bytes-per-point 1073741824 --max-seconds 20"
  local E14="--engine-cpus 1,2,3,4,5,6,7,8,9,10,11,12,13,14" i
  for i in 1 2 3; do
    step goodput2kb/gda-cuda-p14-q14-e14-w200 30 $M gda goodput --target cuda --qps 14 --batch 16 --posters 14x1 \
      --engine-threads 14 $E14 --wire-gbps 200 $G -o "$d/gda-cuda-p14-q14-e14-w200.jsonl"
    step goodput2kb/gda-cuda-p16-q16-e12-s128-w200 30 $M gda goodput --target cuda --qps 16 --batch 16 \
      --posters 16x1 --engine-threads 12 --engine-cpus 1,2,3,4,5,6,7,8,9,10,11,12 --signal-every 128 \
      --wire-gbps 200 $G -o "$d/gda-cuda-p16-q16-e12-s128-w200.jsonl"
  done
}

# ===== phase family: goodput9 =====
# phase_goodput9: goodput vs payload with the window spread over several QPs, each QP's SQ served by
# its own software NIC engine thread (issue 11 §2; docs/design/methods.md §6, docs/design/wire-model.md).
# The question: is the ~12-14 GB/s ceiling of phase_goodput the one engine thread's copy, and do N
# engine threads (the software NIC's analogue of a ConnectX's DMA engines) carry mini-gda past 90 %
# of the 200 Gb/s model's line rate? The model is ONE port per software NIC: every QP and engine
# thread serialises through one 200 Gb/s link (records: wire_model, wire_model_scope), so a sum over
# QPs can never pass 25 GB/s. Every record: "hardware": false, "gpu_hardware": true,
# "nic_hardware": false (EMULATED NIC on a real GPU).
# In scripts/device-run.sh (step NAME TIMEOUT_S cmd..., $M, $OUT). JSON lines under
# $OUT/goodput9/, one file per step. Sizes: 10 of 8 B..4 MiB. Steps are bounded by `timeout` and
# --max-seconds (bounds sum to 172 s; expected about 90 s: 8 B and 64 B points take ~1.7 s each on
# the GPU poster, the rest well under a second plus staging).
#   gda-cuda-q1-w200     --qps 1 --engine-threads 1, engine on CPU 1 (the phase_goodput setting)
#   gda-cuda-q4-w200     --qps 4 --engine-threads 4, engines on CPUs 1-4
#   gda-cuda-q8-w200     --qps 8 --engine-threads 8, engines on CPUs 1-8
#   gda-cuda-q8-nowire   the same with no wire model: the copy engines' own ceiling
#   proxy-cuda-e8-w200   proxy goodput, GPU producers, 8 workers (8 QPs) on 8 engine threads
#   proxy-cpu-e4-w200    proxy goodput, CPU producers, 4 workers (4 QPs) on 4 engine threads
# (gda: --window 128 in all, spread over the QPs: 128, 32, 16 per QP; signal every 32, 32, 16.)
phase_goodput9() {
  local d="$OUT/goodput9"; mkdir -p "$d"
  local G="--format json --quiet"
  local S="--sizes 8,64,512,2048,8192,65536,262144,1048576,2097152,4194304"
  step goodput9/gda-cuda-q1-w200 28 $M gda goodput --target cuda --qps 1 --engine-threads 1 --engine-cpus 1 \
    --wire-gbps 200 $S --bytes-per-point 67108864 --max-seconds 20 $G -o "$d/gda-cuda-q1-w200.jsonl"
  step goodput9/gda-cuda-q4-w200 28 $M gda goodput --target cuda --qps 4 --engine-threads 4 \
    --engine-cpus 1,2,3,4 --wire-gbps 200 $S --bytes-per-point 67108864 --max-seconds 20 $G \
    -o "$d/gda-cuda-q4-w200.jsonl"
  step goodput9/gda-cuda-q8-w200 28 $M gda goodput --target cuda --qps 8 --engine-threads 8 \
    --engine-cpus 1,2,3,4,5,6,7,8 --wire-gbps 200 $S --bytes-per-point 67108864 --max-seconds 20 $G \
    -o "$d/gda-cuda-q8-w200.jsonl"
  step goodput9/gda-cuda-q8-nowire 28 $M gda goodput --target cuda --qps 8 --engine-threads 8 \
    --engine-cpus 1,2,3,4,5,6,7,8 --wire-gbps 0 $S --bytes-per-point 67108864 --max-seconds 20 $G \
    -o "$d/gda-cuda-q8-nowire.jsonl"
  step goodput9/proxy-cuda-e8-w200 30 $M proxy goodput --producer cuda --workers 8 --rings 8 --batch 16 \
    --engine-threads 8 --wire-gbps 200 $S --bytes-per-point 33554432 --max-seconds 20 $G \
    -o "$d/proxy-cuda-e8-w200.jsonl"
  step goodput9/proxy-cpu-e4-w200 30 $M proxy goodput --producer cpu --workers 4 --rings 8 --batch 16 \
    --engine-threads 4 --wire-gbps 200 $S --bytes-per-point 33554432 --max-seconds 20 $G \
    -o "$d/proxy-cpu-e4-w200.jsonl"
}

# ===== phase family: harden =====
# In scripts/device-run.sh (uses step, $M, $CS, $OUT). Under 4 minutes in all.
#   OUT=$OUT bash scripts/device-run.sh harden
# 1. compute-sanitizer memcheck, racecheck and synccheck over the DSM kernels (timer, latency
#    chase, load/store/TMA traffic: E0-E4) in the `dsm run --sanitize` configuration, which keeps
#    every loop short enough for racecheck (the earlier run hit the 20 s watchdog in E1). Each
#    run also carries --max-seconds below its timeout, so a slow tool ends the run cleanly
#    (truncated=true, dsm.run_summary says what ran) instead of being killed.
# 2. gda clock-sweep --fit-only over two gda latency runs at the DEFAULT clock: checks that GPU
#    records carry a measured SM clock the fit can read. One clock cannot carry a fit, so the
#    expected outcome is rc=1 with fitted=false and the reason. Clocks are never locked here.
harden_cs() { # tool timeout_s max_seconds
  local t=$1
  step "harden-cs-$t-dsm" "$2" $CS --tool "$t" --target-processes all --error-exitcode 99 --print-limit 20 \
    $M dsm run --experiment E0,E1,E2,E3,E4 --sanitize --max-seconds "$3" --quiet --format json \
    -o "$OUT/harden-cs-$t-dsm.jsonl"
}
phase_harden() {
  harden_cs memcheck 50 40
  harden_cs racecheck 90 75
  harden_cs synccheck 50 40
  local i
  for i in 1 2; do
    step "harden-gda-default-clock-$i" 20 $M gda latency --target cuda --nic softnic --experiments issue,putc \
      --iters 2000 --warmup 200 --format json -o "$OUT/harden-gda-default-clock-$i.jsonl"
  done
  step harden-clock-fit-only 15 $M gda clock-sweep --fit-only "$OUT/harden-gda-default-clock-1.jsonl" \
    "$OUT/harden-gda-default-clock-2.jsonl" --format json -o "$OUT/harden-clock-fit-only.jsonl"
}

# ===== phase family: kcost =====
# GPU phase "kcost" (in scripts/device-run.sh; run as `... scripts/device-run.sh kcost`):
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

# ===== phase family: engine29 =====
# GPU phase "engine29" (in scripts/device-run.sh; uses its step, $M, $CS, $OUT): issue 29's device
# engine items in one call (docs/design/device-engine.md §2.8, §3.1):
#   1. the fidelity test (every device scenario in both layouts against the CPU engine, the
#      pointer scenario and CPU-initiator put+completion included)
#   2. gda put+completion and doorbell-to-CQE on GPU-resident queues, 1 engine SM, gpu-fence:
#      8 B inline, 8 B pointer, 4 KiB pointer; the floor (sm_handoff gda-acq) beside them
#   3. compute-sanitizer memcheck, racecheck, synccheck over the sanitizable mode
#      (MARROW_SANITIZE=1: the fidelity test's device scenarios with a CPU initiator); with
#      ENGINE29_RATE=1 also memcheck over gda rate on the device engine (20 s more)
#   4. the lane fuzzer (native/fuzz/lane_fuzz.c, carried as .jrt/fuzz/lane_fuzz): 15 jobs x
#      666,667 runs = 10^7 executions over a copy of the committed corpus
# Output in $OUT/engine29/; step bounds sum to 300 s (about 210 s without the fuzzer).
phase_engine29() {
  local D="$OUT/engine29" root="$PWD" t c
  local G="--target cuda --nic softnic --placement gpu --nic-sms 1 --ordering gpu-fence --iters 3000 --warmup 300"
  local S="$CS --target-processes all --error-exitcode 99 --print-limit 20"
  mkdir -p "$D"
  [ -x .jrt/bin/test_softnic_device_fidelity ] && cp .jrt/bin/test_softnic_device_fidelity "$D/"
  step engine29-fidelity 28 sh -c "\"$D/test_softnic_device_fidelity\" >\"$D/fidelity.txt\" 2>&1"
  step engine29-inline-8 17 $M gda latency $G --payload inline --size 8 --experiments issue,putc,db2cqe \
    --format json -o "$D/gda-inline-8.jsonl"
  step engine29-pointer-8 17 $M gda latency $G --payload pointer --size 8 --experiments issue,putc,db2cqe \
    --format json -o "$D/gda-pointer-8.jsonl"
  step engine29-pointer-4k 17 $M gda latency $G --payload pointer --size 4096 --experiments putc,db2cqe \
    --format json -o "$D/gda-pointer-4096.jsonl"
  step engine29-handoff-gda-acq 8 sh -c ".jrt/bin/sm_handoff gda-acq 20000 >>\"$D/handoff.jsonl\""
  for t in memcheck racecheck synccheck; do
    # memcheck patches every kernel at its first launch: the slowest of the three.
    step "engine29-$t-fidelity" "$([ $t = memcheck ] && echo 53 || echo 35)" sh -c "MARROW_SANITIZE=1 $S --tool $t \"$D/test_softnic_device_fidelity\" \
      >\"$D/$t-fidelity.txt\" 2>&1"
  done
  # (gda rate --nic softnic-device under the tools: ENGINE29_RATE=1, 20 s more; sanitize4 ran it clean
  # on the engine before the pointer path, which rate's inline WRITEs do not take.)
  [ -n "${ENGINE29_RATE:-}" ] && step engine29-memcheck-rate 20 sh -c "$S --tool memcheck $M gda rate --target cuda \
    --quiet --format json --nic softnic-device --nic-sms 1 --blocks 1 --threads 32 --qps 1 --batch 4 \
    --messages 2000 --warmup 0 --repeats 1 >$D/memcheck-rate-devnic.jsonl 2>$D/memcheck-rate-devnic.log"
  if [ -x .jrt/fuzz/lane_fuzz ]; then
    c="$OUT/engine29-corpus"
    mkdir -p "$c" "$D/fuzz-artifacts" "$D/fuzz-logs"
    cp native/fuzz/corpus/lane/* "$c/"
    (cd "$D/fuzz-logs" && step engine29-fuzz-1e7 90 "$root/.jrt/fuzz/lane_fuzz" -jobs=15 -workers=15 \
      -runs=666667 -artifact_prefix="$D/fuzz-artifacts/" -print_final_stats=1 "$c")
    rm -rf "$c"   # grown corpus: not kept (the seeds are in the repository)
  else
    echo "engine29-fuzz-1e7 skipped (.jrt/fuzz/lane_fuzz not carried)" | tee -a "$OUT/steps.txt"
  fi
}

# ===== phase family: lane10 =====
# GPU phase "lane10" (in scripts/device-run.sh; uses its step, $M, $OUT): put+completion on
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

# ===== phase family: lane9 =====
# GPU phase "lane9" (in scripts/device-run.sh; uses its step, $M, $OUT): the device
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

# ===== phase family: loadiso =====
# GPU phase "loadiso" (in scripts/device-run.sh; uses its step, $M, $OUT and rr from
# phase family medians): gda loaded --target cuda with the probe's QPs on an engine
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

# ===== phase family: medians =====
# GPU phase "medians" (in scripts/device-run.sh; uses its step, $M, $OUT): every
# latency family of the published pages again, as three separate process runs each, merged
# to one record per point (median of the three runs, NAME_min / NAME_max beside it:
# scripts/repeat-runs.sh + `marrow merge-runs`; docs/design/methods.md, "Repetition").
# Same flags as the pages' single-pass runs, except where a note says otherwise. Merged
# files: $OUT/medians/<name>.jsonl; per-run files: $OUT/medians/<name>-runs/run-N.jsonl.
# EMULATED NIC throughout ("hardware": false); the GPU is real on cuda rows. About 6 min.
rr() { # name limit-seconds command... : three process runs of one command, merged
  # Each run is bounded by a third of the limit; at that bound the JVM gets SIGQUIT first, so a
  # run that hangs leaves its thread dump in the step's log, and SIGKILL 5 s later.
  local name=$1 limit=$2; shift 2
  step "med-$name" "$limit" env MARROW="$M" scripts/repeat-runs.sh -n 3 -o "$OUT/medians/$name.jsonl" \
    -k "$OUT/medians/$name-runs" -- timeout -k 5 -s QUIT $((limit / 3 - 5)) "$@" --quiet
}
medians_pair() { # run-index port : one two-process gda latency pair (GPU initiator, CPU responder)
  local i=$1 port=$2 d="$OUT/medians/twoproc-pair-cuda-runs"
  local flags="--nic softnic --iters 20000 --warmup 2000 --timeout-ms 5000 --peer-timeout-s 30"
  ( env RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout 60 \
      $M gda latency --target cpu --engine-cpu 4 $flags >"$d/responder-$i.log" 2>&1
    echo "med-twoproc-pair-cuda-$i-responder rc=$?" >>"$OUT/steps.txt" ) &
  local rpid=$!
  step "med-twoproc-pair-cuda-$i" 60 env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    $M gda latency --target cuda --engine-cpu 2 $flags --quiet --format json -o "$d/run-$i.jsonl"
  wait "$rpid"
}
phase_medians() {
  mkdir -p "$OUT/medians/twoproc-pair-cuda-runs"
  local C="gda latency --target cuda --nic softnic --engine-cpu 3" p
  # docs/results/h200-softnic-gda-latency.md: ordering sweep, size sweep (gpu-fence), round trip per ordering.
  rr gda-ordering 120 $M $C --sweep ordering --iters 20000 --warmup 2000
  rr gda-size 90 $M $C --sweep size --ordering gpu-fence --iters 20000 --warmup 2000
  rr gda-rtt 120 $M $C --sweep ordering --experiments rtt --iters 10000 --warmup 1000
  # docs/results/h200-softnic-proxy.md: CUDA and CPU producers, both handoffs.
  rr proxy-cuda 60 $M proxy latency --producer cuda --handoff both --iters 20000 --warmup 2000 --engine-cpu 5 --cpus 6,7
  rr proxy-cpu 60 $M proxy latency --producer cpu --handoff both --iters 20000 --warmup 2000 --engine-cpu 5 --cpus 6,7
  # docs/results/h200-gpu-resident.md: GPU-resident queues (device engine, 1 SM) beside host-resident ones.
  rr devengine-gpu 90 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 --sweep ordering \
    --experiments issue,putc --iters 5000 --warmup 500
  rr devengine-host 60 $M $C --sweep ordering --experiments issue,putc --iters 5000 --warmup 500
  rr devengine-gpu-size 60 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 --sweep size \
    --iters 2000 --warmup 200
  # docs/results/h200-presets.md: put+completion of every gda preset.
  for p in $($M presets list | awk 'NR > 1 && $2 == "gda" && /gda latency/ { print $1 }'); do
    rr "preset-gda-$p" 45 $M gda latency --preset "$p" --target cuda --nic softnic \
      --engine-cpu 3 --experiments putc --iters 5000 --warmup 500
  done
  # docs/results/h200-loaded.md: probe RTT under background load (the bounds are far above the runs' ~1-9 s,
  # so that every run measures the same points).
  rr gda-loaded-cuda 60 $M gda loaded --target cuda --engine-cpu 2 --background 0,1,4,16,64 --queue both \
    --iters 2000 --warmup 200 --max-seconds 30
  rr gda-loaded-cuda-paced 40 $M gda loaded --target cuda --engine-cpu 2 --background 64 --queue reserved \
    --pace 30M --iters 2000 --warmup 200 --max-seconds 10
  rr proxy-loaded-cpu 90 $M proxy loaded --background 0,1,4,16,64 --queue both --workers 4 --batch 16 \
    --engine-threads 2 --iters 2000 --warmup 200 --max-seconds 30
  # docs/results/h200-two-process.md: the GPU initiator across two processes, and its one-process twin.
  rr twoproc-single-cuda 45 $M gda latency --target cuda --nic softnic --engine-cpu 2 --iters 20000 --warmup 2000
  medians_pair 1 29621; medians_pair 2 29623; medians_pair 3 29625
  local r=$OUT/medians/twoproc-pair-cuda-runs
  step med-twoproc-pair-cuda-merge 30 $M merge-runs -o "$OUT/medians/twoproc-pair-cuda.jsonl" \
    "$r/run-1.jsonl" "$r/run-2.jsonl" "$r/run-3.jsonl"
  # docs/results/h200-goodput.md, Fig. 11: single-op put+completion vs payload, 8 B - 1 MiB (the single pass
  # stopped at 4 KiB on its --max-seconds 20; fewer iterations per size here, and a bound that
  # lets all 18 sizes run).
  rr gda-singleop-cuda-w200 240 $M gda goodput --single-op --target cuda --engine-cpu 2 --wire-gbps 200 \
    --sizes 8-1048576 --iters 500 --warmup 50 --max-seconds 75
}

# The families that call 1 of 2026-12-01 evening could not complete: an unsafe ordering's FAILED
# row stopped the older repeat-runs.sh before its third run (gda-ordering, gda-rtt), the size
# sweep's second run hung past its bound, and the single-op sweep hit HARD_END_S.
phase_medians2() {
  mkdir -p "$OUT/medians"
  local C="gda latency --target cuda --nic softnic --engine-cpu 3"
  rr gda-ordering 150 $M $C --sweep ordering --iters 20000 --warmup 2000
  rr gda-rtt 150 $M $C --sweep ordering --experiments rtt --iters 10000 --warmup 1000
  rr gda-size 150 $M $C --sweep size --ordering gpu-fence --iters 20000 --warmup 2000
  rr gda-singleop-cuda-w200 240 $M gda goodput --single-op --target cuda --engine-cpu 2 --wire-gbps 200 \
    --sizes 8-1048576 --iters 500 --warmup 50 --max-seconds 70
}

# Call 3 of 2026-12-01 evening: the loaded gda set again (call 1's reserved/64 point measured a
# probe p50 of 4.5 ms against 53 us in earlier passes, after a memcheck step had timed out and
# may have left a process behind), the Fig. 11 single-op sweep with the sampled payload check,
# and -- for the NVSHMEM 16-QP preset's error CQEs on host-resident queues -- the same run with
# the ordering overridden to release-sys (explicit flags win over a preset).
phase_medians3() {
  mkdir -p "$OUT/medians"
  rr gda-loaded-cuda 75 $M gda loaded --target cuda --engine-cpu 2 --background 0,1,4,16,64 --queue both \
    --iters 2000 --warmup 200 --max-seconds 30
  rr gda-singleop-cuda-w200 150 $M gda goodput --single-op --target cuda --engine-cpu 2 --wire-gbps 200 \
    --sizes 8-1048576 --iters 500 --warmup 50 --max-seconds 40
  local G="--target cuda --blocks 16 --threads 32 --messages 8192 --warmup 1024 --repeats 3 --timeout-ms 5000"
  step presetrate-nvshmem-ibgda-16qp-release-sys 40 $M gda rate --preset nvshmem-ibgda-16qp --ordering release-sys \
    $G --nic softnic --engine-threads 8 --engine-cpus 1,2,3,4,5,6,7,8 --format json --quiet \
    -o "$OUT/medians/gda-rate-nvshmem-ibgda-16qp-release-sys.jsonl"
  step presetrate-nvshmem-ibgda-16qp-threadfence 40 $M gda rate --preset nvshmem-ibgda-16qp \
    $G --nic softnic --engine-threads 8 --engine-cpus 1,2,3,4,5,6,7,8 --format json \
    -o "$OUT/medians/gda-rate-nvshmem-ibgda-16qp-threadfence.jsonl"
}

# The SASS around the PCs of the DSM racecheck warning (traffic_kernel<0>, sm_90), for
# docs/results/h200-compute-sanitizer.md: the development machine has no cuobjdump.
phase_dsmsass() {
  local cu; cu=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  step dsm-sass 60 sh -c "$cu -arch sm_90 -sass native/target/stage/lib/libmarrow_cuda.so | awk \
    '/Function : /{p = (\$0 ~ /traffic_kernelILj0E/)} p' | head -400 >$OUT/dsm-traffic-kernel0-sass.txt"
}

# Call 6 of 2026-12-01 evening: GPU-resident queues on the device engine after its loop changes
# (quiet-QP skipping, private counters; docs/design/device-engine.md), three process runs.
phase_medians4() {
  mkdir -p "$OUT/medians"
  rr devengine-gpu-loop2 90 $M gda latency --target cuda --nic softnic --placement gpu --nic-sms 1 \
    --sweep ordering --experiments issue,putc --iters 5000 --warmup 500
}

# Call 7: the remaining single-pass latency families -- gda rate's completion-scope latencies
# (Fig. 4 / Table 7) and host- vs device-rung put+completion (docs/results/h200-gda-rate.md), and the mini-proxy
# across two processes with the CUDA producer (docs/results/h200-two-process.md) -- as three process runs.
phase_medians5() {
  mkdir -p "$OUT/medians" "$OUT/twoproc2"
  local G="gda rate --target cuda --nic softnic --timeout-ms 5000 --engine-threads 1 --engine-cpus 1" i
  rr gda-rate-scope 120 $M $G --experiment scope --scope all-qp,used-qp,per-qp,signal --qps 1,2,4,8,16,32 \
    --messages 2000 --warmup 200
  rr gda-rate-hostdb-putc-host 60 $M $G --experiment scope --scope per-qp --qps 1 --doorbell host \
    --doorbell-cpu 15 --messages 5000 --warmup 500
  rr gda-rate-hostdb-putc-device 60 $M $G --experiment scope --scope per-qp --qps 1 --doorbell device \
    --messages 5000 --warmup 500
  local lat="--handoff both --iters 20000 --warmup 2000 --timeout-ms 5000"
  for i in 1 2 3; do
    twoproc2_pair "latency-cuda-run$i" $((29640 + 2 * i)) 45 "--engine-cpu 2 --cpus 4" -- proxy latency \
      --producer cuda $lat
  done
  step med-twoproc2-latency-cuda-merge 30 $M merge-runs -o "$OUT/medians/twoproc2-latency-cuda.jsonl" \
    "$OUT/twoproc2/latency-cuda-run1.jsonl" "$OUT/twoproc2/latency-cuda-run2.jsonl" \
    "$OUT/twoproc2/latency-cuda-run3.jsonl"
  for i in 1 2 3; do
    twoproc2_pair "loaded-run$i" $((29650 + 2 * i)) 50 "--engine-cpu 2 --cpus 4" -- proxy loaded --background 0,1,4 \
      --queue reserved --iters 5000 --warmup 500 --wire-gbps 0 --timeout-ms 5000
  done
  step med-twoproc2-loaded-merge 30 $M merge-runs -o "$OUT/medians/twoproc2-loaded.jsonl" \
    "$OUT/twoproc2/loaded-run1.jsonl" "$OUT/twoproc2/loaded-run2.jsonl" "$OUT/twoproc2/loaded-run3.jsonl"
  # Table 3's proxy rows: proxy latency with every preset that runs with it (a preset that sets its
  # own producer, fabric-lib's host loop, keeps it).
  local p producer
  for p in $($M presets list | awk 'NR > 1 && $2 == "proxy" && /proxy latency/ { print $1 }'); do
    producer="--producer cuda"
    $M presets show "$p" | grep -q "^  producer = " && producer=""
    rr "preset-proxy-latency-$p" 60 $M proxy latency --preset "$p" $producer --handoff both --iters 20000 \
      --warmup 2000 --engine-cpu 5 --cpus 6,7
  done
}

# Call 8: the last single-run latency points -- the doorbell-to-CQE time and the timer check
# (docs/results/h200-method.md) and gda loaded across two processes with a GPU rank 0
# (docs/results/h200-loaded.md) -- as three process runs.
phase_medians6() {
  mkdir -p "$OUT/medians" "$OUT/gdaload2p"
  local i
  rr db2cqe 75 $M gda latency --target cuda --nic softnic --engine-cpu 3 --experiments putc,db2cqe \
    --iters 20000 --warmup 2000
  rr timer-check 75 $M gda timer-check --target cuda --engine-cpu 3 --delay-us 50 --tolerance-us 1 \
    --iters 5000 --warmup 500
  for i in 1 2 3; do gdaload2p_pair "pair-cuda-run$i" cuda $((29660 + 2 * i)); done
  step med-gdaload2p-pair-cuda-merge 30 $M merge-runs -o "$OUT/medians/gdaload2p-pair-cuda.jsonl" \
    "$OUT/gdaload2p/pair-cuda-run1.jsonl" "$OUT/gdaload2p/pair-cuda-run2.jsonl" "$OUT/gdaload2p/pair-cuda-run3.jsonl"
}

# ===== phase family: presetgoodput =====
# phase_presetgoodput: Fig. 8 goodput per library preset (issue 12, docs/design/presets.md) on the
# software NIC. In scripts/device-run.sh, which provides step, $M and $OUT.
#
# For every preset that `marrow presets list` says gda goodput or proxy goodput runs, that command
# with --preset NAME, the 200 Gb/s wire model and the settings of phase_goodput (goodput.sh:
# --engine-cpu 2 for gda, --engine-threads 2 for proxy), over a trimmed size list (8 B .. 4 MiB,
# 8 sizes, 2 KiB included for the 90 %-of-line-rate crossing) so the phase fits in about 150 s:
#   gda   -> gda goodput --target cuda
#   proxy -> proxy goodput --producer cuda (a preset that sets its own producer, fabric-lib's host
#            loop, keeps it: no --producer flag then)
# Presets a goodput command refuses (a knob it lacks: more QPs, batched doorbells, context rings)
# are not run; $OUT/presetgoodput/presets.txt keeps the list that says which run where.
# Records: $OUT/presetgoodput/<gda|proxy>-goodput-<preset>.jsonl, EMULATED ("hardware": false, the
# wire model named), each carrying "preset". Every step bounded: --max-seconds 20 inside a 30 s
# timeout; today 1 gda + 4 proxy presets, so at most 150 s.
# PRESETGOODPUT_TARGET=cpu runs the same lines with --target cpu / --producer cpu (no GPU needed).
phase_presetgoodput() {
  local d="$OUT/presetgoodput"; mkdir -p "$d"
  local G="--format json --quiet --max-seconds 20"
  local sizes="8,64,512,2048,16384,131072,1048576,4194304"
  local target="${PRESETGOODPUT_TARGET:-cuda}" list p producer
  list=$($M presets list) || { echo "presetgoodput: marrow presets list failed" | tee -a "$OUT/steps.txt"; return 0; }
  echo "$list" >"$d/presets.txt"
  for p in $(echo "$list" | awk 'NR > 1 && /gda goodput/ { print $1 }'); do
    step "presetgoodput-gda-$p" 30 $M gda goodput --preset "$p" --target "$target" --engine-cpu 2 \
      --wire-gbps 200 --sizes "$sizes" --bytes-per-point 33554432 $G -o "$d/gda-goodput-$p.jsonl"
  done
  for p in $(echo "$list" | awk 'NR > 1 && /proxy goodput/ { print $1 }'); do
    producer="--producer $target"
    $M presets show "$p" | grep -q "^  producer = " && producer=""
    step "presetgoodput-proxy-$p" 30 $M proxy goodput --preset "$p" $producer --engine-threads 2 \
      --wire-gbps 200 --sizes "$sizes" --bytes-per-point 33554432 $G -o "$d/proxy-goodput-$p.jsonl"
  done
}

# ===== phase family: presetrate =====
# GPU phase "presetrate" (in scripts/device-run.sh: step, $M, $OUT): `gda rate` with
# every preset that runs with it (marrow presets list, "runs with" column), 16 blocks x 32
# threads, on host-resident queues (CPU engine, 8 threads) and on GPU-resident queues (device
# engine, 8 SMs); the preset sets ordering, QPs per peer, doorbell batch, publication and
# completion scope (docs/design/presets.md). Three repeats per process. EMULATED NIC
# ("hardware": false). JSON lines in $OUT/presetrate/. About 1-2 minutes.
phase_presetrate() {
  local d="$OUT/presetrate" p
  mkdir -p "$d"
  local G="--target cuda --blocks 16 --threads 32 --messages 8192 --warmup 1024 --repeats 3 --timeout-ms 5000"
  for p in $($M presets list | awk 'NR > 1 && /gda rate/ { print $1 }'); do
    # Host-resident queues, CPU engine (8 threads): the placement of every other gda rate page.
    step "presetrate-$p" 40 $M gda rate --preset "$p" $G --nic softnic --engine-threads 8 \
      --engine-cpus 1,2,3,4,5,6,7,8 --format json --quiet -o "$d/gda-rate-$p.jsonl"
    # GPU-resident queues, device engine on 8 SMs: where these libraries keep their queues.
    step "presetrate-devnic-$p" 40 $M gda rate --preset "$p" $G --nic softnic-device --nic-sms 8 \
      --format json --quiet -o "$d/gda-rate-devnic-$p.jsonl"
  done
}

# ===== phase family: presets =====
# Library presets on the GPU box (docs/design/presets.md). Sourced by
# scripts/device-run.sh, which provides step, $M and $OUT.
#
# phase_presets: for every preset (marrow presets list), the command of its
# suite with --preset NAME:
#   gda   -> gda latency, put+completion only, --target cuda --nic softnic
#   proxy -> proxy rate --producer cuda (a preset that sets its own producer,
#            fabric-lib's host loop, keeps it: no --producer flag then)
# A preset that needs a knob the command lacks is refused (exit 2, the knob
# named in its log) and writes no records: that is the expected outcome for
# those presets today, and the log says which knob. Records go to
# $OUT/presets/<suite>-<preset>.jsonl; they are EMULATED ("hardware": false:
# the NIC is the software NIC) and carry "preset". Budget: 9 presets, each
# step bounded (60 s gda, 60 s proxy); a typical run takes well under 3 minutes.
phase_presets() {
  mkdir -p "$OUT/presets"
  local names p suite producer
  names=$($M presets list | awk 'NR > 1 { print $1 }')
  for p in $names; do
    suite=$($M presets list | awk -v p="$p" '$1 == p { print $2 }')
    if [ "$suite" = gda ]; then
      step "preset-gda-$p" 60 $M gda latency --preset "$p" --target cuda --nic softnic --engine-cpu 3 \
        --experiments putc --iters 5000 --warmup 500 --format json --quiet -o "$OUT/presets/gda-$p.jsonl"
    else
      producer="--producer cuda"
      $M presets show "$p" | grep -q "^  producer = " && producer=""
      step "preset-proxy-$p" 60 $M proxy rate --preset "$p" $producer --handoff tuned --engine-threads 2 \
        --messages 1000000 --warmup 50000 --format json --quiet -o "$OUT/presets/proxy-$p.jsonl"
    fi
  done
}

# ===== phase family: rate =====
# Phase `rate` of scripts/device-run.sh (sourced there): mini-gda message
# rate, payload sweep, batching, publication modes, QP/SM scaling,
# completion scope and host-rung doorbells on cuda + softnic (the NIC is
# EMULATED: records say hardware=false, gpu_hardware=true). JSON lines in
# $OUT/rate/. Software NIC engine threads pinned to CPUs 1..E; the host
# doorbell thread to CPU 15. Every step is bounded; the whole phase stays
# under about 4 minutes on the H200 host (16 CPUs).
#
# Step -> what it feeds (rows of "GPU-Initiated Communication: Dissecting Down to the
# Bone"; its numbers are references beside ours, never ours):
#   rate-batching      Table 5 rows 1 and 3: 1 thread, 1 QP, B=1 vs B=16
#   rate-1t-nqp        Table 5 row 2: 1 thread rotating over 2..32 QPs, B=1
#   rate-oneqp-*       Table 5 "One QP": 32 thr lock, 32/256 thr slots,
#                      32/256 thr warp-cooperative (B=32)
#   rate-16x16         Table 5: 16 QPs / 16 SMs, B=1 and B=16
#   rate-1sm-32q/64q   Table 5: 32 and 64 QPs on one SM (a QP per thread), B=16
#   rate-64x64         Table 5: 64 QPs / 64 SMs, B=16
#   rate-scale-N       rate vs QPs and SMs (N blocks = N QPs, B=16)
#   rate-fig3b-*       Fig. 3b: 16 QPs, B=16, inline 8..220 B and pointer 8 B..4 KiB
#   rate-scope         Fig. 4 / Table 7: all-QP, used-QP, per-QP quiet and signal RTT at 1..32 QPs
#   rate-hostdb-*      host-rung doorbells: rate at 16 QPs and put+completion vs device-rung
phase_rate() {
  local R="$OUT/rate" E8="--engine-threads 8 --engine-cpus 1,2,3,4,5,6,7,8" E1="--engine-threads 1 --engine-cpus 1"
  local G="gda rate --target cuda --nic softnic --format json --quiet --timeout-ms 5000"
  mkdir -p "$R"
  step rate-batching 45 $M $G $E1 --blocks 1 --threads 1 --qps 1 --batch 1,16 \
    --messages 200000 --warmup 20000 --repeats 3 -o "$R/batching.jsonl"
  if tail -1 "$OUT/steps.txt" | grep -q "rc=124"; then # a stuck first run: do not spend the budget on the rest
    echo "rate: rate-batching hit its time limit; the other rate steps are skipped" | tee -a "$OUT/steps.txt"
    return
  fi
  step rate-1t-nqp 45 $M $G $E8 --blocks 1 --threads 1 --qp-map shared --qps 2,4,8,16,32 --batch 1 \
    --messages 100000 --warmup 10000 -o "$R/1t-nqp.jsonl"
  step rate-oneqp-lock32 45 $M $G $E1 --threads 32 --qps 1 --publication lock --batch 1 \
    --messages 5000 --warmup 500 --repeats 3 -o "$R/oneqp.jsonl"
  step rate-oneqp-slot32 45 $M $G $E1 --threads 32 --qps 1 --publication slot --batch 1 \
    --messages 5000 --warmup 500 --repeats 3 -o "$R/oneqp.jsonl"
  step rate-oneqp-slot256 45 $M $G $E1 --threads 256 --qps 1 --publication slot --batch 1 \
    --messages 2000 --warmup 200 -o "$R/oneqp.jsonl"
  step rate-oneqp-warp32 45 $M $G $E1 --threads 32 --qps 1 --publication warp --batch 32 \
    --messages 20000 --warmup 2000 --repeats 3 -o "$R/oneqp.jsonl"
  step rate-oneqp-warp256 45 $M $G $E1 --threads 256 --qps 1 --publication warp --batch 32 \
    --messages 5000 --warmup 500 -o "$R/oneqp.jsonl"
  step rate-16x16 45 $M $G $E8 --blocks 16 --threads 1 --qps 16 --qp-map block --batch 1,16 \
    --messages 100000 --warmup 10000 -o "$R/16x16.jsonl"
  step rate-1sm-32q 45 $M $G $E8 --blocks 1 --threads 32 --qps 32 --qp-map thread --batch 16 \
    --messages 50000 --warmup 4800 -o "$R/1sm.jsonl"
  step rate-1sm-64q 45 $M $G $E8 --blocks 1 --threads 64 --qps 64 --qp-map thread --batch 16 \
    --messages 50000 --warmup 4800 -o "$R/1sm.jsonl"
  step rate-64x64 45 $M $G $E8 --blocks 64 --threads 1 --qps 64 --qp-map block --batch 16 \
    --messages 50000 --warmup 4800 --repeats 3 -o "$R/64x64.jsonl"
  local n
  for n in 1 2 4 8 16 32 64 128; do
    step "rate-scale-$n" 45 $M $G $E8 --blocks $n --threads 1 --qps $n --qp-map block --batch 16 \
      --messages 50000 --warmup 4800 -o "$R/scale.jsonl"
  done
  step rate-fig3b-inline 60 $M $G $E8 --blocks 16 --threads 1 --qps 16 --batch 16 --payload inline \
    --size 8,16,28,60,92,124,220 --messages 50000 --warmup 4800 -o "$R/fig3b.jsonl"
  step rate-fig3b-pointer 60 $M $G $E8 --blocks 16 --threads 1 --qps 16 --batch 16 --payload pointer \
    --size 8,64,256,1024,4096 --messages 50000 --warmup 4800 -o "$R/fig3b.jsonl"
  step rate-scope 90 $M $G $E1 --experiment scope --scope all-qp,used-qp,per-qp,signal \
    --qps 1,2,4,8,16,32 --messages 2000 --warmup 200 -o "$R/scope.jsonl"
  step rate-hostdb-rate 45 $M $G $E8 --blocks 16 --threads 1 --qps 16 --batch 16 --doorbell host \
    --doorbell-cpu 15 --messages 100000 --warmup 9600 -o "$R/hostdb.jsonl"
  step rate-hostdb-putc-host 45 $M $G $E1 --experiment scope --scope per-qp --qps 1 --doorbell host \
    --doorbell-cpu 15 --messages 5000 --warmup 500 -o "$R/hostdb.jsonl"
  step rate-hostdb-putc-device 45 $M $G $E1 --experiment scope --scope per-qp --qps 1 --doorbell device \
    --messages 5000 --warmup 500 -o "$R/hostdb.jsonl"
}

# Phase `rate_devnic`: the same rate kernels against GPU-resident queues
# (SQ/CQ/doorbell records in cudaMalloc memory) served by the software NIC's
# device engine, a persistent kernel on --nic-sms SMs beside the rate kernel
# (docs/design/device-engine.md). The NIC is EMULATED on a real GPU: records
# say nic=softnic-device, placement=gpu, hardware=false, gpu_hardware=true,
# nic_hardware=false, with nic_sms and the SMs the engine took. JSON lines in
# $OUT/rate/devnic-*.jsonl; each step <= 60 s, the phase about 1-2 minutes.
#   rate-devnic-smoke     1 QP / 1 SM, nic-sms 1, a short run (a stuck engine skips the rest)
#   rate-devnic-64x64     64 QPs / 64 SMs, B=16, nic-sms 8 (Table 5's 64x64 row, emulated NIC on the GPU)
#   rate-devnic-16q-smsN  16 QPs / 16 SMs, B=16, nic-sms 1, 2, 4, 8: rate vs the SMs the NIC takes
phase_rate_devnic() {
  local R="$OUT/rate"
  local D="gda rate --target cuda --nic softnic-device --format json --quiet --timeout-ms 5000"
  mkdir -p "$R"
  step rate-devnic-smoke 60 $M $D --nic-sms 1 --blocks 1 --threads 1 --qps 1 --batch 16 \
    --messages 16000 --warmup 1600 -o "$R/devnic-smoke.jsonl"
  if tail -1 "$OUT/steps.txt" | grep -q "rc=124"; then
    echo "rate_devnic: the smoke step hit its time limit; the other device-engine steps are skipped" | tee -a "$OUT/steps.txt"
    return
  fi
  step rate-devnic-64x64 60 $M $D --nic-sms 8 --blocks 64 --threads 1 --qps 64 --qp-map block --batch 16 \
    --messages 20000 --warmup 1600 --repeats 3 -o "$R/devnic-64x64.jsonl"
  local n
  for n in 1 2 4 8; do
    step "rate-devnic-16q-sms$n" 60 $M $D --nic-sms $n --blocks 16 --threads 1 --qps 16 --qp-map block \
      --batch 16 --messages 20000 --warmup 1600 -o "$R/devnic-16q.jsonl"
  done
}

# ===== phase family: sanitize2 =====
# GPU phase "sanitize2" (in scripts/device-run.sh: step, $M, $CS, $OUT): compute-sanitizer
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

# ===== phase family: sanitize3 =====
# GPU phase "sanitize3" (in scripts/device-run.sh: step, $M, $CS, $OUT): the device
# engine under compute-sanitizer memcheck again, after the fix of its system-scope atomic on
# pinned host memory (docs/results/h200-compute-sanitizer.md), and racecheck of the DSM
# sanitize profile (the touch-word fix). Same small counts as phase sanitize2. Tool reports go
# to the .jsonl beside each log (compute-sanitizer prints to stdout). $OUT/sanitize3/.
phase_sanitize3() {
  local S="$CS --target-processes all --error-exitcode 99 --print-limit 20" d="$OUT/sanitize3"
  local G="--target cuda --quiet --format json"
  mkdir -p "$d"
  # (gda latency --placement gpu is not run: under compute-sanitizer its initiator kernel did not
  # run beside the engine's persistent kernel and the run sat until the step's bound -- memcheck in
  # this phase's first run, synccheck and racecheck in phase sanitize2. gda rate's device-engine
  # path finishes under the tools, and runs the same engine kernel.)
  [ -z "${SANITIZE3_SKIP_MEMCHECK:-}" ] && step s3-memcheck-rate-devnic 60 sh -c "$S --tool memcheck $M gda rate $G --nic softnic-device --nic-sms 1 \
    --blocks 1 --threads 32 --qps 1 --batch 4 --messages 2000 --warmup 0 --repeats 1 \
    >$d/memcheck-rate-devnic.jsonl 2>$d/memcheck-rate-devnic.log"
  if [ -n "${SANITIZE3_DSM:-}" ]; then
    step s3-racecheck-dsm 150 sh -c "$S --tool racecheck $M dsm run --experiment E0,E1,E2,E3,E4 --sanitize \
      --format json --quiet >$d/racecheck-dsm.jsonl 2>$d/racecheck-dsm.log"
  fi
}

# ===== phase family: sanitize4 =====
# GPU phase "sanitize4" (in scripts/device-run.sh: step, $M, $CS, $OUT): compute-sanitizer
# memcheck, synccheck and racecheck over the kernels changed on 2026-12-01 evening: the device
# engine's loop (quiet-QP skipping, private counters, acquire atomics), gda goodput's round-robin
# window over several QPs, and the DSM traffic kernel (per-lane touch words, the barrier between
# the mbarrier init and the arrival; racecheck of it ran in phase sanitize3). Small counts:
# correctness only. Reports in $OUT/sanitize4/<tool>-<family>.jsonl (the tool prints to stdout),
# the CLI's stderr in the .log beside it. About 2 minutes.
sanitize4_one() { # tool
  local t=$1 S="$CS --tool $1 --target-processes all --error-exitcode 99 --print-limit 20" d="$OUT/sanitize4"
  local G="--target cuda --quiet --format json"
  step "s4-$t-rate-devnic" 40 sh -c "$S $M gda rate $G --nic softnic-device --nic-sms 2 --blocks 2 --threads 32 \
    --qps 2 --batch 4 --messages 2000 --warmup 0 --repeats 1 >$d/$t-rate-devnic.jsonl 2>$d/$t-rate-devnic.log"
  step "s4-$t-goodput-qps" 40 sh -c "$S $M gda goodput $G --qps 4 --engine-threads 2 --sizes 8,4096 \
    --bytes-per-point 65536 --warmup 2 >$d/$t-goodput-qps.jsonl 2>$d/$t-goodput-qps.log"
}
phase_sanitize4() {
  mkdir -p "$OUT/sanitize4"
  local t
  for t in memcheck synccheck racecheck; do sanitize4_one "$t"; done
  for t in memcheck synccheck; do
    step "s4-$t-dsm" 60 sh -c "$CS --tool $t --target-processes all --error-exitcode 99 --print-limit 20 $M dsm run \
      --experiment E0,E1,E2,E3,E4 --sanitize --format json --quiet >$OUT/sanitize4/$t-dsm.jsonl \
      2>$OUT/sanitize4/$t-dsm.log"
  done
}

# ===== phase family: sanitize5 =====
# GPU phase "sanitize5" (in scripts/device-run.sh: step, $M, $CS, $OUT): compute-sanitizer
# memcheck, synccheck and racecheck over the mini-gda latency kernels after their per-iteration
# payload check changed (it samples long payloads; docs/design/methods.md 6.1), the kernel-cost
# callers that link the same code, and gda loaded. Small counts: correctness only.
# Reports in $OUT/sanitize5/<tool>-<family>.jsonl, the CLI's stderr in the .log beside it.
sanitize5_one() { # tool
  local t=$1 S="$CS --tool $1 --target-processes all --error-exitcode 99 --print-limit 20" d="$OUT/sanitize5"
  local G="--target cuda --quiet --format json"
  step "s5-$t-gda-sweep" 90 sh -c "$S $M gda latency $G --nic softnic --sweep ordering --iters 40 --warmup 4 \
    >$d/$t-gda-sweep.jsonl 2>$d/$t-gda-sweep.log"
  step "s5-$t-gda-rtt" 40 sh -c "$S $M gda latency $G --nic softnic --experiments rtt --iters 40 --warmup 4 \
    >$d/$t-gda-rtt.jsonl 2>$d/$t-gda-rtt.log"
  step "s5-$t-singleop" 40 sh -c "$S $M gda goodput $G --single-op --sizes 8,4096,65536 --iters 5 --warmup 1 \
    >$d/$t-singleop.jsonl 2>$d/$t-singleop.log"
  step "s5-$t-kcost" 40 sh -c "$S $M kernel-cost --quiet --format json --transport gda,proxy --arms dormant,send-wait \
    --live 32 --msgs 1 --sizes 8 --blocks 8 --launches 1 --warmup 0 >$d/$t-kcost.jsonl 2>$d/$t-kcost.log"
  step "s5-$t-loaded" 40 sh -c "$S $M gda loaded $G --background 0,4 --queue reserved --iters 50 --warmup 5 \
    >$d/$t-loaded.jsonl 2>$d/$t-loaded.log"
}
phase_sanitize5() {
  mkdir -p "$OUT/sanitize5"
  local t
  for t in memcheck synccheck racecheck; do sanitize5_one "$t"; done
}

# ===== phase family: scope10 =====
# GPU phase "scope10" (in scripts/device-run.sh; uses step, rr from phase family medians, $M, $OUT).
# Issue 10 on cuda + softnic (CPU engine; EMULATED NIC, real GPU):
#   scope2-*   completion scope (Fig. 4 / Table 7) again as three process runs, same flags as
#              phase_medians5, after used-QP quiet became a walk over the used bitmap's set bits
#              (docs/design/methods.md §2.1); merged to $OUT/medians/gda-rate-scope2.jsonl
#   limit-*    where the message rate stops growing: all 132 SMs with one poster each, then 32
#              posters per SM (warp-cooperative), on 8 and on 14 engine threads, so that a
#              plateau can be told apart as poster-side (no change with engine threads) or
#              engine-side (it moves with them). JSON lines in $OUT/scope10/limit.jsonl.
# About 2 minutes.
phase_scope10() {
  mkdir -p "$OUT/medians" "$OUT/scope10"
  local G1="gda rate --target cuda --nic softnic --timeout-ms 5000 --engine-threads 1 --engine-cpus 1"
  rr gda-rate-scope2 120 $M $G1 --experiment scope --scope all-qp,used-qp,per-qp,signal --qps 1,2,4,8,16,32 \
    --messages 2000 --warmup 200
  local G="gda rate --target cuda --nic softnic --format json --quiet --timeout-ms 5000"
  local E8="--engine-threads 8 --engine-cpus 1,2,3,4,5,6,7,8"
  local E14="--engine-threads 14 --engine-cpus 1,2,3,4,5,6,7,8,9,10,11,12,13,14"
  local L="$OUT/scope10/limit.jsonl"
  step limit-128x1-e8 45 $M $G $E8 --blocks 128 --threads 1 --qps 128 --qp-map block --batch 16 \
    --messages 50000 --warmup 4800 -o "$L"
  step limit-132x1-e8 45 $M $G $E8 --blocks 132 --threads 1 --qps 132 --qp-map block --batch 16 \
    --messages 50000 --warmup 4800 -o "$L"
  step limit-132x1-e14 45 $M $G $E14 --blocks 132 --threads 1 --qps 132 --qp-map block --batch 16 \
    --messages 50000 --warmup 4800 -o "$L"
  step limit-132x32w-e8 45 $M $G $E8 --blocks 132 --threads 32 --publication warp --qps 132 --qp-map block \
    --batch 32 --messages 5000 --warmup 640 -o "$L"
  step limit-132x32w-e14 45 $M $G $E14 --blocks 132 --threads 32 --publication warp --qps 132 --qp-map block \
    --batch 32 --messages 5000 --warmup 640 -o "$L"
  step limit-64x32w-e14 45 $M $G $E14 --blocks 64 --threads 32 --publication warp --qps 64 --qp-map block \
    --batch 32 --messages 5000 --warmup 640 -o "$L"
}

# Phase "limit2": what the plateau of phase scope10 (~100-127 M msg/s at 128-132 SMs, no change from 8
# to 14 engine threads) follows. At 132 SMs x 32 warp-cooperative posters, 14 engine threads:
#   limit2-size     inline 8, 60, 220 B (1, 2, 4 WQEBBs written to host memory per message): a
#                   plateau set by bytes written would fall with the WQE size, one set per message not
#   limit2-signal   signal period 64 instead of 16 (a quarter of the CQEs, and of the posters' CQ
#                   reads over PCIe): a plateau set by completions would rise
#   limit2-e2       2 engine threads: where the engine becomes the limit (the NIC-side contrast)
# JSON lines in $OUT/scope10/limit2*.jsonl. About 30 s.
phase_limit2() {
  mkdir -p "$OUT/scope10"
  local G="gda rate --target cuda --nic softnic --format json --quiet --timeout-ms 5000"
  local E14="--engine-threads 14 --engine-cpus 1,2,3,4,5,6,7,8,9,10,11,12,13,14"
  local S="--blocks 132 --threads 32 --publication warp --qps 132 --qp-map block --batch 32"
  step limit2-size 60 $M $G $E14 $S --size 8,60,220 --messages 5000 --warmup 640 -o "$OUT/scope10/limit2-size.jsonl"
  step limit2-signal 45 $M $G $E14 $S --signal-period 64 --messages 5000 --warmup 640 \
    -o "$OUT/scope10/limit2-signal.jsonl"
  step limit2-e2 45 $M $G --engine-threads 2 --engine-cpus 1,2 $S --messages 5000 --warmup 640 \
    -o "$OUT/scope10/limit2-e2.jsonl"
}

# Phase "limit3": the posters' stores alone. native/bench/sysmem_store_rate.cu (built with nvcc on the
# development machine into .jrt/bin, which the run carries) has 132 x 32 threads write messages of
# 4-byte volatile stores into pinned host memory, as mlx5_wqe.h writes a WQE (11 words: an 8-byte
# inline WRITE; 24: 60 B; 64: 220 B), with a system-scope fence every 32 messages as a warp's batch
# has, a warp's lanes writing consecutive slots of one ring as in an SQ; and contrasts: no fence,
# 16-byte stores, GPU memory, each thread its own ring ("private"), one thread per SM.
# JSON lines in $OUT/scope10/limit3b.jsonl (limit3.jsonl: the first version, every thread its own
# ring). About 20 s.
phase_limit3() {
  mkdir -p "$OUT/scope10"
  local B=.jrt/bin/sysmem_store_rate L="$OUT/scope10/limit3b.jsonl" a
  if [ ! -x "$B" ]; then echo "limit3: $B not carried; skipped" | tee -a "$OUT/steps.txt"; return 0; fi
  for a in "132 32 11 4 20000 32" "132 32 11 4 20000 0" "132 32 12 16 20000 32" "132 32 24 4 10000 32" \
           "132 32 64 4 5000 32" "132 32 11 4 20000 32 gpu" "132 32 11 4 20000 32 private" \
           "132 1 11 4 200000 32 private" "64 32 11 4 20000 32"; do
    step "limit3b-${a// /-}" 30 sh -c "$B $a >>$L"
  done
}

# Phase "limit3c": as limit3, with the fence after every message of a thread, which is what a
# warp-cooperative poster does (each lane writes one WQE of the warp's batch, then the batch is
# ordered before its doorbell). JSON lines in $OUT/scope10/limit3c.jsonl. About 15 s.
phase_limit3c() {
  mkdir -p "$OUT/scope10"
  local B=.jrt/bin/sysmem_store_rate L="$OUT/scope10/limit3c.jsonl" a
  if [ ! -x "$B" ]; then echo "limit3c: $B not carried; skipped" | tee -a "$OUT/steps.txt"; return 0; fi
  for a in "132 32 11 4 20000 1" "132 32 24 4 10000 1" "132 32 64 4 5000 1" "132 32 11 4 20000 1 gpu" \
           "132 1 11 4 200000 1 private" "132 32 12 16 20000 1"; do
    step "limit3c-${a// /-}" 30 sh -c "$B $a >>$L"
  done
}

# Phase "limit4": the same stores with CPU threads reading the rings' lines meanwhile (readers=N, on CPUs
# 1..N), as the software NIC's engine threads read the WQEs the posters write into host-resident SQs:
# whether the CPU side's reads slow the SMs' stores to the 126 M msg/s plateau of 8-byte WRITEs.
# JSON lines in $OUT/scope10/limit4.jsonl. About 20 s.
phase_limit4() {
  mkdir -p "$OUT/scope10"
  local B=.jrt/bin/sysmem_store_rate L="$OUT/scope10/limit4.jsonl" a
  if [ ! -x "$B" ]; then echo "limit4: $B not carried; skipped" | tee -a "$OUT/steps.txt"; return 0; fi
  for a in "132 32 11 4 20000 1" "132 32 11 4 20000 1 readers=1" "132 32 11 4 20000 1 readers=8" \
           "132 32 11 4 20000 1 readers=14" "132 32 24 4 10000 1 readers=14"; do
    step "limit4-${a// /-}" 30 sh -c "$B $a >>$L"
  done
}

# Phase "limit5": the warp-cooperative plateau runs of scope10/limit2 again, after the shares'
# denominator became the posting threads only (each warp's leader under warp publication;
# docs/design/methods.md §2.1): what share of a leader's time goes to waiting for ring space.
# JSON lines in $OUT/scope10/limit5*.jsonl. About 20 s.
phase_limit5() {
  mkdir -p "$OUT/scope10"
  local G="gda rate --target cuda --nic softnic --format json --quiet --timeout-ms 5000"
  local E8="--engine-threads 8 --engine-cpus 1,2,3,4,5,6,7,8"
  local E14="--engine-threads 14 --engine-cpus 1,2,3,4,5,6,7,8,9,10,11,12,13,14"
  local S="--threads 32 --publication warp --qp-map block --batch 32 --messages 5000 --warmup 640"
  step limit5-132x32w-e8 45 $M $G $E8 --blocks 132 --qps 132 $S -o "$OUT/scope10/limit5.jsonl"
  step limit5-132x32w-e14 45 $M $G $E14 --blocks 132 --qps 132 $S --size 8,60,220 -o "$OUT/scope10/limit5.jsonl"
  step limit5-132x32w-e14-k64 45 $M $G $E14 --blocks 132 --qps 132 $S --signal-period 64 -o "$OUT/scope10/limit5.jsonl"
  step limit5-64x32w-e14 45 $M $G $E14 --blocks 64 --qps 64 $S -o "$OUT/scope10/limit5.jsonl"
  step limit5-132x32w-e2 45 $M $G --engine-threads 2 --engine-cpus 1,2 --blocks 132 --qps 132 $S \
    -o "$OUT/scope10/limit5.jsonl"
}

# ===== phase family: twoproc =====
# In scripts/device-run.sh (helpers step, $M, $OUT). Phase twoproc
# (docs/design/two-process.md): gda latency between two processes on the H200
# host over the software NIC's shared-memory wire -- a GPU initiator
# (--target cuda, rank 0) and a CPU responder (rank 1) -- and, in the same
# call, the one-process numbers with the same flags. JSON lines in
# $OUT/twoproc/. About 1-2 minutes; every step is bounded.
# Records: "hardware": false (emulated NIC), the GPU is real on cuda rows.

twoproc_pair() { # name rank0-target port
  local name=$1 target=$2 port=$3 d="$OUT/twoproc"
  local flags="--nic softnic --iters 20000 --warmup 2000 --timeout-ms 5000 --peer-timeout-s 30"
  # rank 1 first: it retries its connection until rank 0 listens
  ( env RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout 100 \
      $M gda latency --target cpu --engine-cpu 4 $flags >"$d/$name-responder.log" 2>&1
    echo "twoproc-$name-responder rc=$?" >>"$OUT/steps.txt" ) &
  local rpid=$!
  step "twoproc-$name" 100 env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    $M gda latency --target "$target" --engine-cpu 2 $flags --format json -o "$d/$name.jsonl"
  wait "$rpid"
}

phase_twoproc() {
  local d="$OUT/twoproc"
  mkdir -p "$d"
  step twoproc-single-cuda 60 $M gda latency --target cuda --nic softnic --engine-cpu 2 --iters 20000 \
    --warmup 2000 --format json -o "$d/single-cuda.jsonl"
  step twoproc-single-cpu 60 $M gda latency --target cpu --nic softnic --engine-cpu 2 --iters 20000 \
    --warmup 2000 --format json -o "$d/single-cpu.jsonl"
  twoproc_pair pair-cuda cuda 29611
  twoproc_pair pair-cpu cpu 29613
  ls /dev/shm | grep -c marrow-wire >"$d/leftover-shm-segments.txt" 2>&1
}

# ===== phase family: twoproc2 =====
# In scripts/device-run.sh (helpers step, $M, $OUT). Phase twoproc2
# (docs/design/two-process.md section 9): the mini-proxy across two processes
# of the H200 host over the software NIC's shared-memory wire. Rank 0 is the
# initiator (it runs the proxy and writes the JSON), rank 1 the responder
# (a CPU process whose inbox receives the WRITEs; for proxy loaded its own
# proxy answers the probe round trips). Steps:
#   latency-cuda   proxy latency, CUDA producer (real GPU), baseline + tuned
#   latency-cpu    the same with a CPU producer (the row beside it)
#   single-cuda    proxy latency, CUDA producer, one process (same flags)
#   rate           proxy rate, CPU producers, T=2 workers, R=8, B=16
#   loaded         proxy loaded, CPU producers, 0/1/4 background streams,
#                  reserved rings, probe round trip through the responder
# JSON lines in $OUT/twoproc2/; each step is bounded (about 3 minutes in all).
# Records: "hardware": false, "nic_hardware": false (emulated NIC);
# "gpu_hardware": true on the CUDA-producer rows only.

twoproc2_pair() { # name port limit_s rank0-pinning -- args... (both ranks run args, as under a launcher)
  local name=$1 port=$2 limit=$3 pin0=$4 d="$OUT/twoproc2"
  shift 5
  # rank 1 first: it retries its connection until rank 0 listens; its engine on its own core
  ( env RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" timeout "$limit" \
      $M "$@" --engine-cpu 8 --peer-timeout-s 30 >"$d/$name-responder.log" 2>&1
    echo "twoproc2-$name-responder rc=$?" >>"$OUT/steps.txt" ) &
  local rpid=$!
  step "twoproc2-$name" "$limit" env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" \
    $M "$@" $pin0 --peer-timeout-s 30 --format json -o "$d/$name.jsonl"
  wait "$rpid"
}

phase_twoproc2() {
  local d="$OUT/twoproc2"
  local lat="--handoff both --iters 20000 --warmup 2000 --timeout-ms 5000"
  mkdir -p "$d"
  step twoproc2-single-cuda 40 $M proxy latency --producer cuda $lat --engine-cpu 2 --cpus 4 --format json \
    -o "$d/single-cuda.jsonl"
  twoproc2_pair latency-cuda 29621 45 "--engine-cpu 2 --cpus 4" -- proxy latency --producer cuda $lat
  twoproc2_pair latency-cpu 29623 40 "--engine-cpu 2 --cpus 4" -- proxy latency --producer cpu $lat
  twoproc2_pair rate 29625 40 "--engine-cpu 2 --cpus 4,5" -- proxy rate --producer cpu --workers 2 --rings 8 \
    --batch 16 --messages 2000000 --warmup 200000 --timeout-ms 5000
  twoproc2_pair loaded 29627 50 "--engine-cpu 2 --cpus 4" -- proxy loaded --background 0,1,4 --queue reserved \
    --iters 5000 --warmup 500 --wire-gbps 0 --timeout-ms 5000
  ls /dev/shm | grep -c marrow-wire >"$d/leftover-shm-segments.txt" 2>&1
}

for ph in "$@"; do
  if [ -n "${HARD_END_S:-}" ] && [ $((HARD_END_S - SECONDS)) -lt 5 ]; then
    echo "phase $ph skipped (HARD_END_S)" | tee -a "$OUT/steps.txt"; continue
  fi
  echo "phase $ph start t=${SECONDS}s" | tee -a "$OUT/steps.txt"; "phase_$ph"
  # What still runs after the phase: a leftover process would compete with the next phases.
  { echo "after phase $ph t=${SECONDS}s"; ps -eo pid,ppid,stat,etime,pcpu,args --sort=-pcpu | head -8; } >>"$OUT/ps.txt" 2>&1
done
tar -C "$OUT" -czf /tmp/h200-run.tgz . && rm -rf "${OUT:?}"/* && mv /tmp/h200-run.tgz "$OUT/"
