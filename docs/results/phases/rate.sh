# SPDX-License-Identifier: Apache-2.0
# Phase `rate` of docs/results/h200-run.sh (sourced there): mini-gda message
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
