# SPDX-License-Identifier: Apache-2.0
# Library presets on the GPU box (docs/design/presets.md). Sourced by
# docs/results/h200-run.sh, which provides step, $M and $OUT.
#
# phase_presets: for every preset (marrow presets list), the command of its
# suite with --preset NAME:
#   gda   -> gda latency, put+completion only, --target cuda --nic softnic
#   proxy -> proxy rate --producer cuda (a preset that sets its own producer,
#            fabric-lib's host loop, keeps it: no --producer flag then)
# A preset that needs a knob the command lacks is refused (exit 2, the knob
# named in its log) and writes no records: that is the expected outcome for
# those presets today, and the log says which knob. Records go to
# $OUT/presets/<suite>-<preset>.jsonl; they are EMULATED ("hardware": false:
# the NIC is the software NIC) and carry "preset". Budget: 9 presets, each
# step bounded (60 s gda, 60 s proxy); a typical run takes well under 3 minutes.
phase_presets() {
  mkdir -p "$OUT/presets"
  local names p suite producer
  names=$($M presets list | awk 'NR > 1 { print $1 }')
  for p in $names; do
    suite=$($M presets list | awk -v p="$p" '$1 == p { print $2 }')
    if [ "$suite" = gda ]; then
      step "preset-gda-$p" 60 $M gda latency --preset "$p" --target cuda --nic softnic --engine-cpu 3 \
        --experiments putc --iters 5000 --warmup 500 --format json --quiet -o "$OUT/presets/gda-$p.jsonl"
    else
      producer="--producer cuda"
      $M presets show "$p" | grep -q "^  producer = " && producer=""
      step "preset-proxy-$p" 60 $M proxy rate --preset "$p" $producer --handoff tuned --engine-threads 2 \
        --messages 1000000 --warmup 50000 --format json --quiet -o "$OUT/presets/proxy-$p.jsonl"
    fi
  done
}
