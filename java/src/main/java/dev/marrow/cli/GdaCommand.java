// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.api.Status;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.gda.Experiment;
import dev.marrow.gda.GdaRecords;
import dev.marrow.gda.GdaRun;
import dev.marrow.gda.GdaRunSpec;
import dev.marrow.gda.GdaSetup;
import dev.marrow.gda.MiniGda;
import dev.marrow.fabric.Mlx5Options;
import dev.marrow.fabric.Nic;
import dev.marrow.gda.Ordering;
import dev.marrow.gda.OrderingPolicy;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.PeerRole;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.launch.LaunchEnv;
import dev.marrow.mlx5.NicTopology;
import dev.marrow.peer.PeerAddress;
import dev.marrow.presets.Knob;
import dev.marrow.presets.PresetRules;
import dev.marrow.presets.Presets;
import dev.marrow.results.ResultRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** mini-gda: single-operation costs of RDMA WRITEs posted by the thread that owns the QP. */
@Command(name = "gda", mixinStandardHelpOptions = true,
        description = "mini-gda: GPU- (or CPU-) submitted RDMA WRITEs, single-operation costs (\"GPU-Initiated Communication: Dissecting Down to the Bone\" §4.1, Tables 3-4).",
        subcommands = {GdaCommand.Latency.class, GdaRateCommand.class, GdaClockSweepCommand.class,
                GdaGoodputCommand.class, GdaLoadedCommand.class, GdaTimerCheckCommand.class})
public final class GdaCommand {

    /** The inline sizes of the paper's Fig. 3a. */
    static final int[] SWEEP_SIZES = {8, 16, 28, 32, 60, 92, 124, 220};

    @Command(name = "latency", mixinStandardHelpOptions = true,
            description = {"Issue, put+completion and round-trip latency of one 8-byte RDMA WRITE, one thread, "
                    + "at most one outstanding put.",
                    "Timed (in C / CUDA, never Java): issue = WQE build to doorbell store; put+completion = to the "
                    + "CQE consumed; round trip = to the peer's write-back seen; db2cqe (doorbell to CQE) = from right "
                    + "after the doorbell store to the first poll that sees the valid CQE, before consuming it. "
                    + "--responder-delay-us D: the round trip's peer waits D us by its own clock before "
                    + "answering (gda timer-check runs 0 and 50). CPU: CLOCK_MONOTONIC_RAW; "
                    + "GPU: %%globaltimer, plus %%clock64 for the effective SM clock.",
                    "Untimed: payload staging before each sample, the completion after an issue sample, "
                    + "and validation of the delivered bytes after every iteration.",
                    "--sweep ordering: every ordering x {inline, pointer}; --sweep size: inline sizes "
                    + "8..220 bytes (Fig. 3a). Each sweep prints one table.",
                    "--nic softnic results are EMULATED (\"hardware\": false).",
                    "--nic mlx5 (with --target cuda only; cpu + mlx5 is refused; a responder needs no GPU): two "
                    + "verbs RC QPs on one ConnectX connected to each other, SQ/CQ/dbrec/BlueFlame from mlx5dv_init_obj, the UAR mapped into the "
                    + "GPU as IO memory (needs PeerMappingOverride=1); results \"hardware\": true, backend cuda+mlx5.",
                    "--peer (two hosts): the responder runs `--peer :PORT` (or --peer-role responder), the initiator "
                    + "`--peer HOST:PORT`; they exchange QPN, LID/GID, PSN, rkey and inbox address over TCP, bring "
                    + "their QPs to RTS and meet at a barrier. The initiator's flags decide the run (experiments, "
                    + "ordering, payload, size, iters, warm-up, timeout) and are sent to the responder, which needs "
                    + "none of them. Issue and put+completion need only the initiator's GPU; for the round trip the "
                    + "responder's GPU runs the peer role (polls its inbox, writes the word back). The initiator "
                    + "cannot read the other host's memory: after each run the responder checks that its inbox "
                    + "holds the final iteration's bytes and reports it (payload_errors 0 or 1). --sweep with "
                    + "--peer is not supported (usage error).",
                    "--nic softnic with --peer: two processes of ONE host, each with its own software NIC, joined "
                    + "by a shared-memory wire (docs/design/two-process.md); results \"hardware\": false.",
                    "Launchers: without --peer, the variables of Slurm, Open MPI, MPICH/PMIx or torchrun make "
                    + "this one of two ranks running the same command: rank 0 listens at MASTER_PORT (Slurm: the "
                    + "first host of the step) and initiates, rank 1 connects and responds; only rank 0 writes "
                    + "the result, which carries both sides' environment headers.",
                    "Limits: --payload pointer --size up to 2^31 - 1 (mlx5), the buffer within a quarter of the "
                            + "memory, --size x (--iters + --warmup) at most 64 GiB. " + RunBounds.HELP,
                    "--preset NAME (marrow presets list): a GPU-submitted library's choices (ordering; QPs per "
                    + "peer, completion scope, doorbell batch and publication must be what this command does: one "
                    + "QP, one thread, a doorbell per WQE, else the preset is refused with the knob named). "
                    + "Explicit flags override the preset; records carry \"preset\"."})
    static final class Latency implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        OutputOptions out;

        @Option(names = "--target", defaultValue = "cpu", converter = CliNames.Targets.class,
                completionCandidates = CliNames.Targets.class,
                description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
        Target target;

        @Option(names = "--nic", defaultValue = "softnic", converter = CliNames.GdaNics.class,
                completionCandidates = CliNames.GdaNics.class,
                description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
        Nic nic;

        @Option(names = "--ordering", converter = CliNames.Orderings.class,
                completionCandidates = CliNames.Orderings.class,
                description = "${COMPLETION-CANDIDATES}. "
                        + "Default: by placement: release-sys for host-resident queues, gpu-fence for GPU-resident "
                        + "ones (docs/design/orderings.md §3)")
        Ordering ordering;

        @Option(names = OrderingPolicy.ALLOW_UNSAFE_FLAG,
                description = "--nic mlx5 with host-resident queues: also run orderings that are not safe there "
                        + "(none and the GPU-scope ones; records carry ordering_safe_on_hardware=false)")
        boolean allowUnsafeOrdering;

        @Option(names = "--payload", defaultValue = "inline", converter = CliNames.Payloads.class,
                completionCandidates = CliNames.Payloads.class,
                description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
        Payload payload;

        @Option(names = "--size", defaultValue = "8", description = "Payload bytes. Default: ${DEFAULT-VALUE}")
        int size;

        @Option(names = "--iters", defaultValue = "10000", description = "Timed iterations per experiment. Default: ${DEFAULT-VALUE}")
        int iters;

        @Option(names = "--warmup", defaultValue = "1000", description = "Untimed iterations first. Default: ${DEFAULT-VALUE}")
        int warmup;

        @Option(names = "--placement", defaultValue = "host", converter = CliNames.Placements.class,
                completionCandidates = CliNames.Placements.class,
                description = "Queue memory: ${COMPLETION-CANDIDATES}. gpu: SQ, CQ, DBRs and doorbell pages in GPU "
                        + "memory, served by the software NIC's device engine (a persistent kernel on --nic-sms "
                        + "SMs; --target cuda; records say nic=softnic-device, hardware=false); with --nic mlx5: "
                        + "DevX QPs whose SQ, CQ and doorbell records are GPU memory (data buffers stay host "
                        + "memory; one host or --peer; exit 77 naming the GPU, NIC or DevX when one is missing). "
                        + "Default: ${DEFAULT-VALUE}")
        Placement placement;

        @Option(names = "--nic-sms", paramLabel = "N",
                description = "--placement gpu: SMs the device engine's persistent kernel takes (one block of 32 "
                        + "engine threads each; recorded as nic_sms). Default: 1")
        Integer nicSms;

        @Option(names = "--experiments", split = ",", converter = CliNames.Experiments.class,
                completionCandidates = CliNames.Experiments.class,
                description = "Comma list of ${COMPLETION-CANDIDATES}. Default: issue,putc,rtt (sweeps: issue,putc)")
        List<Experiment> experiments;

        @Option(names = "--sweep", converter = Sweeps.class, completionCandidates = Sweeps.class,
                description = "ordering (ordering x {inline, pointer}) or size (inline 8..220 B)")
        Sweep sweep;

        @Option(names = "--log-sq", defaultValue = "8", paramLabel = "N",
                description = "log2 of each QP's SQ size in WQEBBs, on both NICs (verbs is asked for the matching "
                        + "max_send_wr; the record's sq_wqebbs says what was granted). Default: ${DEFAULT-VALUE}")
        int logSq;

        @Option(names = "--responder-delay-us", defaultValue = "0", paramLabel = "US",
                description = "Round trip: the peer waits this long after seeing the ping, by its own clock, "
                        + "before answering (the timer check: the round trip must grow by exactly this). One host "
                        + "only. Default: ${DEFAULT-VALUE}")
        long responderDelayUs;

        @Option(names = "--max-inline", defaultValue = "220", description = "QP max_inline_data. Default: ${DEFAULT-VALUE}")
        int maxInline;

        @Option(names = "--timeout-ms", defaultValue = "5000", description = "Bound of every single wait. Default: ${DEFAULT-VALUE}")
        long timeoutMs;

        @Option(names = "--engine-cpu", defaultValue = "-1", description = "Pin the software NIC engine to this CPU. Default: ${DEFAULT-VALUE}")
        int engineCpu;

        @Option(names = "--cuda-device", defaultValue = "0", description = "CUDA device ordinal. Default: ${DEFAULT-VALUE}")
        int cudaDevice;

        @Option(names = "--device", paramLabel = "NAME",
                description = "mlx5: RDMA device, e.g. mlx5_0. Default: the mlx5 device closest to --cuda-device in "
                        + "the PCIe tree (sysfs) where CUDA is present, else the first; records say which "
                        + "(mlx5_device_choice)")
        String device;

        @Option(names = "--gid-index", paramLabel = "N", description = "mlx5: GID index. Default: automatic "
                + "(IB: 0; RoCE: a RoCE v2 GID)")
        Integer gidIndex;

        @Option(names = "--peer", paramLabel = "HOST:PORT|:PORT",
                description = "Two hosts (mlx5) or two processes of one host (softnic, over a shared-memory "
                        + "wire): HOST:PORT connects to the responder and runs the experiments, :PORT listens for "
                        + "the initiator and serves them. Without it, and without a launcher's environment "
                        + "(Slurm, Open MPI, MPICH/PMIx, torchrun: rank 0 initiates), one process, two QPs "
                        + "connected to each other")
        String peer;

        @Option(names = "--peer-role", paramLabel = "initiator|responder", converter = CliNames.PeerRoles.class,
                completionCandidates = CliNames.PeerRoles.class,
                description = "With --peer: initiator (connects, runs the experiments its flags name) or "
                        + "responder (listens, serves the initiator's runs: round-trip peer role, check of the "
                        + "bytes in its inbox; until the initiator is done). "
                        + "Default: implied by --peer (:PORT responder, HOST:PORT initiator)")
        PeerRole peerRole;

        @Option(names = "--preset", paramLabel = "NAME",
                description = "A library preset (marrow presets list); explicit flags override its choices")
        String preset;

        /** What --preset set (records carry it); NONE without one. */
        PresetRules.Applied presetApplied = PresetRules.Applied.NONE;

        @Option(names = "--peer-timeout-s", defaultValue = "60", paramLabel = "S",
                description = "Bound of every wait on the peer (connect/accept, exchange, barriers; the "
                        + "responder's wait for the next run). Default: ${DEFAULT-VALUE}")
        int peerTimeoutS;

        @Override
        public Integer call() {
            out.format();
            applyPreset();
            GdaSetup.requireLogSq(logSq, "--log-sq");
            // The field is 32-bit ns; that it is shorter than the wait bound is C's check.
            if (responderDelayUs < 0 || responderDelayUs * 1000 > GdaRunSpec.MAX_RESPONDER_DELAY_NS) {
                throw new IllegalArgumentException("--responder-delay-us must be 0.."
                        + GdaRunSpec.MAX_RESPONDER_DELAY_NS / 1000 + ", not " + responderDelayUs);
            }
            if (responderDelayUs > 0 && !experiments(sweep != null).contains(Experiment.ROUND_TRIP)) {
                throw new IllegalArgumentException("--responder-delay-us applies to the round trip: add rtt to "
                        + "--experiments");
            }
            if (responderDelayUs > 0 && peer != null) {
                throw new IllegalArgumentException("--responder-delay-us is supported on one host only");
            }
            requireBounded();
            Nic theNic = nic;
            if (nicSms != null && placement != Placement.GPU) {
                throw new IllegalArgumentException("--nic-sms applies to --placement gpu (the software NIC's device "
                        + "engine) only");
            }
            if (nicSms != null && (nicSms < 1 || nicSms > 1024)) {
                throw new IllegalArgumentException("--nic-sms must be 1..1024 (and at most the GPU's SMs), not "
                        + nicSms);
            }
            GdaSetup setup = GdaSetup.defaults(target).withNic(theNic).withNicSms(nicSms == null ? 1 : nicSms)
                    .withPlacement(placement).withMaxInline(maxInline)
                    .withEngineCpu(engineCpu).withCudaDevice(cudaDevice).withPollMode(SoftNic.PollMode.HOT)
                    .withBufferBytes(Math.max(64 * 1024, ((long) size + 4095) / 4096 * 4096))
                    .withMlx5(mlx5Options(theNic));
            setup = setup.withQueues(logSq, setup.logCq(), setup.collapsedCq());
            for (Point p : points()) { // before any device is opened
                OrderingPolicy.requireAllowed(setup.nic(), setup.placement(), p.ordering, allowUnsafeOrdering);
                for (Experiment e : experiments(sweep != null)) {
                    spec(e, p, timeoutNs()); // the runners' limits (marrow_gda_config_check): a usage error now
                }
            }
            if (setup.mlx5().twoHost()) {
                return twoHost(setup);
            }
            List<Experiment> exps = experiments(sweep != null);
            // cpu target: initiator + software NIC engine (+ the round-trip peer); cuda: the engine
            int spinning = (setup.target() == Target.CPU ? 1 + (exps.contains(Experiment.ROUND_TRIP) ? 1 : 0) : 0)
                    + (setup.nic() == Nic.SOFTNIC && !setup.deviceEngine() ? 1 : 0); // the device engine is a GPU kernel
            CpuBudget.check(spinning, "initiator, peer, NIC engine", spec.commandLine().getErr());
            setup = setup.withPollMode(CpuBudget.pollMode(SoftNic.PollMode.HOT, spinning));
            List<ResultRecord> records = out.records(); // streamed: each record written as its point completes
            boolean allValid = true;
            // Fresh queues per point: an error CQE moves the QP to ERR, and the unsafe
            // orderings can produce one (or lose a doorbell); such a row is recorded
            // (valid=false) and the sweep goes on.
            List<Point> points = points();
            String bound = RunBounds.applyDefault(out, points.size());
            RunProgress progress = out.progress("gda latency", (long) points.size() * exps.size());
            for (Point p : points) {
                if (progress.expired()) {
                    break; // --max-seconds: no new point
                }
                List<GdaRun> runs = new ArrayList<>();
                String error = null;
                try (MiniGda g = MiniGda.open(setup)) {
                    for (Experiment e : exps) {
                        runs.add(g.run(spec(e, p, progress.capTimeoutNs(timeoutNs()))));
                        progress.step();
                    }
                } catch (NativeException e) {
                    // In a sweep, a lost doorbell (timeout) is a finding about the unsafe
                    // orderings like an error CQE is: record it and go on. One point alone
                    // still fails loudly.
                    boolean finding = isFinding(e) || (e.isTimeout() && sweep != null);
                    if (!finding) {
                        throw e;
                    }
                    error = e.getMessage();
                }
                allValid &= error == null && runs.stream().allMatch(GdaRun::valid);
                ResultRecord rec = error == null ? GdaRecords.record(runs)
                        : GdaRecords.failed(setup, spec(exps.getFirst(), p, timeoutNs()), runs, error);
                CpuBudget.tag(rec, spinning);
                presetApplied.tag(rec);
                if (setup.nic() == Nic.SOFTNIC && !setup.deviceEngine()) {
                    CpuBudget.tagPollMode(rec, SoftNic.PollMode.HOT, spinning);
                } else if (setup.nic() == Nic.MLX5) {
                    rec.param("mlx5_device_choice", deviceChoice);
                }
                records.add(rec);
            }
            progress.close();
            CliErrors.requireRecords(records, progress, points.size() + " point(s)", bound);
            progress.tag(records);
            out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr());
            if (!allValid) {
                spec.commandLine().getErr().println("marrow: FAILED rows have valid=false: wrong bytes delivered "
                        + "(payload_errors), an error CQE or a timeout (error)");
                return ExitCodes.FAILED;
            }
            return ExitCodes.OK;
        }

        /**
         * Sizes and counts a run cannot finish in bounded time, or an mlx5 WRITE cannot carry, are
         * usage errors before anything opens (docs/design/cli-errors.md): the buffers must fit a
         * quarter of the memory, and every iteration
         * copies --size bytes (--size 99999999 x 11,000 iterations is a terabyte).
         */
        private void requireBounded() {
            // a pointer WRITE's 2^31 - 1 byte limit (docs/design/mlx5-queue-formats.md) is --size's int range
            long buffer = Math.max(64 * 1024, ((long) size + 4095) / 4096 * 4096);
            if (buffer > RunBounds.maxBufferBytes()) {
                throw new IllegalArgumentException("--size " + size + " needs a " + buffer + "-byte buffer, more than "
                        + "the " + RunBounds.maxBufferBytes() + " this machine allows (a quarter of its memory, at most "
                        + "16 GiB)");
            }
            RunBounds.requireBytes("--size", size, "--iters + --warmup", (long) iters + warmup);
            CpuBudget.checkCpus("--engine-cpu", engineCpu);
        }

        /**
         * The knobs of gda latency (docs/design/presets.md): the ordering is a flag; one QP to the
         * peer, one publishing thread and a doorbell per WQE are what it always does, so a preset
         * that needs more is refused with the knob named (the throughput command brings them).
         */
        static PresetRules presetRules(Latency l) {
            return oneQpRules("gda latency", o -> l.ordering = o, "rings the doorbell for every WQE (one outstanding put)");
        }

        /**
         * The preset knobs of a command that posts from one thread through one QP with a doorbell
         * per WQE (gda latency, gda goodput, gda timer-check, gda clock-sweep, and gda loaded's
         * probe): the ordering is its flag; the rest are what it always
         * does, so a preset needing more QPs, batched doorbells or warp publication is refused.
         * doorbell: what the command does per doorbell, for the refusal.
         */
        static PresetRules oneQpRules(String command, java.util.function.Consumer<Ordering> ordering, String doorbell) {
            return new PresetRules(command, "gda")
                    .knob(Knob.ORDERING, "--ordering", (v, p) -> null, v -> ordering.accept((Ordering) v))
                    .fixed(Knob.QPS_PER_PEER, 1, "posts through one QP to its peer")
                    .knob(Knob.COMPLETION_SCOPE, null, (v, p) -> p.value(Knob.QPS_PER_PEER).orElse(1).equals(1) ? null
                            : command + " completes its one QP; a scope over several QPs needs the QP-count knob",
                            v -> {
                            }) // with one QP every scope waits for the same queue
                    .fixed(Knob.DOORBELL_BATCH, 1, doorbell)
                    .fixed(Knob.PUBLICATION, "per-thread", "posts from one thread");
        }

        private void applyPreset() {
            if (preset == null) {
                return;
            }
            var parsed = spec.commandLine().getParseResult();
            var p = Presets.get(preset);
            if (sweep == Sweep.ORDERING && p.value(Knob.ORDERING).isPresent() && !parsed.hasMatchedOption("--ordering")) {
                throw new IllegalArgumentException("--sweep ordering runs every ordering: it cannot take preset "
                        + preset + "'s ordering (drop one of them)");
            }
            presetApplied = presetRules(this).apply(p, parsed::hasMatchedOption);
        }

        /**
         * --device/--gid-index/--peer/--peer-role as Mlx5Options; usage errors
         * name the flag. Without --peer, a launcher's environment (Slurm, Open
         * MPI, MPICH/PMIx, torchrun: {@link LaunchEnv}) makes this one of two
         * ranks: rank 0 listens and initiates, rank 1 connects and responds.
         * An explicit --peer wins over the launcher.
         */
        Mlx5Options mlx5Options(Nic n) {
            if (n != Nic.MLX5) {
                for (String[] f : new String[][] {{"--device", device},
                        {"--gid-index", gidIndex == null ? null : gidIndex.toString()}}) {
                    if (f[1] != null) {
                        throw new IllegalArgumentException(f[0] + " applies to --nic mlx5 only (the software NIC "
                                + "has no devices or GIDs)");
                    }
                }
            }
            if (peerTimeoutS <= 0) {
                throw new IllegalArgumentException("--peer-timeout-s must be > 0, not " + peerTimeoutS);
            }
            PeerAddress addr = null;
            PeerRole role = peerRole;
            launch = null;
            if (peer != null) {
                try {
                    addr = PeerAddress.parse(peer);
                } catch (MarrowException e) { // PeerAddress words it with "--peer ..."
                    throw new IllegalArgumentException(e.getMessage(), e);
                }
                if (role == PeerRole.INITIATOR && addr.listens()) {
                    throw new IllegalArgumentException("--peer-role initiator connects to the responder: --peer must "
                            + "be host:port, not '" + addr + "'");
                }
                if (role == PeerRole.RESPONDER && !addr.listens()) {
                    throw new IllegalArgumentException("--peer-role responder listens for the initiator: --peer must "
                            + "be :port, not '" + addr + "'");
                }
            } else if (peerRole == null) {
                launch = LaunchEnv.detect(environment).orElse(null);
                if (launch != null) {
                    addr = launch.peerAddress();
                    role = launch.initiator() ? PeerRole.INITIATOR : PeerRole.RESPONDER;
                }
            }
            if (addr != null && sweep != null) {
                throw new IllegalArgumentException("--sweep with --peer is not supported (nor under a launcher): one "
                        + "point per two-process session");
            }
            String dev = device;
            deviceChoice = device != null ? "--device" : "first mlx5 device";
            if (n == Nic.MLX5 && device == null) {
                java.util.Optional<NicTopology.Choice> near = closestToGpu();
                if (near.isPresent()) {
                    dev = near.get().device();
                    deviceChoice = near.get().describe();
                }
            }
            return Mlx5Options.defaults().withDevice(dev, gidIndex == null ? -1 : gidIndex)
                    .withPeer(addr, role).withPeerTimeout(Duration.ofSeconds(peerTimeoutS));
        }

        /** How the mlx5 device was chosen (recorded): --device, by PCIe distance to the GPU, or the first. */
        String deviceChoice;

        /** The mlx5 device nearest --cuda-device in the PCIe tree, when CUDA and sysfs can tell. */
        java.util.Optional<NicTopology.Choice> closestToGpu() {
            if (!dev.marrow.api.Backend.CUDA.isAvailable()) {
                return java.util.Optional.empty();
            }
            try {
                for (dev.marrow.internal.ffi.CudaFfi.Gpu g : dev.marrow.internal.ffi.CudaFfi.gpus()) {
                    if (g.ordinal() == cudaDevice) {
                        return NicTopology.closestMlx5(java.nio.file.Path.of("/sys"), g.pciBusId());
                    }
                }
            } catch (RuntimeException e) { // no topology: the first device, as without a GPU
                return java.util.Optional.empty();
            }
            return java.util.Optional.empty();
        }

        /** The launcher this rank was started by (set by mlx5Options), or null. */
        LaunchEnv launch;
        /** The process environment; tests substitute their own. */
        java.util.Map<String, String> environment = System.getenv();

        /**
         * --peer: the responder serves whatever the initiator announces
         * until the initiator's closing barrier; the initiator runs its
         * experiments through MiniGda (each announced to the responder,
         * whose report of its inbox check is part of the result) and prints
         * one record.
         */
        private int twoHost(GdaSetup setup) {
            var err = spec.commandLine().getErr();
            // Two software-NIC processes share this host: per side the NIC engine and, on the CPU target,
            // the initiator or the responder's peer role spin.
            int spinning = setup.nic() == Nic.SOFTNIC ? 2 * (1 + (setup.target() == Target.CPU ? 1 : 0)) : 0;
            if (setup.nic() == Nic.SOFTNIC) {
                CpuBudget.check(spinning, "two processes: NIC engines, initiator, peer role", err);
                setup = setup.withPollMode(CpuBudget.pollMode(SoftNic.PollMode.HOT, spinning));
            }
            if (setup.mlx5().role() == PeerRole.RESPONDER) {
                if (out.run.maxSeconds != null) { // the initiator's flags bound the runs; its --max-seconds applies
                    throw new IllegalArgumentException("--max-seconds applies to the initiator; the responder "
                            + "serves until the initiator is done (bounded by --peer-timeout-s)");
                }
                try (MiniGda g = MiniGda.open(setup)) {
                    err.println("marrow: gda responder: connected " + g.connection());
                    err.println("marrow: gda responder: serving the initiator's runs (the initiator's flags decide "
                            + "them; each wait on the initiator at most " + setup.mlx5().peerTimeout().toSeconds()
                            + " s)");
                    err.flush();
                    int n = g.serve(line -> {
                        err.println("marrow: gda responder: " + line);
                        err.flush();
                    });
                    err.println("marrow: gda responder: initiator done after " + n + " run(s); the initiator "
                            + "writes the result");
                    return ExitCodes.OK;
                }
            }
            List<GdaRunSpec> specs = new ArrayList<>(); // parsed before connecting: bad arguments stay usage errors
            for (Experiment e : experiments(false)) {
                specs.add(spec(e, new Point(ordering(), payload, size), timeoutNs()));
            }
            List<GdaRun> runs = new ArrayList<>();
            String error = null;
            boolean truncated = false;
            java.util.Map<String, Object> peerEnv = java.util.Map.of();
            String connection = null;
            try (MiniGda g = MiniGda.open(setup)) {
                err.println("marrow: gda initiator: connected " + g.connection());
                err.flush();
                peerEnv = g.peerEnvironment();
                connection = g.connection();
                RunProgress progress = out.progress("gda latency", specs.size());
                for (GdaRunSpec r : specs) {
                    if (progress.expired()) {
                        break; // --max-seconds: no further experiment
                    }
                    runs.add(g.run(r.withTimeoutNs(progress.capTimeoutNs(r.timeoutNs()))));
                    progress.step();
                }
                progress.close();
                truncated = progress.truncated();
            } catch (NativeException e) {
                if (!isFinding(e)) { // an error CQE is a finding, as on one host
                    throw e;
                }
                error = e.getMessage();
            }
            if (runs.isEmpty() && error == null) {
                err.println("marrow: --max-seconds reached before the first run");
                return ExitCodes.OK;
            }
            ResultRecord rec = error == null ? GdaRecords.record(runs)
                    : GdaRecords.failed(setup, specs.getFirst(), runs, error);
            presetApplied.tag(rec);
            if (truncated) {
                rec.param("truncated", true);
            }
            if (setup.nic() == Nic.SOFTNIC) { // two processes of one host, joined by the shared-memory wire
                rec.param("gpu_hardware", setup.target() == Target.CUDA).param("nic_hardware", false)
                        .param("peer", setup.mlx5().peer().toString()).param("role", PeerRole.INITIATOR.label())
                        .param("transport", "softnic shared-memory wire (two processes, one host)")
                        .param("payload_check", "responder: final iteration's bytes in its inbox");
                if (connection != null) {
                    rec.param("connection", connection);
                }
                CpuBudget.tag(rec, spinning);
                CpuBudget.tagPollMode(rec, SoftNic.PollMode.HOT, spinning);
            }
            if (launch != null) {
                launch.describe().forEach(rec::param);
            }
            if (setup.nic() == Nic.MLX5) {
                rec.param("mlx5_device_choice", deviceChoice);
            }
            out.emit(List.of(rec), spec.commandLine().getOut(), err, peerEnv);
            if (error != null || !runs.stream().allMatch(GdaRun::valid)) {
                err.println("marrow: FAILED: valid=false: " + (error != null ? error
                        : "the responder's inbox did not hold the final iteration's bytes (payload_errors)"));
                return ExitCodes.FAILED;
            }
            return ExitCodes.OK;
        }

        /** --sweep: ordering x payload, or the inline sizes at one ordering. */
        enum Sweep {
            ORDERING, SIZE
        }

        static final class Sweeps extends CliNames.FlagWords<Sweep> {
            Sweeps() {
                super("--sweep", Sweep.values(), w -> w.name().toLowerCase());
            }
        }

        record Point(Ordering ordering, Payload payload, int size) {
        }

        List<Point> points() {
            List<Point> pts = new ArrayList<>();
            if (sweep == null) {
                pts.add(new Point(ordering(), payload, size));
            } else if (sweep == Sweep.ORDERING) {
                for (Ordering o : Ordering.values()) {
                    for (Payload p : Payload.values()) {
                        pts.add(new Point(o, p, size));
                    }
                }
            } else {
                Ordering o = ordering();
                for (int s : SWEEP_SIZES) {
                    if (s > maxInline) {
                        throw new IllegalArgumentException("--sweep size needs --max-inline >= " + s);
                    }
                    pts.add(new Point(o, Payload.INLINE, s));
                }
            }
            return pts;
        }

        GdaRunSpec spec(Experiment e, Point p, long timeoutNs) {
            return new GdaRunSpec(e, p.ordering, p.payload, p.size, iters, warmup, timeoutNs,
                    e == Experiment.ROUND_TRIP ? responderDelayUs * 1000 : 0);
        }

        long timeoutNs() {
            return timeoutMs * 1_000_000L;
        }

        /** --ordering, or the placement's default (OrderingPolicy). */
        Ordering ordering() {
            return ordering == null ? OrderingPolicy.defaultFor(placement) : ordering;
        }

        List<Experiment> experiments(boolean sweeping) {
            if (experiments == null || experiments.isEmpty()) {
                return sweeping ? List.of(Experiment.ISSUE, Experiment.PUT_COMPLETION)
                        : size == 8 ? List.of(Experiment.ISSUE, Experiment.PUT_COMPLETION, Experiment.ROUND_TRIP)
                        : List.of(Experiment.ISSUE, Experiment.PUT_COMPLETION);
            }
            return List.copyOf(experiments);
        }
    }

    /** An error CQE (EIO) or wrong delivered bytes (EPROTO): a measured finding, recorded rather than thrown. */
    private static boolean isFinding(NativeException e) {
        return e.is(Status.EIO) || e.is(Status.EPROTO);
    }
}
