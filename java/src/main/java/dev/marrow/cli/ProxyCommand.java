// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.gda.GdaSetup;
import dev.marrow.proxy.GpuProducers;
import dev.marrow.proxy.Handoff;
import dev.marrow.proxy.LatencySamples;
import dev.marrow.api.MarrowException;
import dev.marrow.launch.LaunchEnv;
import dev.marrow.peer.PeerAddress;
import dev.marrow.proxy.MiniProxy;
import dev.marrow.proxy.ProxyConfig;
import dev.marrow.proxy.ProxyPeer;
import dev.marrow.proxy.RateResult;
import dev.marrow.presets.Knob;
import dev.marrow.presets.PresetRules;
import dev.marrow.presets.Presets;
import dev.marrow.results.OutputFormat;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.IntConsumer;

/** The mini-proxy: descriptor rings drained by CPU workers; latency and message rate. */
@Command(name = "proxy", mixinStandardHelpOptions = true,
        description = "mini-proxy (CPU proxy): GPU or CPU producers hand 16-byte descriptors to pinned CPU workers "
                + "that post chains of RDMA WRITEs. Results on the software NIC are labelled EMULATED.",
        subcommands = {ProxyCommand.Latency.class, ProxyCommand.Rate.class, ProxyClockSweepCommand.class,
                ProxyGoodputCommand.class, ProxyLoadedCommand.class})
public final class ProxyCommand {

    static final String EXPERIMENT_LATENCY = "proxy.latency";
    static final String EXPERIMENT_RATE = "proxy.rate";

    /** Options shared by both experiments. */
    static final class Common {
        @Option(names = "--producer", defaultValue = "cpu", converter = CliNames.Producers.class,
                completionCandidates = CliNames.Producers.class,
                description = "cpu (CPU threads stand in for GPU threads) or cuda. Default: ${DEFAULT-VALUE}")
        CliNames.Producer producer;

        @Option(names = "--nic", defaultValue = "softnic", converter = CliNames.ProxyNics.class,
                completionCandidates = CliNames.ProxyNics.class,
                description = "softnic (emulated mlx5) or verbs (a real RDMA device). Default: ${DEFAULT-VALUE}")
        CliNames.ProxyNic nic;

        @Option(names = "--device", description = "RDMA device for --nic verbs (default: the first)")
        String device;

        @Option(names = "--cpus", split = ",", description = "Cores for the workers, in order (default: the NIC's NUMA node when known, else unpinned)")
        int[] cpus;

        @Option(names = "--engine-cpu", defaultValue = "-1", description = "softnic: pin the engine thread (-1: no). Default: ${DEFAULT-VALUE}")
        int engineCpu;

        @Option(names = "--engine-threads", defaultValue = "1", description = "softnic engine threads. Default: ${DEFAULT-VALUE}")
        int engineThreads;

        @Option(names = "--poll", defaultValue = "hot", converter = CliNames.PollModes.class,
                completionCandidates = CliNames.PollModes.class,
                description = "softnic engine polling: ${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
        SoftNic.PollMode poll;

        @Option(names = "--log-slots", defaultValue = "10", description = "log2 of slots per ring. Default: ${DEFAULT-VALUE}")
        int logSlots;

        @Option(names = "--log-sq", defaultValue = "10", description = "log2 of each worker's SQ depth. Default: ${DEFAULT-VALUE}")
        int logSq;

        /** Warming cores takes seconds; a larger value is a typo that would spin the workers for days. */
        static final double MAX_PRECONDITION_SECONDS = 3600;

        @Option(names = "--precondition-seconds", defaultValue = "0", description = "Let the workers spin this long before measuring (warm cores), 0..3600. Default: ${DEFAULT-VALUE}")
        double preconditionSeconds;

        @Option(names = "--gpu", defaultValue = "0", description = "CUDA device for --producer cuda. Default: ${DEFAULT-VALUE}")
        int gpu;

        @Option(names = "--gdrcopy", defaultValue = "true", negatable = true, description = "tuned: put the completion counter in GPU memory through GDRCopy when libgdrapi loads. Default: ${DEFAULT-VALUE}")
        boolean gdrcopy;

        @Option(names = "--timeout-ms", defaultValue = "10000", description = "Bound of every wait. Default: ${DEFAULT-VALUE}")
        long timeoutMs;

        @Option(names = "--preset", paramLabel = "NAME",
                description = "A proxy library's choices (marrow presets list): workers, rings, batch, chaining, "
                        + "producer; explicit flags override them, a choice this command lacks refuses the run")
        String preset;

        @Option(names = "--peer", paramLabel = "HOST:PORT|:PORT",
                description = "Two processes (--nic softnic: one host, shared-memory wire; --nic verbs: two "
                        + "hosts, RC QPs): the responder runs `--peer :PORT`, the initiator `--peer HOST:PORT` with the "
                        + "flags of the run; the workers' WRITEs land in the responder's buffer. Without it, a "
                        + "launcher's environment (Slurm, Open MPI, MPICH/PMIx, torchrun: rank 0 initiates) does the "
                        + "same. proxy latency measures no round trip (rtt) across processes; proxy loaded's probe "
                        + "round trip is answered by the responder's own proxy.")
        String peer;

        @Option(names = "--peer-timeout-s", defaultValue = "60", paramLabel = "S",
                description = "Bound of every wait on the peer (connect/accept, exchange, the responder's wait for "
                        + "the end of a session). Default: ${DEFAULT-VALUE}")
        int peerTimeoutS;

        /** The launcher this rank was started by (set by peerAddress), or null. */
        LaunchEnv launch;
        /** Whether this process initiates (set by peerAddress). */
        boolean initiator = true;
        /** The process environment; tests substitute their own. */
        Map<String, String> environment = System.getenv();

        /** Where the peer is: --peer, else a launcher's environment; null in one process. */
        PeerAddress peerAddress() {
            return peerAddress(false);
        }

        /**
         * gpuProducers: the command's GPU producers check no local destination (proxy latency
         * without a round trip), so --producer cuda may initiate across processes.
         */
        PeerAddress peerAddress(boolean gpuProducers) {
            if (peerTimeoutS <= 0) {
                throw new IllegalArgumentException("--peer-timeout-s must be > 0, not " + peerTimeoutS);
            }
            PeerAddress addr;
            if (peer != null) {
                try {
                    addr = PeerAddress.parse(peer);
                } catch (MarrowException e) {
                    throw new IllegalArgumentException(e.getMessage(), e);
                }
                initiator = !addr.listens();
            } else {
                launch = LaunchEnv.detect(environment).orElse(null);
                if (launch == null) {
                    return null;
                }
                addr = launch.peerAddress();
                initiator = launch.initiator();
            }
            if (nic == CliNames.ProxyNic.VERBS) { // two hosts: no device is exit 77 before the rendezvous waits
                MiniProxy.probeVerbs(device);
            }
            if (producer == CliNames.Producer.CUDA && !gpuProducers) { // they verify a local destination
                throw new IllegalArgumentException("across processes this command takes --producer cpu (its GPU "
                        + "producers check a local destination that is in the other process); proxy latency "
                        + "takes --producer cuda");
            }
            return addr;
        }

        /** The responder: serves the initiator's sessions until it is done. */
        int serve(PeerAddress addr, OutputOptions out, CommandSpec spec) {
            if (out.run.maxSeconds != null) {
                throw new IllegalArgumentException("--max-seconds applies to the initiator; the responder serves "
                        + "until the initiator is done (bounded by --peer-timeout-s)");
            }
            var err = spec.commandLine().getErr();
            int spinning = 2 * engineThreads + 2; // both engines, the initiator's producer and worker at least
            SoftNic.Options opts = new SoftNic.Options(CpuBudget.pollMode(poll, spinning), engineThreads, engineCpu,
                    true);
            // a round-trip session adds this side's proxy worker and PE 1
            boolean yieldIdle = CpuBudget.oversubscribed(spinning + 2);
            try (ProxyPeer p = ProxyPeer.open(addr, Duration.ofSeconds(peerTimeoutS))) {
                err.println("marrow: proxy responder: connected to " + p.peerName());
                err.flush();
                String verbsDevice = nic == CliNames.ProxyNic.VERBS ? (device == null ? "" : device) : null;
                int n = p.serve(opts, yieldIdle, verbsDevice, line -> {
                    err.println("marrow: " + line);
                    err.flush();
                });
                err.println("marrow: proxy responder: initiator done after " + n + " session(s); the initiator "
                        + "writes the result");
            }
            return ExitCodes.OK;
        }

        ProxyPeer openPeer(PeerAddress addr, CommandSpec spec) {
            if (addr == null) {
                return null;
            }
            ProxyPeer p = ProxyPeer.open(addr, Duration.ofSeconds(peerTimeoutS));
            spec.commandLine().getErr().println("marrow: proxy initiator: connected to " + p.peerName());
            spec.commandLine().getErr().flush();
            return p;
        }

        /** Two processes: the record says how they were joined and what the responder saw. */
        void tagPeer(ResultRecord r, ProxyPeer p, MiniProxy px, long nonzero) {
            tagPeer(r, p, px.peerConnection(), nonzero);
        }

        /** As above, with the session's connection read before the proxy closed. */
        void tagPeer(ResultRecord r, ProxyPeer p, String connection, long nonzero) {
            boolean verbs = nic == CliNames.ProxyNic.VERBS;
            r.param("gpu_hardware", producer == CliNames.Producer.CUDA).param("nic_hardware", verbs)
                    .param("peer", p.address().toString()).param("role", "initiator")
                    .param("transport", verbs ? "verbs RC between two hosts"
                            : "softnic shared-memory wire (two processes, one host)")
                    .param("processes", 2)
                    .param("connection", connection)
                    .param("payload_check", "responder: non-zero bytes in its inbox after the session")
                    .metric("peer_inbox_nonzero_bytes", nonzero);
            if (launch != null) {
                launch.describe().forEach(r::param);
            }
        }

        /** What --preset set (records carry it); NONE without one. */
        PresetRules.Applied presetApplied = PresetRules.Applied.NONE;

        /** Applies --preset through the command's rules; explicit options win. */
        void applyPreset(PresetRules rules, CommandSpec spec) {
            if (preset != null) {
                presetApplied = rules.apply(Presets.get(preset), spec.commandLine().getParseResult()::hasMatchedOption);
            }
        }

        /** Both commands take the producer and the mini-proxy's own chaining from a preset. */
        PresetRules rules(String command) {
            return chainingRules(command)
                    .knob(Knob.PRODUCER, "--producer", (v, p) -> null,
                            v -> producer = CliNames.Producer.valueOf(((String) v).toUpperCase()));
        }

        /** The chaining every mini-proxy command does (proxy clock-sweep, which has no --producer, too). */
        static PresetRules chainingRules(String command) {
            // a worker chains the requests it finds ready, up to the batch: adaptive chains
            return new PresetRules(command, "proxy")
                    .fixed(Knob.CHAINING, "adaptive", "chains what a worker finds ready, up to --batch");
        }

        /**
         * The preset knobs of the throughput commands (proxy rate, proxy goodput): workers T, batch B,
         * and rings either per PE (R itself) or per worker (R = that x T, set by the command). Each
         * maps onto --workers, --batch or --rings; an explicit flag wins.
         */
        PresetRules layoutRules(String command, IntConsumer workers, IntConsumer batch, IntConsumer rings,
                                IntConsumer ringsPerWorker) {
            return rules(command)
                    .knob(Knob.WORKERS, "--workers", (v, p) -> null, v -> workers.accept((Integer) v))
                    .knob(Knob.BATCH, "--batch", (v, p) -> null, v -> batch.accept((Integer) v))
                    .knob(Knob.RINGS_PER_PE, "--rings", (v, p) -> null, v -> rings.accept((Integer) v))
                    .knob(Knob.RINGS_PER_WORKER, "--rings", (v, p) -> null, v -> ringsPerWorker.accept((Integer) v));
        }

        void validate() {
            if (!(preconditionSeconds >= 0 && preconditionSeconds <= MAX_PRECONDITION_SECONDS)) {
                throw new IllegalArgumentException("--precondition-seconds must be 0.." + (int) MAX_PRECONDITION_SECONDS
                        + ", not " + preconditionSeconds);
            }
            GdaSetup.requireLogSq(logSq, "--log-sq"); // else the CQ sized from it fails, naming log_cqe_cnt
            CpuBudget.checkCpus("--engine-cpu", engineCpu);
            CpuBudget.checkCpus("--cpus", cpus);
            if (producer == CliNames.Producer.CUDA) {
                Backend.CUDA.ensureAvailability();
            }
        }

        /** spinning: the busy-polling threads of this run; more than the cores and every poller backs off. */
        ProxyConfig config(int workers, int rings, int batch, Handoff h, long minBuffer, int spinning) {
            return ProxyConfig.softnic(workers, rings, batch, h).withNic(nic.label(), device).withCpus(cpus)
                    .withLogSlots(logSlots).withLogSq(logSq).withMinBufferBytes(minBuffer)
                    .withEngine(CpuBudget.pollMode(poll, spinning) == SoftNic.PollMode.HOT, engineThreads, engineCpu)
                    .withYieldIdle(CpuBudget.oversubscribed(spinning));
        }

        long timeoutNs() {
            return timeoutMs * 1_000_000L;
        }

        Duration precondition() {
            return Duration.ofNanos((long) (preconditionSeconds * 1e9));
        }

        ResultRecord record(String experiment, MiniProxy px, Handoff h) {
            ResultRecord r = new ResultRecord(experiment, px.hardware() ? "verbs" : "softnic", px.hardware())
                    .param("nic", px.hardware() ? px.nicName() : "softnic (EMULATED)")
                    .param("producer", producer.label()).param("handoff", h.label())
                    .param("precondition_s", preconditionSeconds);
            px.sqShape().forEach(r::param);
            presetApplied.tag(r);
            return r;
        }
    }

    @Command(name = "latency", mixinStandardHelpOptions = true,
            description = {"Single 8-byte operation, one producer thread, for each handoff:",
                    "  issue = the enqueue (reserve + write + publish);",
                    "  putc  = enqueue start -> the ring's completion counter covers it;",
                    "  rtt   = enqueue start -> PE 1's reply (through ring 1) lands in PE 0's flag.",
                    "Timed in C (CLOCK_MONOTONIC_RAW) or in the kernel (clock64, calibrated against %%globaltimer).",
                    "Statistic: nearest-rank percentiles over --iters samples after --warmup.", RunBounds.HELP})
    static final class Latency implements Callable<Integer> {
        /** The knobs of proxy latency (docs/design/presets.md). */
        static PresetRules presetRules(Latency l) {
            return oneProducerRules(l.common.rules("proxy latency"), v -> l.workers = v, v -> l.batch = v);
        }

        /**
         * The preset knobs of a command that times one producer's single requests (proxy latency,
         * proxy clock-sweep): workers T and batch B onto --workers and --batch; one ring per PE is
         * what it always does. base: the command's producer and chaining rules.
         */
        static PresetRules oneProducerRules(PresetRules base, IntConsumer workers, IntConsumer batch) {
            return base
                    .knob(Knob.WORKERS, "--workers", (v, p) -> null, v -> workers.accept((Integer) v))
                    .knob(Knob.BATCH, "--batch", (v, p) -> null, v -> batch.accept((Integer) v))
                    .fixed(Knob.RINGS_PER_PE, 1, "uses one ring per PE (ring 0: PE 0's requests; ring 1: PE 1's "
                            + "replies)");
        }

        @Spec
        CommandSpec spec;
        @Mixin
        OutputOptions out;
        @Mixin
        Common common;

        @Option(names = "--handoff", defaultValue = "both", converter = CliNames.Handoffs.class,
                completionCandidates = CliNames.Handoffs.class,
                description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
        CliNames.HandoffChoice handoff;

        @Option(names = "--iters", defaultValue = "20000", description = "Timed operations per phase. Default: ${DEFAULT-VALUE}")
        int iters;

        @Option(names = "--warmup", defaultValue = "2000", description = "Untimed operations first. Default: ${DEFAULT-VALUE}")
        int warmup;

        @Option(names = "--size", defaultValue = "8", description = "Bytes per WRITE (cuda: 8). Default: ${DEFAULT-VALUE}")
        int size;

        @Option(names = "--workers", defaultValue = "1", description = "Worker threads (rings = max(2, workers)). Default: ${DEFAULT-VALUE}")
        int workers;

        @Option(names = "--batch", defaultValue = "16", description = "Most requests per chain. Default: ${DEFAULT-VALUE}")
        int batch;

        @Override
        public Integer call() {
            OutputFormat fmt = out.format();
            common.applyPreset(presetRules(this), spec);
            MiniProxy.checkLatency(iters, warmup, size, common.timeoutNs(), common.producer == CliNames.Producer.CUDA);
            common.validate();
            PeerAddress addr = common.peerAddress(true);
            if (addr != null && !common.initiator) {
                return common.serve(addr, out, spec);
            }
            // producer (cpu) + workers + engine threads + the round-trip responder (two processes: the
            // responder process's engine instead)
            int spinning = (common.producer == CliNames.Producer.CPU ? 1 : 0) + workers + common.engineThreads + 1;
            CpuBudget.check(spinning, "producer, workers, NIC engine, responder", spec.commandLine().getErr());
            long minBuffer = 2L * (8192 + 8L * (iters + warmup)) + 8192;
            String bound = RunBounds.applyDefault(out, handoff.handoffs.size());
            RunProgress progress = out.progress("proxy latency", handoff.handoffs.size());
            ProxyPeer peer = common.openPeer(addr, spec);
            // streamed: each record written as its point completes (the header, with the peer's
            // environment, with the first)
            List<ResultRecord> records = out.records(r -> { }, peer == null ? null : peer::peerEnvironment);
            boolean rtt = peer == null; // the round trip's responder thread lives in this process only
            boolean failed = false;
            try {
            for (Handoff h : handoff.handoffs) {
                if (progress.expired()) {
                    break; // --max-seconds: no new handoff
                }
                ProxyConfig cfg = common.config(workers, Math.max(2, workers), batch, h, minBuffer, spinning);
                try (MiniProxy px = MiniProxy.open(cfg, peer)) {
                    GpuProducers gpu = common.producer == CliNames.Producer.CUDA ? px.openGpu(common.gpu, h, common.gdrcopy) : null;
                    try {
                        px.start();
                        px.precondition(common.precondition());
                        LatencySamples s;
                        px.mark(false);
                        if (gpu != null) {
                            s = gpu.latency(iters, warmup, progress.capTimeoutNs(common.timeoutNs()), true, rtt);
                        } else {
                            s = px.cpuLatency(iters, warmup, size, progress.capTimeoutNs(common.timeoutNs()), true, rtt);
                        }
                        progress.step();
                        px.mark(true);
                        long nonzero = peer != null ? px.finishPeer() : -1;
                        ResultRecord r = common.record(EXPERIMENT_LATENCY, px, h)
                                .param("size_bytes", size).param("iters", iters).param("warmup", warmup)
                                .param("workers", workers).param("batch", batch)
                                .param("percentiles", Stats.PERCENTILE_DEFINITION);
                        CpuBudget.tag(r, spinning);
                        CpuBudget.tagPollMode(r, common.poll, spinning);
                        if (gpu != null) {
                            r.param("completion_counter", gpu.cplKind().name().toLowerCase());
                            r.param("completion_note", gpu.note());
                            r.param("timer", "clock64 calibrated to globaltimer");
                            r.metric("sm_clock_mhz", gpu.smClockKhz() / 1000);
                        } else {
                            r.param("completion_counter", "host");
                            r.param("timer", "CLOCK_MONOTONIC_RAW");
                        }
                        Stats is = Stats.of(s.issueNs());
                        Stats pc = Stats.of(s.putcNs());
                        r.latency("issue", is).latency("putc", pc);
                        if (rtt) {
                            r.latency("rtt", Stats.of(s.rttNs()));
                        }
                        ProxyWorkerFields.add(r, px.window(), 0, fmt == OutputFormat.TABLE);
                        if (peer != null) {
                            common.tagPeer(r, peer, px, nonzero);
                            failed |= nonzero <= 0;
                        }
                        // every timed put completed (else the wait failed); two processes: bytes arrived
                        r.metric("valid", pc.n() == iters && (peer == null || nonzero > 0));
                        records.add(r);
                    } finally {
                        if (gpu != null) {
                            gpu.close();
                        }
                    }
                }
            }
            if (peer != null) {
                peer.end();
            }
            } catch (RuntimeException e) { // a dead responder: say so next to the transport error
                throw peer == null ? e : peer.explain(e);
            } finally {
                if (peer != null) {
                    peer.close();
                }
            }
            progress.close();
            CliErrors.requireRecords(records, progress, handoff.handoffs.size() + " handoff point(s)", bound);
            progress.tag(records);
            out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr(),
                    peer != null ? peer.peerEnvironment() : Map.of());
            return peerVerdict(failed, spec);
        }
    }

    /** Two processes: a session whose responder saw no byte arrive fails the run. */
    static int peerVerdict(boolean failed, CommandSpec spec) {
        if (failed) {
            spec.commandLine().getErr().println("marrow: FAILED: the responder's inbox held no delivered byte");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    @Command(name = "rate", mixinStandardHelpOptions = true,
            description = {"Message rate of 8-byte WRITEs: many producer threads, many outstanding requests.",
                    "Timed: first enqueue -> last completion seen (C: CLOCK_MONOTONIC_RAW; cuda: %%globaltimer).",
                    "Per point: M msg/s, mean chain length, posts/s and empty-poll ratio of the workers.",
                    "--sweep: T in {1,2,4,8} x B in {1,2,4,8,16,32} x R in {1,8,32} (points with R < T skipped).",
                    "Limits: --workers 1..64, --rings 1..1024, --size x (--messages + --warmup) at most 64 GiB and "
                            + "the buffers within a quarter of the memory (at most 16 GiB). " + RunBounds.HELP})
    static final class Rate implements Callable<Integer> {
        /** The knobs of proxy rate (docs/design/presets.md); rings per worker scale R with every T. */
        static PresetRules presetRules(Rate r) {
            return r.common.layoutRules("proxy rate", v -> r.workers = new int[] {v}, v -> r.batches = new int[] {v},
                    v -> r.rings = new int[] {v}, v -> r.ringsPerWorker = v);
        }

        @Spec
        CommandSpec spec;
        @Mixin
        OutputOptions out;
        @Mixin
        Common common;

        @Option(names = "--handoff", defaultValue = "tuned", converter = CliNames.Handoffs.class,
                completionCandidates = CliNames.Handoffs.class,
                description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
        CliNames.HandoffChoice handoff;

        @Option(names = "--workers", split = ",", defaultValue = "1", description = "T (comma list). Default: ${DEFAULT-VALUE}")
        int[] workers;

        @Option(names = "--rings", split = ",", defaultValue = "32", description = "R (comma list). Default: ${DEFAULT-VALUE}")
        int[] rings;

        @Option(names = "--batch", split = ",", defaultValue = "16", description = "B (comma list). Default: ${DEFAULT-VALUE}")
        int[] batches;

        @Option(names = "--producers", defaultValue = "0", description = "Producer threads (0: one per ring; cpu: capped by free cores). Default: ${DEFAULT-VALUE}")
        int producers;

        @Option(names = "--messages", defaultValue = "1000000", description = "Messages per point (all producers). Default: ${DEFAULT-VALUE}")
        long messages;

        @Option(names = "--warmup", defaultValue = "100000", description = "Untimed messages per point first. Default: ${DEFAULT-VALUE}")
        long warmup;

        @Option(names = "--size", defaultValue = "8", description = "Bytes per WRITE. Default: ${DEFAULT-VALUE}")
        int size;

        @Option(names = "--sweep", description = "Run the T x B x R sweep and print one table")
        boolean sweep;

        /** A preset's rings per worker: R = this x T at every T (null: --rings). */
        Integer ringsPerWorker;

        @Override
        public Integer call() {
            OutputFormat fmt = out.format();
            if (sweep && common.preset != null) {
                throw new IllegalArgumentException("--sweep sets T, B and R itself: it cannot take --preset");
            }
            common.applyPreset(presetRules(this), spec);
            MiniProxy.checkRate(messages, warmup, size, common.timeoutNs());
            common.validate();
            PeerAddress addr = common.peerAddress();
            if (addr != null && !common.initiator) {
                return common.serve(addr, out, spec);
            }
            int[] ts = sweep ? new int[] {1, 2, 4, 8} : workers;
            int[] bs = sweep ? new int[] {1, 2, 4, 8, 16, 32} : batches;
            int[] rs = sweep ? new int[] {1, 8, 32} : rings;
            validateLayout(ts, rs);
            List<int[]> points = new ArrayList<>();
            for (int t : ts) {
                for (int r : ringsPerWorker != null ? new int[] {ringsPerWorker * t} : rs) {
                    if (r < t) {
                        continue; // every worker owns at least one ring
                    }
                    for (int b : bs) {
                        points.add(new int[] {t, r, b});
                    }
                }
            }
            if (points.isEmpty()) { // every T exceeds every R: nothing would run
                throw new IllegalArgumentException("no point to run: every --rings value is below its --workers (each "
                        + "worker owns at least one ring): --workers " + java.util.Arrays.stream(ts).min().orElse(0)
                        + " needs --rings >= " + java.util.Arrays.stream(ts).min().orElse(0));
            }
            String bound = RunBounds.applyDefault(out, (long) handoff.handoffs.size() * points.size());
            RunProgress progress = out.progress("proxy rate", (long) handoff.handoffs.size() * points.size());
            peer = common.openPeer(addr, spec);
            // streamed: each record written as its point completes (the header, with the peer's
            // environment, with the first)
            List<ResultRecord> records = out.records(r -> { }, peer == null ? null : () -> peer.peerEnvironment());
            try {
                run:
                for (Handoff h : handoff.handoffs) {
                    for (int[] trb : points) {
                        if (progress.expired()) {
                            break run; // --max-seconds: no new point
                        }
                        records.add(point(h, trb[0], trb[1], trb[2], fmt == OutputFormat.TABLE, progress));
                        progress.step();
                    }
                }
                if (peer != null) {
                    peer.end();
                }
            } catch (RuntimeException e) { // a dead responder: say so next to the transport error
                throw peer == null ? e : peer.explain(e);
            } finally {
                if (peer != null) {
                    peer.close();
                }
            }
            progress.close();
            CliErrors.requireRecords(records, progress, points.size() * handoff.handoffs.size() + " point(s)", bound);
            progress.tag(records);
            if (records.stream().anyMatch(x -> Boolean.TRUE.equals(x.params().get("cpu_oversubscribed")))) {
                CpuBudget.check(Runtime.getRuntime().availableProcessors() + 1,
                        "producers, workers, NIC engine in some points", spec.commandLine().getErr());
            }
            out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr(),
                    peer != null ? peer.peerEnvironment() : Map.of());
            return peerVerdict(peerFailed, spec);
        }

        /** The proxy library's limits (marrow_proxy.h), read from it: one fact, in C. */
        private static int limit(String cName) {
            return dev.marrow.internal.ffi.NativeLib.shared("host").intConstant(cName);
        }

        /**
         * Up front, before anything is built: thread and ring counts in range, and the buffers and bytes
         * a point needs within what this machine can allocate and copy in bounded time (docs/design/cli-errors.md).
         */
        private void validateLayout(int[] ts, int[] rs) {
            int maxWorkers = limit("MARROW_PROXY_MAX_WORKERS");
            int maxRings = limit("MARROW_PROXY_MAX_RINGS");
            for (int t : ts) {
                if (t < 1 || t > maxWorkers) {
                    throw new IllegalArgumentException("--workers " + t + " must be 1.." + maxWorkers);
                }
            }
            int maxR = 1;
            for (int r : ringsPerWorker != null ? new int[] {ringsPerWorker * java.util.Arrays.stream(ts).max().orElse(1)} : rs) {
                if (r < 1 || r > maxRings) {
                    throw new IllegalArgumentException("--rings " + r + " must be 1.." + maxRings);
                }
                maxR = Math.max(maxR, r);
            }
            if (producers < 0 || producers > maxRings) {
                throw new IllegalArgumentException("--producers " + producers + " must be 0.." + maxRings);
            }
            RunBounds.requireBytes("--size", size, "--messages + --warmup", messages + warmup);
            long need = MiniProxy.bufferBytes(maxR, common.logSlots, size);
            long max = RunBounds.maxBufferBytes();
            if (need > max) {
                long perByte = Math.max(1, need / size);
                throw new IllegalArgumentException("--size " + size + " needs " + need + " bytes of buffers at --rings "
                        + maxR + " and --log-slots " + common.logSlots + ", more than the " + max + " this machine "
                        + "allows (a quarter of its memory, at most 16 GiB): --size must be 8.." + Math.max(8, max / perByte / 8 * 8)
                        + " here (or lower --rings / --log-slots)");
            }
        }

        /** Two processes: the connection to the responder (null in one process), and whether a session failed. */
        private ProxyPeer peer;
        private boolean peerFailed;

        private boolean gpuProducers() {
            return common.producer == CliNames.Producer.CUDA;
        }

        private ResultRecord point(Handoff h, int t, int r, int b, boolean table, RunProgress progress) {
            int p = producers > 0 ? producers : r;
            if (common.producer == CliNames.Producer.CPU && producers == 0) {
                int free = Runtime.getRuntime().availableProcessors() - t - common.engineThreads;
                p = Math.max(1, Math.min(r, free));
            }
            long perProducer = Math.max(1, messages / p);
            long warmPer = warmup / p;
            long minBuffer = MiniProxy.bufferBytes(r, common.logSlots, size);
            int spinning = (gpuProducers() ? 0 : p) + t + common.engineThreads * (peer != null ? 2 : 1);
            ProxyConfig cfg = common.config(t, r, b, h, minBuffer, spinning);
            try (MiniProxy px = MiniProxy.open(cfg, peer)) {
                GpuProducers gpu = common.producer == CliNames.Producer.CUDA ? px.openGpu(common.gpu, h, common.gdrcopy) : null;
                try {
                    px.start();
                    px.precondition(common.precondition());
                    long timeoutNs = progress.capTimeoutNs(common.timeoutNs());
                    RateResult res = gpu != null ? gpu.rate(p, perProducer, warmPer, size, timeoutNs)
                            : px.cpuRate(p, perProducer, warmPer, size, timeoutNs);
                    long nonzero = peer != null ? px.finishPeer() : -1;
                    ResultRecord rec = common.record(EXPERIMENT_RATE, px, h)
                            .param("workers", t).param("rings", r).param("batch", b).param("producers", p)
                            .param("size_bytes", size).param("messages", res.messages());
                    if (gpu != null) {
                        rec.param("completion_counter", gpu.cplKind().name().toLowerCase());
                    }
                    CpuBudget.tag(rec, spinning);
                    CpuBudget.tagPollMode(rec, common.poll, spinning);
                    rec.metric("rate_mmsg_s", ResultRecord.round(res.rateMmsgPerSec(), 3))
                            .metric("elapsed_ns", res.elapsedNs())
                            .metric("chain_len_mean", ResultRecord.round(res.meanChainLength(), 2))
                            .metric("posts_per_s", Math.round(res.postsPerSecond()))
                            .metric("empty_poll_ratio", ResultRecord.round(res.emptyPollRatio(), 3))
                            .metric("ring_full_waits", res.ringFullWaits());
                    if (peer == null) { // two processes: the destination is the responder's; it counts what arrived
                        rec.metric("verify_errors", res.verifyErrors());
                    }
                    rec.metric("valid", peer == null ? res.verifyErrors() == 0 : nonzero > 0);
                    if (gpu == null) {
                        rec.metric("cache_refreshes", res.cacheRefreshes());
                    }
                    ProxyWorkerFields.add(rec, res.workers(), res.elapsedNs(), table);
                    if (peer != null) {
                        common.tagPeer(rec, peer, px, nonzero);
                        peerFailed |= nonzero <= 0;
                    }
                    return rec;
                } finally {
                    if (gpu != null) {
                        gpu.close();
                    }
                }
            }
        }
    }
}
