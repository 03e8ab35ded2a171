// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.WireModel;
import dev.marrow.gda.GdaLoaded;
import dev.marrow.gda.GdaSetup;
import dev.marrow.gda.MiniGda;
import dev.marrow.gda.Ordering;
import dev.marrow.gda.OrderingPolicy;
import dev.marrow.fabric.Fabric;
import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.gda.internal.LoadedFfi;
import dev.marrow.presets.PresetRules;
import dev.marrow.presets.Presets;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** gda loaded: 8 B probe round trip while background streams post (Fig. 6 / Table 11). */
@Command(name = "loaded", mixinStandardHelpOptions = true,
        description = {"mini-gda round trip under load on the software NIC: an 8-byte probe round trip (p50/p99/p999) "
                + "while N background streams post 8-byte WRITEs, on the probe's QP (shared) or on QPs of their own "
                + "(reserved); the background rate carried during the probe is reported beside it (\"GPU-Initiated "
                + "Communication: Dissecting Down to the Bone\" Fig. 6, Table 11).",
                "--nic mlx5 (--target cuda, one host): the probe pair and the reserved background QPs are verbs "
                        + "QPs on a ConnectX (no wire model, no engine threads; exit 77 without one).",
                "One host. --target cpu: probe, peer and streams are CPU threads; --target cuda: one-thread blocks "
                        + "(probe, peer, background CTAs). Timing: docs/design/methods.md.",
                "--preset NAME (marrow presets list): a GPU-submitted library's ordering (--ordering: probe, peer "
                        + "and background streams alike). The probe posts from one thread through one QP with one put "
                        + "outstanding and every stream rings the doorbell for each of its WQEs; --queue says whether "
                        + "the background shares the probe's QP, not how many QPs a peer gets. So a preset needing "
                        + "more QPs per peer, batched doorbells or warp publication is refused with the knob named. "
                        + "Explicit flags override the preset; every record carries \"preset\".",
                "--peer or a launcher's environment (Slurm, Open MPI, MPICH/PMIx, torchrun; rank 0 initiates): two "
                        + "processes of one host, each with its own software NIC, joined by the shared-memory wire. "
                        + "Rank 0 runs the probe and its background streams (--target cpu or cuda) into rank 1's "
                        + "inbox; rank 1 answers the probe and runs the same background toward rank 0 on CPU threads "
                        + "(both endpoints loaded); each side checks the other's bytes in its inbox; only rank 0 writes a result "
                        + "(docs/design/two-process.md section 11). --engine-threads, --engine-cpus and --probe-engine "
                        + "govern each side's own software NIC; rank 0's record carries both sides' placement.", RunBounds.HELP})
final class GdaLoadedCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    OutputOptions out;
    @Mixin
    LoadedOptions load;

    @Option(names = "--target", defaultValue = "cpu", converter = CliNames.Targets.class,
            completionCandidates = CliNames.Targets.class, description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    Target target;

    @Mixin
    NicOption nicOption = new NicOption();

    @Option(names = "--ordering", converter = CliNames.Orderings.class, completionCandidates = CliNames.Orderings.class,
            description = "${COMPLETION-CANDIDATES}. Default: release-sys (host-resident queues)")
    Ordering ordering;

    @Option(names = "--preset", paramLabel = "NAME",
            description = "A library preset (marrow presets list); explicit flags override its choices")
    String preset;

    /** What --preset set (records carry it); NONE without one. */
    PresetRules.Applied presetApplied = PresetRules.Applied.NONE;

    /**
     * The knobs of gda loaded: those of gda latency (the probe: one thread, one QP, one outstanding
     * put); the ordering applies to the background streams too, which post one WQE per doorbell.
     */
    static PresetRules presetRules(GdaLoadedCommand c) {
        return GdaCommand.Latency.oneQpRules("gda loaded", o -> c.ordering = o,
                "rings the doorbell for every WQE, probe and background streams alike");
    }

    @Option(names = "--iters", defaultValue = "2000", description = "Timed probe round trips per point. Default: ${DEFAULT-VALUE}")
    int iters;

    @Option(names = "--warmup", defaultValue = "200", description = "Untimed probes first. Default: ${DEFAULT-VALUE}")
    int warmup;

    @Option(names = "--window", defaultValue = "64", description = "Background WQEs outstanding per QP. Default: ${DEFAULT-VALUE}")
    int window;

    @Option(names = "--signal-every", defaultValue = "16", description = "Signal every Nth WQE of a QP. Default: ${DEFAULT-VALUE}")
    int signalEvery;

    @Option(names = "--timeout-ms", defaultValue = "10000", description = "Bound of every single wait. Default: ${DEFAULT-VALUE}")
    long timeoutMs;

    @Option(names = "--engine-cpu", defaultValue = "-1", description = "Pin the software NIC engine thread 0 (the probe's) to this CPU. Default: ${DEFAULT-VALUE}")
    int engineCpu;

    @Mixin
    EngineThreadOptions engine;

    @Option(names = "--probe-engine", paramLabel = "dedicated|shared",
            description = "Reserved queues on several engine threads: dedicated: engine thread 0 serves only the "
                    + "probe's QPs, the background QPs spread over the others; shared: the background QPs spread "
                    + "over all threads, the probe's included. A shared queue shares the probe's engine thread by "
                    + "construction. Default: dedicated with --engine-threads > 1, else shared (one thread)")
    String probeEngine;

    /** --probe-engine resolved: dedicated where there is a thread to dedicate, unless asked otherwise. */
    GdaLoaded.ProbeEngine probeEngine() {
        if (probeEngine == null) {
            return engine.engineThreads > 1 ? GdaLoaded.ProbeEngine.DEDICATED : GdaLoaded.ProbeEngine.SHARED;
        }
        GdaLoaded.ProbeEngine p = switch (probeEngine) {
            case "dedicated" -> GdaLoaded.ProbeEngine.DEDICATED;
            case "shared" -> GdaLoaded.ProbeEngine.SHARED;
            default -> throw new IllegalArgumentException("--probe-engine must be dedicated or shared, not \""
                    + probeEngine + "\"");
        };
        if (p == GdaLoaded.ProbeEngine.DEDICATED && engine.engineThreads < 2) {
            throw new IllegalArgumentException("--probe-engine dedicated needs --engine-threads >= 2 (thread 0 "
                    + "serves the probe's QPs, the others the background), not " + engine.engineThreads);
        }
        return p;
    }

    /** Usage errors of the engine-thread flags, before anything opens. */
    void checkEngineFlags() {
        if (engine.engineThreads < 1 || engine.engineThreads > MAX_ENGINE_THREADS) {
            throw new IllegalArgumentException("--engine-threads must be 1.." + MAX_ENGINE_THREADS + ", not "
                    + engine.engineThreads);
        }
        if (engine.engineCpus != null) {
            if (engine.engineCpus.length != engine.engineThreads) {
                throw new IllegalArgumentException("--engine-cpus lists " + engine.engineCpus.length + " CPU(s) for "
                        + engine.engineThreads + " engine thread(s) (one per thread)");
            }
            if (engineCpu != -1) {
                throw new IllegalArgumentException("--engine-cpu pins thread 0 and --engine-cpus pins every thread: "
                        + "give one of them");
            }
        }
        CpuBudget.checkCpus("--engine-cpu", engineCpu);
        CpuBudget.checkCpus("--engine-cpus", engine.engineCpus);
        probeEngine();
    }

    /**
     * --nic mlx5: the flags that only a software NIC has are refused (exit 2) before the fabric's
     * own check, which says whether this machine has the NIC (exit 77 with the reason).
     */
    void checkHardwareNic(Nic nic) {
        CommandLine.ParseResult pr = spec.commandLine().getParseResult();
        for (String f : List.of("--peer", "--wire-gbps", "--engine-threads", "--engine-cpus", "--engine-cpu",
                "--probe-engine")) {
            if (pr.hasMatchedOption(f)) {
                throw new IllegalArgumentException(f + " applies to --nic softnic only (the software NIC's "
                        + (f.equals("--peer") ? "shared-memory wire joins the two processes" : "engine and wire")
                        + "), not --nic " + nic);
            }
        }
        if (peer == null && dev.marrow.launch.LaunchEnv.detect(environment).isPresent()) {
            throw new IllegalArgumentException("a launcher's two processes join over the software NIC's wire: "
                    + "--nic " + nic + " runs on one host");
        }
        Fabric.check(MiniGda.fabricOptions(GdaSetup.defaults(target).withNic(nic)));
    }

    /** The software NIC's limit (EMU_MAX_THREADS). */
    static final int MAX_ENGINE_THREADS = 64;

    @Option(names = "--peer", paramLabel = "HOST:PORT|:PORT",
            description = "Two processes of one host (software NIC wire): HOST:PORT initiates, :PORT responds. "
                    + "Without it, a launcher's environment (rank 0 initiates) does the same.")
    String peer;

    @Option(names = "--peer-timeout-s", defaultValue = "60", paramLabel = "S",
            description = "Bound of every wait on the peer (connect/accept, exchange, the responder's wait for the "
                    + "next run). Default: ${DEFAULT-VALUE}")
    int peerTimeoutS;

    /** The process environment (launcher variables); tests substitute their own. */
    java.util.Map<String, String> environment = System.getenv();

    @Option(names = "--oversubscribe", description = "--target cpu: run every requested background thread even when "
            + "they outnumber the cores (otherwise capped at cores - 2 - engine threads; the record says so)")
    boolean oversubscribe;

    /**
     * CPU background streams are busy-polling threads: beyond the cores (less the probe, peer and NIC
     * engine) they measure the OS scheduler and a point can run for minutes. Capped unless asked.
     */
    static int cpuStreamCap(int cpus) {
        return cpuStreamCap(cpus, 1);
    }

    /** Same with several NIC engine threads: cores less the probe, the peer and every engine thread. */
    static int cpuStreamCap(int cpus, int engineThreads) {
        return Math.max(1, cpus - 2 - engineThreads);
    }

    @Override
    public Integer call() {
        out.format();
        if (preset != null) {
            presetApplied = presetRules(this).apply(Presets.get(preset), spec.commandLine().getParseResult()::hasMatchedOption);
        }
        if (iters < 1 || warmup < 0 || timeoutMs <= 0 || window < 1 || window > 256 || signalEvery < 1
                || signalEvery > window || load.wireGbps < 0) {
            throw new IllegalArgumentException("--iters >= 1, --warmup >= 0, --timeout-ms > 0, --window 1..256, "
                    + "--signal-every 1..window, --wire-gbps >= 0");
        }
        List<Integer> bgs = load.backgrounds(LoadedFfi.MAX_STREAMS);
        List<String> queues = load.queues();
        long pace = load.paceMsgsPerS();
        WireModel wire = WireModel.ofGbps(load.wireGbps);
        Ordering ord = ordering != null ? ordering : OrderingPolicy.defaultFor(Placement.HOST);
        Nic nic = nicOption.nic;
        if (nic != Nic.SOFTNIC) {
            checkHardwareNic(nic);
        }
        GdaLoadedTwoProcess two = GdaLoadedTwoProcess.resolve(this); // checks the engine-thread flags itself
        if (two != null) {
            return two.run(bgs, queues, pace, wire, ord);
        }
        checkEngineFlags();
        GdaLoaded.ProbeEngine probePlacement = probeEngine();
        int engines = engine.engineThreads;
        List<ResultRecord> records = out.records(); // streamed: each record written as its point completes
        boolean allValid = true;
        String bound = RunBounds.applyDefault(out, (long) bgs.size() * queues.size());
        RunProgress progress = out.progress("gda loaded", (long) bgs.size() * queues.size());
        run:
        for (String qn : queues) {
            java.util.Set<Integer> ran = new java.util.HashSet<>();
            for (int asked : bgs) {
                if (progress.expired()) {
                    break run;
                }
                if (asked == 0 && qn.equals("reserved") && queues.size() > 1) {
                    progress.step(); // idle: one row (the shared row) says it
                    continue;
                }
                int cap = cpuStreamCap(Runtime.getRuntime().availableProcessors(), engines);
                int n = target == Target.CPU && !oversubscribe && asked > cap ? cap : asked;
                if (n != asked) {
                    spec.commandLine().getErr().println("marrow: note: " + asked + " CPU background streams capped at "
                            + n + " (cores - 2 - engine threads; --oversubscribe runs them all); the record carries "
                            + "background_streams_requested=" + asked);
                }
                if (!ran.add(n)) {
                    progress.step(); // the capped point was already measured
                    continue;
                }
                // cpu: probe, peer, streams and the NIC engine threads spin on cores; cuda: the engine threads only
                int spinning = target == Target.CPU ? 2 + engines + n : engines;
                CpuBudget.check(spinning, "probe, peer, NIC engine threads, background streams",
                        spec.commandLine().getErr());
                GdaSetup setup = GdaSetup.defaults(target).withNic(nic).withEngineCpu(engineCpu).withEngineThreads(engines)
                        .withPollMode(CpuBudget.pollMode(SoftNic.PollMode.HOT, spinning)).withQueues(8, 10, false);
                GdaLoaded.Queue queue = qn.equals("shared") ? GdaLoaded.Queue.SHARED : GdaLoaded.Queue.RESERVED;
                GdaLoaded.Run run;
                try (MiniGda g = MiniGda.open(setup)) {
                    if (nic == Nic.SOFTNIC) {
                        g.softNic().setWire(wire);
                    }
                    if (nic == Nic.SOFTNIC && engine.engineCpus != null) {
                        try {
                            g.softNic().pinEngines(engine.engineCpus);
                        } catch (dev.marrow.api.NativeException e) { // a CPU this host lacks: the flag's fault
                            throw new IllegalArgumentException("--engine-cpus: " + e.getMessage(), e);
                        }
                    }
                    run = GdaLoaded.run(g, new GdaLoaded.Spec(ord, queue, n, pace, window, signalEvery, iters, warmup,
                            progress.capTimeoutNs(timeoutMs * 1_000_000L)), probePlacement);
                }
                GdaLoaded.EnginePlacement placed = run.placement();
                if (queue == GdaLoaded.Queue.RESERVED && probePlacement == GdaLoaded.ProbeEngine.DEDICATED
                        && !placed.probeEngineAlone()) {
                    throw new IllegalStateException("the software NIC placed a background QP on the probe's engine "
                            + "thread " + placed.probeThread() + ": " + java.util.Arrays.toString(placed.backgroundThreads()));
                }
                Stats st = run.stats();
                allValid &= run.valid();
                ResultRecord r = new ResultRecord("gda.loaded", setup.backendName(), nic.hardware())
                        .param("target", target.label()).param("nic", nic.label()).param("ordering", ord.label())
                        .param("queue", n == 0 ? "idle" : queue.label()).param("background_streams", n)
                        .param("background_streams_requested", asked).param("background_streams_capped", n != asked)
                        .param("pace_msgs_per_s", pace).param("probe_size_bytes", 8).param("background_size_bytes", 8)
                        .param("window", window).param("signal_every", signalEvery).param("iters", iters)
                        .param("warmup", warmup).param("hosts", 1).param("wire_model", wire.describe())
                        .param("background_unit", target == Target.CUDA ? "one-thread CTA" : "CPU thread")
                        .param("engine_threads", engines)
                        .param("probe_engine", placed.sharedQueue() ? GdaLoaded.ProbeEngine.SHARED.label()
                                : probePlacement.label())
                        .param("probe_engine_requested", probePlacement.label())
                        .param("probe_engine_alone", placed.probeEngineAlone())
                        .param("probe_engine_thread", placed.probeThread())
                        .param("peer_engine_thread", placed.peerThread())
                        .param("background_engine_threads", n == 0 ? 0 : placed.backgroundEngineThreads())
                        .param("background_qps_per_engine_max", placed.maxBackgroundQpsPerThread())
                        .param("engine_placement", "reported by the software NIC per QP (marrow_emu_qp_engine)")
                        .param("percentiles", Stats.PERCENTILE_DEFINITION)
                        .metric("probe_p50_ns", st.p50()).metric("probe_p99_ns", st.p99())
                        .metric("probe_p999_ns", st.p999()).metric("probe_min_ns", st.min()).metric("probe_max_ns", st.max())
                        .metric("background_mmsg_s", ResultRecord.round(run.bgRateMmsgPerS(), 3))
                        .metric("background_in_window", run.bgInWindow()).metric("background_posted", run.bgPosted())
                        .metric("background_slot_errors", run.bgSlotErrors()).metric("valid", run.valid());
                if (target == Target.CUDA) {
                    r.param("gpu_hardware", true).param("nic_hardware", nic.hardware());
                }
                CpuBudget.tag(r, spinning);
                CpuBudget.tagPollMode(r, SoftNic.PollMode.HOT, spinning);
                presetApplied.tag(r);
                records.add(r);
                progress.step();
            }
        }
        progress.close();
        CliErrors.requireRecords(records, progress, bgs.size() * queues.size() + " point(s)", bound);
        progress.tag(records);
        out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr());
        if (!allValid) {
            spec.commandLine().getErr().println("marrow: FAILED rows have valid=false: background slots held wrong bytes");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }
}
