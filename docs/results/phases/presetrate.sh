# SPDX-License-Identifier: Apache-2.0
# GPU phase "presetrate" (sourced by docs/results/h200-run.sh: step, $M, $OUT): `gda rate` with
# every preset that runs with it (marrow presets list, "runs with" column), on the CPU engine
# with 8 engine threads, 16 blocks x 32 threads; the preset sets ordering, QPs per peer,
# doorbell batch, publication and completion scope (docs/design/presets.md). Three repeats per
# process. EMULATED NIC ("hardware": false). JSON lines in $OUT/presetrate/. About 30 s.
phase_presetrate() {
  local d="$OUT/presetrate" p
  mkdir -p "$d"
  for p in $($M presets list | awk 'NR > 1 && /gda rate/ { print $1 }'); do
    step "presetrate-$p" 45 $M gda rate --preset "$p" --target cuda --nic softnic --engine-threads 8 \
      --engine-cpus 1,2,3,4,5,6,7,8 --blocks 16 --threads 32 --messages 50000 --warmup 5000 --repeats 3 \
      --timeout-ms 5000 --format json --quiet -o "$d/gda-rate-$p.jsonl"
  done
}
