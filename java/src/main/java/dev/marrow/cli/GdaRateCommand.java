// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.NativeException;
import dev.marrow.gda.Ordering;
import dev.marrow.gda.OrderingPolicy;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.Target;
import dev.marrow.gda.rate.CompletionScope;
import dev.marrow.gda.rate.DoorbellMode;
import dev.marrow.gda.rate.GdaRate;
import dev.marrow.gda.rate.Publication;
import dev.marrow.gda.rate.QpMapping;
import dev.marrow.gda.rate.RateExperiment;
import dev.marrow.gda.rate.RateNic;
import dev.marrow.gda.rate.RatePath;
import dev.marrow.gda.rate.RateRecords;
import dev.marrow.gda.rate.RateResult;
import dev.marrow.gda.rate.RateSpec;
import dev.marrow.presets.Knob;
import dev.marrow.presets.PresetRules;
import dev.marrow.presets.Presets;
import dev.marrow.results.ResultRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;

/** gda rate: mini-gda message rate and completion scope (docs/design/methods.md, "mini-gda message rate"). */
@Command(name = "rate", mixinStandardHelpOptions = true,
        description = {"mini-gda throughput (\"GPU-Initiated Communication: Dissecting Down to the Bone\" §4.3.1, "
                + "Table 5, Fig. 3b, Fig. 4): blocks x threads post RDMA WRITEs over --qps RC QPs, --batch WQEs per "
                + "doorbell, every --signal-period-th WQE signaled and reclaimed, at most --window WQEs outstanding "
                + "per QP.",
                "--experiment rate: timed from the first post after each thread's warm-up (earliest thread) to "
                        + "the last QP drained (its final CQE), in C / CUDA (%%globaltimer on the GPU); rate = timed "
                        + "messages / that span. Untimed: queue set-up, pointer-source staging, the check of every "
                        + "destination slot after the run. Statistic: median rate over --repeats runs (min, max "
                        + "too).",
                "--experiment scope: one thread posts one signaled 8-byte WRITE on QP 0 per iteration, then "
                        + "completes the --scope (all-qp: every configured QP's CQ; used-qp: the QPs posted to; "
                        + "per-qp: QP 0; signal: a peer thread echoes the word back through its own QP); one "
                        + "sample per iteration, nearest-rank percentiles.",
                "--doorbell host: GPU threads build WQEs and publish a host-visible producer index; a CPU thread "
                        + "(--doorbell-cpu) rings. Compare with --doorbell device for the added latency.",
                "Records: which side limited the rate (limited_by), ns per message per thread, doorbells per "
                        + "message, the posters' time waiting for ring space (sq_full_*) and publication, the "
                        + "software NIC engine's busy/idle ratio. --nic softnic results are EMULATED "
                        + "(\"hardware\": false; cuda records gpu_hardware=true, nic_hardware=false).",
                "--nic softnic-device (cuda only): SQs, CQs, doorbell records and buffers in GPU memory, served by "
                        + "the software NIC's device engine, a persistent kernel on --nic-sms SMs beside the rate "
                        + "kernel (EMULATED NIC on a real GPU; exit 77 without a GPU); --nic mlx5: ConnectX QPs "
                        + "(cuda only; exit 77 without a NIC).",
                "--preset NAME (marrow presets list): a GPU-submitted library's choices: ordering (--ordering), "
                        + "qps_per_peer (--qps), doorbell_batch (--batch), publication (warp-cooperative: "
                        + "--publication warp), completion_scope (qp/used-qp/all-qps: --scope per-qp/used-qp/all-qp); "
                        + "a value with no equivalent is refused with the knob named. Explicit flags override the "
                        + "preset; records carry \"preset\".",
                "Limits: with --target cpu at most 8 poster threads per CPU (at least 64); --size x threads x "
                        + "(--messages + --warmup) at most 64 GiB per run. " + RunBounds.HELP})
final class GdaRateCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    OutputOptions out;

    @Option(names = "--target", defaultValue = "cpu", converter = CliNames.Targets.class,
            completionCandidates = CliNames.Targets.class, description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    Target target;

    @Option(names = "--nic", defaultValue = "softnic", converter = Nics.class, completionCandidates = Nics.class,
            description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    RateNic nic;

    @Option(names = "--experiment", defaultValue = "rate", converter = Experiments.class,
            completionCandidates = Experiments.class, description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    RateExperiment experiment;

    @Option(names = "--publication", defaultValue = "slot", converter = Publications.class,
            completionCandidates = Publications.class,
            description = "lock (per-WQE SQ lock), slot (per-thread reservation, in-order ready head), warp "
                    + "(warp-cooperative). Default: ${DEFAULT-VALUE}")
    Publication publication;

    @Option(names = "--qp-map", defaultValue = "block", converter = QpMaps.class, completionCandidates = QpMaps.class,
            description = "QP per block, warp or thread, or shared (every poster rotates over all). Default: ${DEFAULT-VALUE}")
    QpMapping qpMap;

    @Option(names = "--doorbell", defaultValue = "device", converter = Doorbells.class,
            completionCandidates = Doorbells.class,
            description = "device (the posting thread rings) or host (a CPU thread rings). Default: ${DEFAULT-VALUE}")
    DoorbellMode doorbell;

    @Option(names = "--scope", split = ",", defaultValue = "all-qp", converter = Scopes.class,
            completionCandidates = Scopes.class,
            description = "--experiment scope: comma list of ${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    List<CompletionScope> scopes;

    @Option(names = "--ordering", converter = CliNames.Orderings.class,
            completionCandidates = CliNames.Orderings.class,
            description = "Ordering variant of each doorbell (docs/design/orderings.md). Default: the queues' "
                    + "placement's, as gda latency's: gpu-fence with --nic softnic-device (GPU-resident queues), "
                    + "release-sys otherwise")
    Ordering ordering;

    @Option(names = "--rate-path", defaultValue = "auto", converter = RatePaths.class,
            description = "auto (the single-poster path where every QP has one posting thread: no atomics, "
                    + "amortised reaping) or shared (the shared-state path on any shape, for comparison). "
                    + "Default: ${DEFAULT-VALUE}")
    RatePath ratePath;

    @Option(names = "--blocks", split = ",", defaultValue = "1", description = "Blocks (SMs), 1..132; comma list sweeps. Default: ${DEFAULT-VALUE}")
    int[] blocks;

    @Option(names = "--threads", defaultValue = "1", description = "Threads per block, 1..1024. Default: ${DEFAULT-VALUE}")
    int threads;

    @Option(names = "--qps", split = ",", defaultValue = "1", description = "QPs, 1..512; comma list sweeps (scope: QPs per peer). Default: ${DEFAULT-VALUE}")
    int[] qps;

    @Option(names = "--batch", split = ",", defaultValue = "1", description = "WQEs per doorbell, 1..256; comma list sweeps. Default: ${DEFAULT-VALUE}")
    int[] batches;

    @Option(names = "--signal-period", defaultValue = "16", description = "Every K-th WQE of a QP is signaled (clipped to window - batch + 1). Default: ${DEFAULT-VALUE}")
    int signalPeriod;

    @Option(names = "--window", defaultValue = "512", description = "Outstanding WQEs per QP (clipped to the SQ). Default: ${DEFAULT-VALUE}")
    int window;

    @Option(names = "--payload", defaultValue = "inline", converter = CliNames.Payloads.class,
            completionCandidates = CliNames.Payloads.class, description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    Payload payload;

    @Option(names = "--size", split = ",", defaultValue = "8", description = "Bytes per WRITE: inline 8..220, pointer 8..4194304 (--nic softnic-device: 8..4096); comma list sweeps. Default: ${DEFAULT-VALUE}")
    int[] sizes;

    @Option(names = "--messages", defaultValue = "20000", description = "Timed WQEs per thread (scope: iterations). Default: ${DEFAULT-VALUE}")
    long messages;

    @Option(names = "--warmup", defaultValue = "2000", description = "Untimed WQEs per thread first (scope: iterations). Default: ${DEFAULT-VALUE}")
    long warmup;

    @Option(names = "--repeats", defaultValue = "1", description = "Runs per point (rate: median reported). Default: ${DEFAULT-VALUE}")
    int repeats;

    @Option(names = "--log-sq", defaultValue = "10", description = "log2 of SQ WQEBBs (and CQ entries) per QP, 4..15. Default: ${DEFAULT-VALUE}")
    int logSq;

    @Mixin
    EngineThreadOptions engine;

    @Option(names = "--nic-sms", defaultValue = "8", description = "--nic softnic-device: SMs the device engine kernel takes, 1..132 (and fewer than the GPU has). Default: ${DEFAULT-VALUE}")
    int nicSms;


    @Option(names = "--doorbell-cpu", defaultValue = "-1", description = "--doorbell host: pin the ringing thread to this CPU (-1: not pinned). Default: ${DEFAULT-VALUE}")
    int doorbellCpu;

    @Option(names = "--timeout-ms", defaultValue = "5000", description = "Bound of every single wait. Default: ${DEFAULT-VALUE}")
    long timeoutMs;

    @Option(names = "--cuda-device", defaultValue = "0", description = "CUDA device ordinal. Default: ${DEFAULT-VALUE}")
    int cudaDevice;

    @Option(names = "--preset", paramLabel = "NAME",
            description = "A library preset (marrow presets list); explicit flags override its choices")
    String preset;

    /** What --preset set (records carry it); NONE without one. */
    PresetRules.Applied presetApplied = PresetRules.Applied.NONE;

    /**
     * The knobs of gda rate (docs/design/presets.md): each maps onto one flag. A value with no
     * equivalent here is refused with the knob named: "per-thread" publication could be either
     * the per-WQE lock or slot reservation (the preset does not say which), and a "context"
     * completion needs a communication-context model gda rate lacks.
     */
    static PresetRules presetRules(GdaRateCommand c) {
        return new PresetRules("gda rate", "gda")
                .knob(Knob.ORDERING, "--ordering", (v, p) -> null, v -> c.ordering = (Ordering) v)
                .knob(Knob.QPS_PER_PEER, "--qps", (v, p) -> null, v -> c.qps = new int[] {(Integer) v})
                .knob(Knob.DOORBELL_BATCH, "--batch", (v, p) -> null, v -> c.batches = new int[] {(Integer) v})
                .knob(Knob.PUBLICATION, "--publication", (v, p) -> publication((String) v) != null ? null
                        : "gda rate has no single equivalent of publication = " + v + " (--publication lock or "
                        + "slot: both publish per thread; give one explicitly)",
                        v -> c.publication = publication((String) v))
                .knob(Knob.COMPLETION_SCOPE, "--scope", (v, p) -> scope((String) v) != null ? null
                        : "gda rate has no equivalent of completion_scope = " + v + " (no communication-context "
                        + "model; its scopes: all-qp, used-qp, per-qp)",
                        v -> c.scopes = List.of(scope((String) v)))
                // a preset's doorbell batch (32) does not divide the default counts (2000): they follow it
                .follows("--messages", () -> c.roundCounts(true))
                .follows("--warmup", () -> c.roundCounts(false));
    }

    /** Rounds --messages or --warmup up to a multiple of every point's WQEs per thread and doorbell. */
    private String roundCounts(boolean messagesCount) {
        long round = 1;
        for (dev.marrow.gda.rate.RateSpec p : points()) {
            int per = p.perThreadRound();
            round = per > 0 ? round / gcd(round, per) * per : round;
        }
        long v = messagesCount ? messages : warmup;
        long up = (v + round - 1) / round * round;
        if (up == v) {
            return null;
        }
        if (messagesCount) {
            messages = up;
        } else {
            warmup = up;
        }
        return v + "->" + up;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** The gda rate publication of a preset's word; null where there is no single equivalent. */
    private static Publication publication(String word) {
        return word.equals("warp-cooperative") ? Publication.WARP : null;
    }

    /** The gda rate completion scope of a preset's word; null where there is none. */
    private static CompletionScope scope(String word) {
        return switch (word) {
            case "all-qps" -> CompletionScope.ALL_QP;
            case "used-qp" -> CompletionScope.USED_QP;
            case "qp" -> CompletionScope.PER_QP;
            default -> null;
        };
    }

    private void applyPreset() {
        if (preset != null) {
            presetApplied = presetRules(this).apply(Presets.get(preset),
                    spec.commandLine().getParseResult()::hasMatchedOption);
        }
    }

    @Override
    public Integer call() {
        out.format();
        applyPreset();
        if (repeats < 1) {
            throw new IllegalArgumentException("--repeats must be >= 1, not " + repeats);
        }
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("--timeout-ms must be > 0");
        }
        List<RateSpec> points = points();
        for (RateSpec p : points) {
            try {
                p.validate(); // every point before the first run: a bad flag is a usage error
            } catch (IllegalArgumentException e) {
                throw presetApplied.explain(e);
            }
            requireBounded(p);
        }
        CpuBudget.checkCpus("--engine-cpus", engine.engineCpus);
        int spinning = spinning(points.getFirst());
        CpuBudget.check(spinning, "posters, NIC engine, doorbell thread", spec.commandLine().getErr());
        String bound = RunBounds.applyDefault(out, (long) points.size() * repeats);
        List<ResultRecord> records = out.records(); // streamed: each record written as its point completes
        boolean allValid = true;
        RunProgress progress = out.progress("gda rate", (long) points.size() * repeats);
        int cut = 0;
        for (RateSpec p : points) {
            if (progress.expired()) {
                break;
            }
            RateSpec run = p.withRun(p.ordering(), progress.capTimeoutNs(p.timeoutNs()), p.cudaDevice())
                    .withIdlePoll(CpuBudget.oversubscribed(spinning(p)));
            boolean capped = run.timeoutNs() < p.timeoutNs();
            List<RateResult> rs = new ArrayList<>();
            for (int i = 0; i < repeats && !progress.expired(); i++) {
                try {
                    rs.add(GdaRate.run(run));
                } catch (NativeException e) {
                    if (!(e.isTimeout() && capped)) {
                        throw e;
                    }
                    // the wait ran out of the run's time, not of --timeout-ms: the bound cut this point
                    progress.markTruncated();
                    cut++;
                    break;
                }
                progress.step();
            }
            if (rs.isEmpty()) {
                break;
            }
            rs.sort(Comparator.comparingDouble(RateResult::rateMmsgPerSec));
            RateResult mid = rs.get(rs.size() / 2);
            ResultRecord rec = RateRecords.record(mid).param("repeats", repeats).metric("repeats_done", rs.size());
            if (p.experiment() == RateExperiment.RATE) {
                rec.metric("rate_min_mmsg_s", ResultRecord.round(rs.getFirst().rateMmsgPerSec(), 3))
                        .metric("rate_max_mmsg_s", ResultRecord.round(rs.getLast().rateMmsgPerSec(), 3));
            }
            allValid &= rs.stream().allMatch(RateResult::exactlyOnce);
            CpuBudget.tag(rec, spinning(p));
            presetApplied.tag(rec);
            records.add(rec);
        }
        progress.close();
        if (cut > 0) {
            spec.commandLine().getErr().println("marrow: " + bound + " cut " + (records.size() < points.size()
                    ? "the run at point " + (records.size() + 1) + " of " + points.size() : "the last point's repeats")
                    + ": its waits were capped by the time left (a timeout of the bound, not a lost doorbell)");
        }
        CliErrors.requireRecords(records, progress, points.size() + " point(s)", bound);
        progress.tag(records);
        out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr());
        if (!allValid) {
            spec.commandLine().getErr().println("marrow: FAILED rows have valid=false: wrong bytes or a WRITE count "
                    + "that differs from the WQEs posted");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    /**
     * What a point may ask of this machine, refused up front (docs/design/cli-errors.md): CPU poster
     * threads far beyond the CPUs do not end in bounded time (4,096 on 2 CPUs ran for minutes), nor do
     * payload bytes beyond what a run may copy.
     */
    private static void requireBounded(RateSpec p) {
        int posters = posters(p);
        if (p.target() == Target.CPU && posters > CpuBudget.maxCpuPosters()) {
            throw new IllegalArgumentException("--blocks " + p.blocks() + " x --threads " + p.threads() + " = "
                    + posters + " CPU poster threads with --target cpu: must be 1.." + CpuBudget.maxCpuPosters()
                    + " on this process's " + CpuBudget.cpusAvailable() + " CPUs (8 per CPU, at least 64)");
        }
        long msgs = p.experiment() == RateExperiment.RATE ? (long) p.totalThreads() * (p.messages() + p.warmup())
                : p.messages() + p.warmup();
        RunBounds.requireBytes("--size", p.size(), "threads x (--messages + --warmup)", msgs);
    }

    /** CPU poster threads (cpu target), or 0. */
    private static int posters(RateSpec p) {
        return p.target() == Target.CPU ? (p.publication() == Publication.WARP && p.experiment() == RateExperiment.RATE
                ? p.blocks() * ((p.threads() + 31) / 32) : p.totalThreads()
                + (p.scope() == CompletionScope.SIGNAL && p.experiment() == RateExperiment.SCOPE ? 1 : 0)) : 0;
    }

    /** Busy threads on this host: CPU posters (cpu target), engine threads (softnic), the doorbell thread. */
    private static int spinning(RateSpec p) {
        int posters = posters(p);
        return posters + (p.nic() == RateNic.SOFTNIC ? p.engineThreads() : 0)
                + (p.doorbell() == DoorbellMode.HOST ? 1 : 0);
    }

    /** The cartesian product of the list flags, in the order the flags are listed. */
    List<RateSpec> points() {
        List<RateSpec> pts = new ArrayList<>();
        List<CompletionScope> sc = experiment == RateExperiment.SCOPE ? scopes : List.of(scopes.getFirst());
        for (CompletionScope s : sc) {
            for (int b : blocks) {
                for (int q : qps) {
                    for (int bt : batches) {
                        for (int sz : sizes) {
                            pts.add(RateSpec.defaults(target).withNic(nic, engine.engineThreads, engine.engineCpus)
                                    .withScope(experiment, s)
                                    .with(publication, qpMap, b, threads, q, experiment == RateExperiment.SCOPE ? 1 : bt)
                                    .withQueues(signalPeriod, window, logSq).withPayload(payload, sz)
                                    .withMessages(messages, warmup).withDoorbell(doorbell, doorbellCpu)
                                    .withRun(ordering != null ? ordering : OrderingPolicy.defaultFor(nic.placement()),
                                            timeoutMs * 1_000_000L, cudaDevice)
                                    .withNicSms(nicSms).withPath(ratePath));
                        }
                    }
                }
            }
        }
        return pts;
    }

    static final class Nics extends CliNames.FlagWords<RateNic> {
        Nics() {
            super("--nic", RateNic.values(), RateNic::label);
        }
    }

    static final class Experiments extends CliNames.FlagWords<RateExperiment> {
        Experiments() {
            super("--experiment", RateExperiment.values(), RateExperiment::label);
        }
    }

    static final class Publications extends CliNames.FlagWords<Publication> {
        Publications() {
            super("--publication", Publication.values(), Publication::label);
        }
    }

    static final class QpMaps extends CliNames.FlagWords<QpMapping> {
        QpMaps() {
            super("--qp-map", QpMapping.values(), QpMapping::label);
        }
    }

    static final class Doorbells extends CliNames.FlagWords<DoorbellMode> {
        Doorbells() {
            super("--doorbell", DoorbellMode.values(), DoorbellMode::label);
        }
    }

    static final class RatePaths extends CliNames.FlagWords<RatePath> {
        RatePaths() {
            super("--rate-path", new RatePath[] {RatePath.AUTO, RatePath.SHARED}, RatePath::label);
        }
    }

    static final class Scopes extends CliNames.FlagWords<CompletionScope> {
        Scopes() {
            super("--scope", CompletionScope.values(), CompletionScope::label);
        }
    }
}
