# SPDX-License-Identifier: Apache-2.0
# phase_presetgoodput: Fig. 8 goodput per library preset (issue 12, docs/design/presets.md) on the
# software NIC. Sourced by docs/results/h200-run.sh, which provides step, $M and $OUT.
#
# For every preset that `marrow presets list` says gda goodput or proxy goodput runs, that command
# with --preset NAME, the 200 Gb/s wire model and the settings of phase_goodput (goodput.sh:
# --engine-cpu 2 for gda, --engine-threads 2 for proxy), over a trimmed size list (8 B .. 4 MiB,
# 8 sizes, 2 KiB included for the 90 %-of-line-rate crossing) so the phase fits in about 150 s:
#   gda   -> gda goodput --target cuda
#   proxy -> proxy goodput --producer cuda (a preset that sets its own producer, fabric-lib's host
#            loop, keeps it: no --producer flag then)
# Presets a goodput command refuses (a knob it lacks: more QPs, batched doorbells, context rings)
# are not run; $OUT/presetgoodput/presets.txt keeps the list that says which run where.
# Records: $OUT/presetgoodput/<gda|proxy>-goodput-<preset>.jsonl, EMULATED ("hardware": false, the
# wire model named), each carrying "preset". Every step bounded: --max-seconds 20 inside a 30 s
# timeout; today 1 gda + 4 proxy presets, so at most 150 s.
# PRESETGOODPUT_TARGET=cpu runs the same lines with --target cpu / --producer cpu (no GPU needed).
phase_presetgoodput() {
  local d="$OUT/presetgoodput"; mkdir -p "$d"
  local G="--format json --quiet --max-seconds 20"
  local sizes="8,64,512,2048,16384,131072,1048576,4194304"
  local target="${PRESETGOODPUT_TARGET:-cuda}" list p producer
  list=$($M presets list) || { echo "presetgoodput: marrow presets list failed" | tee -a "$OUT/steps.txt"; return 0; }
  echo "$list" >"$d/presets.txt"
  for p in $(echo "$list" | awk 'NR > 1 && /gda goodput/ { print $1 }'); do
    step "presetgoodput-gda-$p" 30 $M gda goodput --preset "$p" --target "$target" --engine-cpu 2 \
      --wire-gbps 200 --sizes "$sizes" --bytes-per-point 33554432 $G -o "$d/gda-goodput-$p.jsonl"
  done
  for p in $(echo "$list" | awk 'NR > 1 && /proxy goodput/ { print $1 }'); do
    producer="--producer $target"
    $M presets show "$p" | grep -q "^  producer = " && producer=""
    step "presetgoodput-proxy-$p" 30 $M proxy goodput --preset "$p" $producer --engine-threads 2 \
      --wire-gbps 200 --sizes "$sizes" --bytes-per-point 33554432 $G -o "$d/proxy-goodput-$p.jsonl"
  done
}
