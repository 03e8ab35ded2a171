// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.clock.ClockSweep;
import dev.marrow.gda.Experiment;
import dev.marrow.gda.GdaRecords;
import dev.marrow.gda.GdaRun;
import dev.marrow.gda.GdaRunSpec;
import dev.marrow.gda.GdaSetup;
import dev.marrow.gda.MiniGda;
import dev.marrow.fabric.Nic;
import dev.marrow.gda.Ordering;
import dev.marrow.gda.OrderingPolicy;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.presets.PresetRules;
import dev.marrow.presets.Presets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** mini-gda issue and put+completion at locked SM clocks, fitted to T = C/f + B. */
@Command(name = "clock-sweep", mixinStandardHelpOptions = true,
        description = {"SM-clock sensitivity of mini-gda (\"GPU-Initiated Communication: Dissecting Down to the "
                + "Bone\", Fig. 5 / Table 6): issue and put+completion of one 8-byte WRITE from one GPU thread "
                + "at each --clocks SM clock, in --passes shuffled passes, then T(f) = C/f + B by least squares "
                + "over 1/f: C (cycles), B (us), R^2 and the clock-sensitive share at the top clock.",
                "Changes the GPU's clocks only with --lock-clocks (root, nvidia-smi); restores them on every exit "
                        + "path. --fit-only FILE... fits existing records and touches nothing.",
                "The f of the fit is the SM clock MEASURED in the kernel (clock64 over globaltimer), median per "
                        + "locked clock. --nic softnic results are EMULATED (\"hardware\": false).",
                "--preset NAME (marrow presets list): a GPU-submitted library's ordering (--ordering); the sweep "
                        + "posts from one thread through one QP with a doorbell per WQE, so a preset needing more "
                        + "QPs, batched doorbells or warp publication is refused with the knob named. Explicit flags "
                        + "override the preset; every record carries \"preset\"."})
final class GdaClockSweepCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    OutputOptions out;
    @Mixin
    ClockSweepOptions sweep;

    @Option(names = "--nic", defaultValue = "softnic", converter = CliNames.GdaNics.class,
            completionCandidates = CliNames.GdaNics.class, description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    Nic nic;

    @Option(names = "--ordering", converter = CliNames.Orderings.class, completionCandidates = CliNames.Orderings.class,
            description = "${COMPLETION-CANDIDATES}. Default: by placement (docs/design/orderings.md §3)")
    Ordering ordering;

    @Option(names = "--payload", defaultValue = "inline", converter = CliNames.Payloads.class,
            completionCandidates = CliNames.Payloads.class, description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    Payload payload;

    @Option(names = "--iters", defaultValue = "5000", description = "Timed operations per cell and sequence. Default: ${DEFAULT-VALUE}")
    int iters;

    @Option(names = "--warmup", defaultValue = "500", description = "Untimed operations first. Default: ${DEFAULT-VALUE}")
    int warmup;

    @Option(names = "--timeout-ms", defaultValue = "5000", description = "Bound of every single wait. Default: ${DEFAULT-VALUE}")
    long timeoutMs;

    @Option(names = "--engine-cpu", defaultValue = "-1", description = "Pin the software NIC engine to this CPU. Default: ${DEFAULT-VALUE}")
    int engineCpu;

    @Option(names = "--cuda-device", defaultValue = "0", description = "CUDA device ordinal (and nvidia-smi -i). Default: ${DEFAULT-VALUE}")
    int cudaDevice;

    @Option(names = "--preset", paramLabel = "NAME",
            description = "A library preset (marrow presets list); explicit flags override its choices")
    String preset;

    /** What --preset set (records carry it); NONE without one. */
    PresetRules.Applied presetApplied = PresetRules.Applied.NONE;

    static final int SIZE = 8;

    /** The knobs of gda clock-sweep: those of gda latency (one thread, one QP, one outstanding put). */
    static PresetRules presetRules(GdaClockSweepCommand c) {
        return GdaCommand.Latency.oneQpRules("gda clock-sweep", o -> c.ordering = o,
                "rings the doorbell for every WQE (one outstanding put)");
    }

    @Override
    public Integer call() {
        if (preset != null) { // before any check or device: a refusal is a usage error on any host
            presetApplied = presetRules(this).apply(Presets.get(preset), spec.commandLine().getParseResult()::hasMatchedOption);
        }
        if (iters < 1 || warmup < 0 || timeoutMs <= 0) {
            throw new IllegalArgumentException("--iters must be >= 1, --warmup >= 0, --timeout-ms > 0");
        }
        GdaSetup setup = GdaSetup.defaults(Target.CUDA).withNic(nic).withPlacement(Placement.HOST)
                .withEngineCpu(engineCpu).withCudaDevice(cudaDevice).withPollMode(SoftNic.PollMode.HOT);
        Ordering ord = ordering == null ? OrderingPolicy.defaultFor(setup.placement()) : ordering;
        OrderingPolicy.requireAllowed(setup.nic(), setup.placement(), ord, false);
        String group = "gda " + setup.backendName() + " ordering=" + ord.label() + " payload=" + payload.label()
                + " size_bytes=" + SIZE;
        return ClockSweepDriver.run(spec, out, sweep, new ClockSweepDriver.Target("gda", setup.backendName(),
                nic.hardware(), group, cudaDevice, Backend.CUDA::ensureAvailability,
                () -> lockedMhz -> measure(setup, ord, lockedMhz), presetApplied));
    }

    private ClockSweep.Cell measure(GdaSetup setup, Ordering ord, int lockedMhz) {
        try (MiniGda g = MiniGda.open(setup)) {
            List<GdaRun> runs = List.of(
                    g.run(new GdaRunSpec(Experiment.ISSUE, ord, payload, SIZE, iters, warmup, timeoutMs * 1_000_000L)),
                    g.run(new GdaRunSpec(Experiment.PUT_COMPLETION, ord, payload, SIZE, iters, warmup,
                            timeoutMs * 1_000_000L)));
            Map<String, Double> us = new LinkedHashMap<>();
            Map<String, Double> mhz = new LinkedHashMap<>();
            for (GdaRun r : runs) {
                if (!r.valid()) {
                    throw new IllegalStateException("gda clock-sweep at " + lockedMhz + " MHz: "
                            + r.payloadErrors() + " payload error(s) in " + r.spec().experiment().metricPrefix());
                }
                String seq = r.spec().experiment().metricPrefix();
                us.put(seq, r.stats().p50() / 1000.0);
                mhz.put(seq, r.smClockGhz() * 1000.0);
            }
            return new ClockSweep.Cell(us, mhz, GdaRecords.record(runs));
        }
    }
}
