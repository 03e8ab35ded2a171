# SPDX-License-Identifier: Apache-2.0
# Sourced by docs/results/h200-run.sh (helpers step, $M, $OUT). Phase gdaload2p
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
