# SPDX-License-Identifier: Apache-2.0
# phase_goodput: goodput and loaded round trip on the software NIC (docs/design/methods.md §6,
# docs/design/wire-model.md). Sourced by docs/results/h200-run.sh (step, $M, $OUT). JSON lines in
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
