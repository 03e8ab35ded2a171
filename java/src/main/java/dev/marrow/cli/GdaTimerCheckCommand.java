// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.softnic.SoftNic;
import dev.marrow.gda.Experiment;
import dev.marrow.gda.GdaRecords;
import dev.marrow.gda.GdaRun;
import dev.marrow.gda.GdaRunSpec;
import dev.marrow.gda.GdaSetup;
import dev.marrow.gda.MiniGda;
import dev.marrow.gda.Ordering;
import dev.marrow.gda.OrderingPolicy;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.presets.PresetRules;
import dev.marrow.presets.Presets;
import dev.marrow.results.ResultRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.List;
import java.util.concurrent.Callable;

/** The timer sanity check: a known responder delay must shift the measured round trip by exactly that. */
@Command(name = "timer-check", mixinStandardHelpOptions = true,
        description = {"Timer sanity check (\"GPU-Initiated Communication: Dissecting Down to the Bone\", "
                + "methodology): the mini-gda round trip (8-byte inline WRITE, the peer writes it back) run "
                + "twice on the same queues, with the peer answering at once and after --delay-us by its own "
                + "clock. The shift of the p50 round trip must equal the delay within --tolerance-us.",
                "Records: one gda.latency record per run (responder_delay_ns on the delayed one), then one "
                + "gda.timer-check record with both p50s, the shift and pass. Exit 1 when it fails.",
                "--nic softnic results are EMULATED (\"hardware\": false); the check is of our clocks and "
                + "loop, which the emulator does not replace.",
                "--preset NAME (marrow presets list): a GPU-submitted library's ordering (--ordering); the round "
                        + "trip posts from one thread through one QP with one put outstanding, so a preset needing "
                        + "more QPs, batched doorbells or warp publication is refused with the knob named. Explicit "
                        + "flags override the preset; every record carries \"preset\".", RunBounds.HELP})
public final class GdaTimerCheckCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    OutputOptions out;

    @Option(names = "--target", defaultValue = "cpu", converter = CliNames.Targets.class,
            completionCandidates = CliNames.Targets.class,
            description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    Target target;

    @Option(names = "--ordering", converter = CliNames.Orderings.class, completionCandidates = CliNames.Orderings.class,
            description = "${COMPLETION-CANDIDATES}. Default: release-sys (host-resident queues, "
                    + "docs/design/orderings.md §3)")
    Ordering ordering;

    @Option(names = "--preset", paramLabel = "NAME",
            description = "A library preset (marrow presets list); explicit flags override its choices")
    String preset;

    /** What --preset set (records carry it); NONE without one. */
    PresetRules.Applied presetApplied = PresetRules.Applied.NONE;

    /** The knobs of gda timer-check: those of gda latency (one thread, one QP, one outstanding put). */
    static PresetRules presetRules(GdaTimerCheckCommand c) {
        return GdaCommand.Latency.oneQpRules("gda timer-check", o -> c.ordering = o,
                "rings the doorbell for every WQE (one outstanding round trip)");
    }

    @Option(names = "--delay-us", defaultValue = "50", description = "The responder delay. Default: ${DEFAULT-VALUE}")
    long delayUs;

    @Option(names = "--tolerance-us", defaultValue = "1", description = "Allowed |shift - delay|. Default: ${DEFAULT-VALUE}")
    double toleranceUs;

    @Option(names = "--iters", defaultValue = "2000", description = "Timed round trips per run. Default: ${DEFAULT-VALUE}")
    int iters;

    @Option(names = "--warmup", defaultValue = "200", description = "Untimed round trips first. Default: ${DEFAULT-VALUE}")
    int warmup;

    @Option(names = "--timeout-ms", defaultValue = "5000", description = "Bound of every single wait. Default: ${DEFAULT-VALUE}")
    long timeoutMs;

    @Option(names = "--engine-cpu", defaultValue = "-1", description = "Pin the software NIC engine to this CPU. Default: ${DEFAULT-VALUE}")
    int engineCpu;

    @Option(names = "--cuda-device", defaultValue = "0", description = "CUDA device ordinal. Default: ${DEFAULT-VALUE}")
    int cudaDevice;

    /** The verdict: shift of the p50s against the delay, both in ns. */
    record Verdict(long baseP50Ns, long delayedP50Ns, long delayNs, double toleranceNs) {
        long shiftNs() {
            return delayedP50Ns - baseP50Ns;
        }

        boolean pass() {
            return Math.abs(shiftNs() - delayNs) <= toleranceNs;
        }

        ResultRecord record(String backend, boolean hardware) {
            return new ResultRecord("gda.timer-check", backend, hardware)
                    .param("responder_delay_ns", delayNs)
                    .param("tolerance_ns", toleranceNs)
                    .metric("rtt_p50_ns", baseP50Ns)
                    .metric("rtt_delayed_p50_ns", delayedP50Ns)
                    .metric("shift_ns", shiftNs())
                    .metric("shift_error_ns", shiftNs() - delayNs)
                    .metric("pass", pass());
        }
    }

    void validate() {
        if (iters < 1 || warmup < 0 || timeoutMs <= 0) {
            throw new IllegalArgumentException("--iters must be >= 1, --warmup >= 0, --timeout-ms > 0");
        }
        if (delayUs <= 0 || delayUs * 1000 >= timeoutMs * 1_000_000L || delayUs * 1000 > GdaRunSpec.MAX_RESPONDER_DELAY_NS) {
            throw new IllegalArgumentException("--delay-us must be > 0 and shorter than --timeout-ms, not " + delayUs);
        }
        if (!(toleranceUs >= 0)) {
            throw new IllegalArgumentException("--tolerance-us must be >= 0, not " + toleranceUs);
        }
    }

    @Override
    public Integer call() {
        out.format();
        if (preset != null) {
            presetApplied = presetRules(this).apply(Presets.get(preset), spec.commandLine().getParseResult()::hasMatchedOption);
        }
        validate();
        int spinning = (target == Target.CPU ? 2 : 0) + 1;
        CpuBudget.check(spinning, "initiator, peer, NIC engine", spec.commandLine().getErr());
        GdaSetup setup = GdaSetup.defaults(target).withEngineCpu(engineCpu).withCudaDevice(cudaDevice)
                .withPollMode(CpuBudget.pollMode(SoftNic.PollMode.HOT, spinning));
        GdaRunSpec base = new GdaRunSpec(Experiment.ROUND_TRIP,
                ordering != null ? ordering : OrderingPolicy.defaultFor(Placement.HOST),
                Payload.INLINE, 8, iters, warmup, timeoutMs * 1_000_000L);
        Verdict v;
        String bound = RunBounds.applyDefault(out, 2);
        RunProgress progress = out.progress("gda timer-check", 2);
        try (MiniGda g = MiniGda.open(setup)) {
            // streamed: each run's record written as it completes, the verdict last
            List<ResultRecord> records = out.records(r -> {
                CpuBudget.tag(r, spinning);
                presetApplied.tag(r);
            });
            GdaRun r0 = g.run(base.withTimeoutNs(progress.capTimeoutNs(base.timeoutNs())));
            progress.step();
            records.add(GdaRecords.record(List.of(r0)));
            if (progress.expired()) {
                throw new IllegalStateException(bound + " ended the run before the delayed round trips: no verdict");
            }
            GdaRun r1 = g.run(base.withResponderDelayNs(delayUs * 1000)
                    .withTimeoutNs(progress.capTimeoutNs(base.timeoutNs())));
            progress.step();
            records.add(GdaRecords.record(List.of(r1)));
            v = new Verdict(r0.stats().p50(), r1.stats().p50(), delayUs * 1000, toleranceUs * 1000);
            records.add(v.record(setup.backendName(), setup.nic().hardware())
                    .param("ordering", base.ordering().label()).metric("valid", r0.valid() && r1.valid()));
            progress.close();
            out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr());
        }
        if (!v.pass()) {
            spec.commandLine().getErr().printf("marrow: timer check FAILED: the round trip moved by %.3f us for a "
                    + "%d us responder delay (tolerance %.3f us)%n", v.shiftNs() / 1000.0, delayUs, toleranceUs);
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }
}
