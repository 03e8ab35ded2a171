# SPDX-License-Identifier: Apache-2.0
# GPU phase "dsmab" (sourced by docs/results/h200-run.sh; uses its step, $M, $OUT):
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
