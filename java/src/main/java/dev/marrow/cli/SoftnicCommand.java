// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.api.softnic.LoopbackRig;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.SoftNicBench;
import dev.marrow.api.softnic.SoftNicCounters;
import dev.marrow.gda.GdaSetup;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/** CPU-producer measurements of the software NIC itself. */
@Command(name = "softnic", mixinStandardHelpOptions = true,
        description = "Measure the software NIC (emulated mlx5) with a CPU producer: message rate and put+completion latency.",
        subcommands = {SoftnicCommand.Rate.class, SoftnicCommand.Latency.class})
public final class SoftnicCommand {

    static final String EXPERIMENT_RATE = "softnic.rate";
    static final String EXPERIMENT_LATENCY = "softnic.latency";

    /** Options shared by both measurements. */
    static final class Common {
        @Option(names = "--size", defaultValue = "8", description = "Payload bytes per RDMA WRITE. Default: ${DEFAULT-VALUE}")
        int size;

        @Option(names = "--poll", defaultValue = "hot", converter = CliNames.PollModes.class,
                completionCandidates = CliNames.PollModes.class,
                description = "Engine polling: hot (spin) or idle (back-off). Default: ${DEFAULT-VALUE}")
        SoftNic.PollMode poll;

        @Option(names = "--engine-cpu", defaultValue = "-1", description = "Pin the engine thread to this CPU (-1: no pinning). Default: ${DEFAULT-VALUE}")
        int engineCpu;

        @Option(names = "--max-inline", defaultValue = "220", description = "QP max_inline_data; larger payloads use a pointer segment. Default: ${DEFAULT-VALUE}")
        int maxInline;

        @Option(names = "--timeout-ms", defaultValue = "10000", description = "Bound of every wait. Default: ${DEFAULT-VALUE}")
        long timeoutMs;

        SoftNic.Options options() {
            return SoftNic.Options.defaults().withPollMode(poll).withEngineCpu(engineCpu).withQuiet(true);
        }

        void validate() {
            if (size < 1 || size > (1 << 20)) {
                throw new IllegalArgumentException("--size must be 1..1048576 bytes, not " + size);
            }
            if (timeoutMs <= 0) {
                throw new IllegalArgumentException("--timeout-ms must be positive");
            }
            CpuBudget.checkCpus("--engine-cpu", engineCpu);
            options();
        }

        String payload() {
            return size <= maxInline ? "inline" : "pointer";
        }
    }

    @Command(name = "rate", mixinStandardHelpOptions = true,
            description = {"Message rate of RDMA WRITEs from CPU producer threads (--producers, one QP each; the software NIC runs --engine-threads engine threads).",
                    "Timed: from the first WQE of the timed region (the common start of all producers) to the CQE of the last WQE, in C (CLOCK_MONOTONIC_RAW).",
                    "Excluded: set-up and the warm-up messages. Statistic: median over --repeats runs (min and max also reported).",
                    "Limits: --log-sq 1..15, --batch 1..2^log-sq/4, --size x (--messages + --warmup) at most 64 GiB per run. "
                            + RunBounds.HELP})
    static final class Rate implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        OutputOptions out;
        @Mixin
        Common common;

        @Option(names = "--batch", split = ",", defaultValue = "16", description = "WQEs per doorbell (comma list). Default: ${DEFAULT-VALUE}")
        int[] batches;

        @Option(names = "--messages", defaultValue = "5000000", description = "Messages per timed run. Default: ${DEFAULT-VALUE}")
        long messages;

        @Option(names = "--warmup", defaultValue = "500000", description = "Untimed messages before each run. Default: ${DEFAULT-VALUE}")
        long warmup;

        @Option(names = "--repeats", defaultValue = "5", description = "Timed runs per point. Default: ${DEFAULT-VALUE}")
        int repeats;

        @Option(names = "--log-sq", defaultValue = "10", description = "log2 of SQ WQEBBs. Default: ${DEFAULT-VALUE}")
        int logSq;

        @Option(names = "--producers", defaultValue = "1",
                description = "CPU producer threads, one QP each (--messages and --warmup are per producer; the rate is the total). Default: ${DEFAULT-VALUE}")
        int producers;

        @Option(names = "--engine-threads", defaultValue = "1",
                description = "Engine threads of the software NIC; QPs are sharded over them. Default: ${DEFAULT-VALUE}")
        int engineThreads;

        @Option(names = "--producer-cpus", split = ",",
                description = "Pin producer i to the i-th CPU of this list (one per producer; -1: not pinned). Default: not pinned")
        int[] producerCpus;

        @Option(names = "--engine-cpus", split = ",",
                description = "Pin engine thread i to the i-th CPU of this list (one per engine thread; -1: not pinned); replaces --engine-cpu. Default: not pinned")
        int[] engineCpus;

        /** Checks the pinning lists against the thread counts. */
        private void validatePinning() {
            if (producerCpus != null && producerCpus.length != producers) {
                throw new IllegalArgumentException("--producer-cpus lists " + producerCpus.length
                        + " CPU(s) for --producers " + producers);
            }
            if (engineCpus != null && engineCpus.length != engineThreads) {
                throw new IllegalArgumentException("--engine-cpus lists " + engineCpus.length
                        + " CPU(s) for --engine-threads " + engineThreads);
            }
            if (engineCpus != null && common.engineCpu != -1) {
                throw new IllegalArgumentException("give --engine-cpus or --engine-cpu, not both");
            }
            CpuBudget.checkCpus("--producer-cpus", producerCpus);
            CpuBudget.checkCpus("--engine-cpus", engineCpus);
        }

        /** The pinning as run, recorded in every result. */
        private ResultRecord pinning(ResultRecord r) {
            Object engines = engineCpus != null ? cpuList(engineCpus)
                    : common.engineCpu >= 0 ? cpuList(new int[] {common.engineCpu}) : "none";
            return r.param("producer_cpus", producerCpus == null ? "none" : cpuList(producerCpus))
                    .param("engine_cpus", engines);
        }

        private static List<Integer> cpuList(int[] cpus) {
            return Arrays.stream(cpus).boxed().toList();
        }

        @Override
        public Integer call() {
            out.format();
            common.validate();
            if (messages < 1 || warmup < 0 || repeats < 1) {
                throw new IllegalArgumentException("--messages and --repeats must be >= 1, --warmup >= 0");
            }
            if (producers < 1 || producers > 64 || engineThreads < 1 || engineThreads > 64) {
                throw new IllegalArgumentException("--producers and --engine-threads must be 1..64");
            }
            validatePinning();
            GdaSetup.requireLogSq(logSq, "--log-sq"); // before --batch, whose range it sets
            RunBounds.requireBytes("--size", common.size, "--messages + --warmup", messages + warmup);
            for (int b : batches) {
                if (b < 1 || b > (1 << logSq) / 4) {
                    throw new IllegalArgumentException("--batch " + b + " must be 1.." + (1 << logSq) / 4
                            + " for --log-sq " + logSq + " (a batch must fit a quarter of the SQ)");
                }
            }
            Backend.SOFTNIC.ensureAvailability();
            boolean parallel = producers > 1 || engineThreads > 1 || producerCpus != null;
            // the producers (or the rig's posting thread) and the engine threads all spin
            int spinning = (parallel ? producers : 1) + (parallel ? engineThreads : 1);
            String bound = RunBounds.applyDefault(out, (long) batches.length * repeats);
            CpuBudget.warn(spinning, "producers, NIC engine", spec.commandLine().getErr());
            List<ResultRecord> records = out.records(r -> CpuBudget.tag(r, spinning)); // streamed
            RunProgress progress = out.progress("softnic rate", (long) batches.length * repeats);
            if (parallel) {
                SoftNic.Options o = common.options().withEngineThreads(engineThreads);
                try (SoftNic nic = SoftNic.open(o)) {
                    if (engineCpus != null) {
                        nic.pinEngines(engineCpus);
                    }
                    sweep(records, progress, nic, b -> producerCpus == null
                            ? SoftNicBench.rateParallel(nic, producers, common.size, b, logSq,
                                    common.maxInline, messages, warmup, common.timeoutMs * 1_000_000L)
                            : SoftNicBench.rateParallel(nic, producers, common.size, b, logSq,
                                    common.maxInline, messages, warmup, common.timeoutMs * 1_000_000L,
                                    producerCpus));
                }
            } else {
                try (LoopbackRig rig = new LoopbackRig(common.options(), logSq, 16, common.maxInline, Math.max(4096, common.size))) {
                    if (engineCpus != null) {
                        rig.nic().pinEngines(engineCpus);
                    }
                    sweep(records, progress, rig.nic(), b -> SoftNicBench.rate(rig.qp(), common.size, b, messages, warmup,
                            rig.source(), rig.destination(), common.timeoutMs * 1_000_000L));
                }
            }
            progress.close();
            CliErrors.requireRecords(records, progress, batches.length + " batch point(s)", bound);
            if (progress.truncated()) {
                spec.commandLine().getErr().println("marrow: " + bound + " reached: " + records.size() + " of "
                        + batches.length + " batch point(s) have a record (truncated=true, repeats_done says how many "
                        + "repeats each ran)");
            }
            progress.tag(records);
            out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr());
            return ExitCodes.OK;
        }

        /**
         * Every batch point, --repeats runs each; stops between runs at
         * --max-seconds, and the native loop stops posting at it (a run it
         * ends early is dropped: its rate would cover a shorter run). A
         * point with no complete run has no record. Waits keep the full
         * --timeout-ms: the budget stops posting, and retiring what was
         * posted must not turn into a timeout.
         */
        private void sweep(List<ResultRecord> records, RunProgress progress, SoftNic nic,
                           java.util.function.IntFunction<SoftNicBench.RateResult> run) {
            for (int b : batches) {
                SoftNicCounters before = nic.counters();
                double[] rates = new double[repeats];
                int done = 0;
                long doorbells = 0;
                while (done < repeats && !progress.expired()) {
                    int batch = b;
                    SoftNicBench.RateResult res = SoftNicBench.withBudget(progress.remainingNs(), () -> run.apply(batch));
                    if (res.cutShort()) {
                        progress.markTruncated();
                        break;
                    }
                    rates[done++] = res.rateMmsgPerSec();
                    doorbells += res.doorbells();
                    progress.step();
                }
                if (done == 0) {
                    break;
                }
                SoftNicCounters d = nic.counters().minus(before);
                double[] sorted = Arrays.copyOf(rates, done);
                Arrays.sort(sorted);
                records.add(pinning(new ResultRecord(EXPERIMENT_RATE, "softnic", false))
                        .param("size_bytes", common.size).param("batch", b).param("payload", common.payload())
                        .param("messages", messages).param("warmup", warmup).param("repeats", repeats)
                        .param("poll", CliNames.word(common.poll)).param("log_sq", logSq)
                        .param("producers", producers).param("engine_threads", engineThreads)
                        .metric("repeats_done", done)
                        .metric("rate_mmsg_s", ResultRecord.round(Stats.median(sorted), 3))
                        .metric("rate_min_mmsg_s", ResultRecord.round(sorted[0], 3))
                        .metric("rate_max_mmsg_s", ResultRecord.round(sorted[sorted.length - 1], 3))
                        .metric("doorbells_rung", doorbells)
                        .metric("emu_doorbells_observed", d.get("emu_doorbells_observed"))
                        .metric("emu_busy_passes", d.get("emu_busy_passes"))
                        .metric("emu_idle_passes", d.get("emu_idle_passes")));
                if (done < repeats) {
                    break;
                }
            }
        }
    }

    @Command(name = "latency", mixinStandardHelpOptions = true,
            description = {"Put+completion latency of one signaled RDMA WRITE from a CPU thread.",
                    "Timed: post start (WQE build) to the CQE seen by the poller, per iteration, in C (CLOCK_MONOTONIC_RAW).",
                    "Excluded: set-up and --warmup iterations. Statistic: nearest-rank percentiles over --iters samples.",
                    RunBounds.HELP})
    static final class Latency implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        OutputOptions out;
        @Mixin
        Common common;

        @Option(names = "--iters", defaultValue = "100000", description = "Timed iterations. Default: ${DEFAULT-VALUE}")
        int iters;

        @Option(names = "--warmup", defaultValue = "10000", description = "Untimed iterations first. Default: ${DEFAULT-VALUE}")
        int warmup;

        @Override
        public Integer call() {
            out.format();
            common.validate();
            if (iters < 1 || warmup < 0) {
                throw new IllegalArgumentException("--iters must be >= 1 and --warmup >= 0");
            }
            Backend.SOFTNIC.ensureAvailability();
            int spinning = 2; // the posting and polling thread, the engine thread
            String bound = RunBounds.applyDefault(out, 1);
            CpuBudget.warn(spinning, "poster, NIC engine", spec.commandLine().getErr());
            List<ResultRecord> records = out.records(r -> CpuBudget.tag(r, spinning)); // streamed
            // The timed iterations run in chunks so that --max-seconds can end the run between two native
            // calls; every sample is one independent put+completion, so chunking leaves them unchanged. Chunks
            // aim at CHUNK_TARGET_NS each (the first is small: idle polling can make an iteration slow).
            RunProgress progress = out.progress("softnic latency", iters);
            List<long[]> parts = new ArrayList<>();
            int done = 0;
            int chunk = 256;
            try (LoopbackRig rig = new LoopbackRig(common.options(), 8, 12, common.maxInline, Math.max(4096, common.size))) {
                while (done < iters && !progress.expired()) {
                    int n = Math.min(chunk, iters - done);
                    long t0 = System.nanoTime();
                    parts.add(SoftNicBench.latency(rig.qp(), common.size, n, done == 0 ? warmup : 0, rig.source(),
                            rig.destination(), common.timeoutMs * 1_000_000L));
                    long took = Math.max(1, System.nanoTime() - t0);
                    done += n;
                    chunk = (int) Math.clamp((double) n * CHUNK_TARGET_NS / took, 64, Math.max(64, Math.min(2L * n, MAX_CHUNK)));
                    progress.advance(n);
                }
                progress.close();
                if (done > 0) {
                    verifyPayload(rig, common.size);
                    records.add(new ResultRecord(EXPERIMENT_LATENCY, "softnic", false)
                            .param("size_bytes", common.size).param("payload", common.payload())
                            .param("iters", iters).param("warmup", warmup).param("poll", CliNames.word(common.poll))
                            .param("percentiles", Stats.PERCENTILE_DEFINITION)
                            .metric("iters_done", done)
                            .latency("putc", Stats.of(concat(parts, done))));
                }
            }
            CliErrors.requireRecords(records, progress, iters + " iteration(s)", bound);
            if (progress.truncated()) {
                spec.commandLine().getErr().println("marrow: " + bound + " reached after " + done + " of " + iters
                        + " iterations (truncated=true)");
            }
            progress.tag(records);
            out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr());
            return ExitCodes.OK;
        }
    }

    /** Latency chunks aim at this long, so that --max-seconds ends a run within about this much of it. */
    static final long CHUNK_TARGET_NS = 20_000_000L;
    /** ... and hold at most this many iterations (a slow stretch of one chunk must stay short), growing at most 2x. */
    static final int MAX_CHUNK = 2048;

    static long[] concat(List<long[]> parts, int n) {
        long[] all = new long[n];
        int at = 0;
        for (long[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    /** The destination must hold exactly the source bytes after the run. */
    static void verifyPayload(LoopbackRig rig, int size) {
        long mismatch = rig.source().memory().asSlice(0, size).mismatch(rig.destination().memory().asSlice(0, size));
        if (mismatch != -1) {
            throw new IllegalStateException("payload validation failed at byte " + mismatch
                    + ": destination differs from source after the run");
        }
    }
}
