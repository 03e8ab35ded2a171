// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.clock.ClockSweep;
import dev.marrow.presets.Knob;
import dev.marrow.presets.PresetRules;
import dev.marrow.presets.Presets;
import dev.marrow.proxy.GpuProducers;
import dev.marrow.proxy.Handoff;
import dev.marrow.proxy.LatencySamples;
import dev.marrow.proxy.MiniProxy;
import dev.marrow.proxy.ProxyConfig;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** The mini-proxy's GPU-side enqueue (and put+completion) at locked SM clocks, fitted to T = C/f + B. */
@Command(name = "clock-sweep", mixinStandardHelpOptions = true,
        description = {"SM-clock sensitivity of the mini-proxy's GPU producer (\"GPU-Initiated Communication: "
                + "Dissecting Down to the Bone\", Table 6, the proxy rows): enqueue (\"issue\") and put+completion "
                + "of one 8-byte request from one GPU thread at each --clocks SM clock, in --passes shuffled "
                + "passes, then T(f) = C/f + B: C (cycles), B (us), R^2, the clock-sensitive share at the top.",
                "Changes the GPU's clocks only with --lock-clocks (root, nvidia-smi); restores them on every exit "
                        + "path. --fit-only FILE... fits existing records and touches nothing.",
                "The f of the fit is the SM clock MEASURED over the latency kernel (clock64 over globaltimer). "
                        + "Software-NIC results are EMULATED (\"hardware\": false).",
                "--preset NAME (marrow presets list): a proxy library's workers (--workers) and batch (--batch), "
                        + "as proxy latency takes them; the producer is always one GPU thread and each PE has one "
                        + "ring, so a preset with a CPU producer or other rings is refused with the knob named. "
                        + "Explicit flags override the preset; every record carries \"preset\"."})
final class ProxyClockSweepCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    OutputOptions out;
    @Mixin
    ClockSweepOptions sweep;

    @Option(names = "--handoff", defaultValue = "tuned", converter = CliNames.Handoffs.class,
            completionCandidates = CliNames.Handoffs.class, description = "baseline or tuned. Default: ${DEFAULT-VALUE}")
    CliNames.HandoffChoice handoff;

    @Option(names = "--iters", defaultValue = "5000", description = "Timed operations per cell. Default: ${DEFAULT-VALUE}")
    int iters;

    @Option(names = "--warmup", defaultValue = "500", description = "Untimed operations first. Default: ${DEFAULT-VALUE}")
    int warmup;

    @Option(names = "--workers", defaultValue = "1", description = "Worker threads (rings = max(2, workers)). Default: ${DEFAULT-VALUE}")
    int workers;

    @Option(names = "--batch", defaultValue = "16", description = "Most requests per chain. Default: ${DEFAULT-VALUE}")
    int batch;

    @Option(names = "--cpus", split = ",", description = "Cores for the workers, in order. Default: unpinned")
    int[] cpus;

    @Option(names = "--engine-cpu", defaultValue = "-1", description = "Pin the software NIC engine (-1: no). Default: ${DEFAULT-VALUE}")
    int engineCpu;

    @Option(names = "--gpu", defaultValue = "0", description = "CUDA device (and nvidia-smi -i). Default: ${DEFAULT-VALUE}")
    int gpu;

    @Option(names = "--timeout-ms", defaultValue = "10000", description = "Bound of every wait. Default: ${DEFAULT-VALUE}")
    long timeoutMs;

    @Option(names = "--preset", paramLabel = "NAME",
            description = "A proxy library's choices (marrow presets list); explicit flags override them")
    String preset;

    /** What --preset set (records carry it); NONE without one. */
    PresetRules.Applied presetApplied = PresetRules.Applied.NONE;

    /** The knobs of proxy clock-sweep: those of proxy latency, with the producer always a GPU thread. */
    static PresetRules presetRules(ProxyClockSweepCommand c) {
        return ProxyCommand.Latency.oneProducerRules(ProxyCommand.Common.chainingRules("proxy clock-sweep")
                        .fixed(Knob.PRODUCER, "cuda", "times one GPU producer thread (the SM clock is the GPU's)"),
                v -> c.workers = v, v -> c.batch = v);
    }

    @Override
    public Integer call() {
        if (preset != null) { // before any check or device: a refusal is a usage error on any host
            presetApplied = presetRules(this).apply(Presets.get(preset), spec.commandLine().getParseResult()::hasMatchedOption);
        }
        if (iters < 1 || warmup < 0 || timeoutMs <= 0 || workers < 1 || batch < 1) {
            throw new IllegalArgumentException("--iters must be >= 1, --warmup >= 0, --timeout-ms > 0, --workers >= 1, "
                    + "--batch >= 1");
        }
        if (handoff.handoffs.size() != 1) {
            throw new IllegalArgumentException("--handoff: one of baseline or tuned per sweep");
        }
        Handoff h = handoff.handoffs.getFirst();
        String group = "proxy softnic handoff=" + h.label() + " producer=cuda size_bytes=8";
        return ClockSweepDriver.run(spec, out, sweep, new ClockSweepDriver.Target("proxy", "softnic", false, group,
                gpu, Backend.CUDA::ensureAvailability, () -> lockedMhz -> measure(h), presetApplied));
    }

    private ClockSweep.Cell measure(Handoff h) {
        // one GPU producer thread, the workers, max(2, workers) rings (the round-trip ring unused), the
        // engine: the workers and the engine spin on cores
        int spinning = workers + 1;
        long minBuffer = 2L * (8192 + 8L * (iters + warmup)) + 8192;
        ProxyConfig cfg = ProxyConfig.softnic(workers, Math.max(2, workers), batch, h).withCpus(cpus).withMinBufferBytes(minBuffer)
                .withEngine(!CpuBudget.oversubscribed(spinning), 1, engineCpu)
                .withYieldIdle(CpuBudget.oversubscribed(spinning));
        try (MiniProxy px = MiniProxy.open(cfg)) {
            try (GpuProducers g = px.openGpu(gpu, h, true)) {
                px.start();
                LatencySamples s = g.latency(iters, warmup, timeoutMs * 1_000_000L, true, false);
                double mhz = g.smClockKhz() / 1000.0;
                Map<String, Double> us = new LinkedHashMap<>();
                us.put("issue", Stats.of(s.issueNs()).p50() / 1000.0);
                us.put("putc", Stats.of(s.putcNs()).p50() / 1000.0);
                ResultRecord detail = new ResultRecord("proxy.latency", "softnic", false)
                        .param("nic", "softnic (EMULATED)").param("producer", "cuda").param("handoff", h.label())
                        .param("size_bytes", 8).param("workers", workers).param("batch", batch).param("iters", iters).param("warmup", warmup)
                        .param("completion_counter", g.cplKind().name().toLowerCase())
                        .param("issue_is", "the GPU-side enqueue");
                CpuBudget.tag(detail, spinning);
                Map<String, Double> clock = new LinkedHashMap<>();
                clock.put("issue", mhz);
                clock.put("putc", mhz);
                return new ClockSweep.Cell(us, clock, detail);
            }
        }
    }
}
