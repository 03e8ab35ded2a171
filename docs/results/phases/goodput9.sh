# SPDX-License-Identifier: Apache-2.0
# phase_goodput9: goodput vs payload with the window spread over several QPs, each QP's SQ served by
# its own software NIC engine thread (issue 11 §2; docs/design/methods.md §6, docs/design/wire-model.md).
# The question: is the ~12-14 GB/s ceiling of phase_goodput the one engine thread's copy, and do N
# engine threads (the software NIC's analogue of a ConnectX's DMA engines) carry mini-gda past 90 %
# of the 200 Gb/s model's line rate? The model is ONE port per software NIC: every QP and engine
# thread serialises through one 200 Gb/s link (records: wire_model, wire_model_scope), so a sum over
# QPs can never pass 25 GB/s. Every record: "hardware": false, "gpu_hardware": true,
# "nic_hardware": false (EMULATED NIC on a real GPU).
# Sourced by docs/results/h200-run.sh (step NAME TIMEOUT_S cmd..., $M, $OUT). JSON lines under
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
