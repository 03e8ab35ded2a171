# SPDX-License-Identifier: Apache-2.0
# GPU phase "engcheck" (sourced by docs/results/h200-run.sh: step, $M, $J, $OUT): checks after the
# second pass over the CPU engine's fast path (docs/design/software-nic.md 6.1), which changed the
# execution core that the device engine compiles too.
#   1. the device-engine fidelity test (CPU and device engine, same CQE streams), built on the
#      development machine as .jrt/bin/test_softnic_device_fidelity (it dlopens
#      ./native/target/stage/lib/libmarrow_cuda.so, so it runs from the repository root);
#   2. proxy rate with CPU producers, this build against the native libraries of the build before
#      the change (ENGCHECK_OLD_LIBS, a -Dmarrow.native.dir folder; its manifest names that build),
#      alternating, two processes each: phase engine8 measured proxy rate 20-30 % below run 3 and
#      this says whether the engine change or the machine did it.
# JSON under $OUT/engcheck/. About 1 minute.
phase_engcheck() {
  local d="$OUT/engcheck" i old=${ENGCHECK_OLD_LIBS:-}
  mkdir -p "$d"
  if [ -x .jrt/bin/test_softnic_device_fidelity ]; then
    step engcheck-fidelity 60 .jrt/bin/test_softnic_device_fidelity
  fi
  local P="proxy rate --producer cpu --handoff tuned --workers 1,4 --rings 8 --batch 16 --engine-threads 4 \
    --engine-cpu 1 --cpus 2,3,4,5 --messages 2000000 --warmup 100000 --format json --quiet"
  for i in 1 2; do
    step "engcheck-proxy-new-$i" 40 $M $P -o "$d/proxy-new-$i.jsonl"
    if [ -n "$old" ]; then
      step "engcheck-proxy-old-$i" 40 $JAVA_HOME/bin/java --enable-native-access=ALL-UNNAMED \
        -Dmarrow.native.dir="$old" -jar java/target/marrow-cli.jar $P -o "$d/proxy-old-$i.jsonl"
    fi
  done
}
