# SPDX-License-Identifier: Apache-2.0
# GPU phase "scope10" (sourced by docs/results/h200-run.sh; uses step, rr from phases/medians.sh, $M, $OUT).
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
