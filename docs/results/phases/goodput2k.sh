# SPDX-License-Identifier: Apache-2.0
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
# Sourced by docs/results/h200-run.sh (step NAME TIMEOUT_S cmd..., $M, $OUT). JSON lines under
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
