# SPDX-License-Identifier: Apache-2.0
# GPU phase "presetrate" (sourced by docs/results/h200-run.sh: step, $M, $OUT): `gda rate` with
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
