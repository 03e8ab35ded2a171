# SPDX-License-Identifier: Apache-2.0
# GPU phase "medians" (sourced by docs/results/h200-run.sh; uses its step, $M, $OUT): every
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
