// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.api.NativeException;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.WireModel;
import dev.marrow.gda.Experiment;
import dev.marrow.gda.GdaGoodput;
import dev.marrow.gda.GdaRecords;
import dev.marrow.gda.GdaRun;
import dev.marrow.gda.GdaRunSpec;
import dev.marrow.gda.GdaSetup;
import dev.marrow.gda.GoodputQueues;
import dev.marrow.gda.MiniGda;
import dev.marrow.gda.Ordering;
import dev.marrow.gda.OrderingPolicy;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.Fabric;
import dev.marrow.fabric.Nic;
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

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;

/** gda goodput: pipelined pointer-WRITE goodput vs size (Fig. 8), or single-op put+completion vs size (Fig. 11). */
@Command(name = "goodput", mixinStandardHelpOptions = true,
        description = {"mini-gda goodput on the software NIC: one poster thread keeps a window of pointer RDMA "
                + "WRITEs outstanding, spread round robin over --qps QPs (each its own SQ and CQ, served by "
                + "--engine-threads engine threads), and signals every --signal-every-th WQE of a QP; GB/s of "
                + "payload per size, and the first size reaching 90 %% of the wire model's line rate "
                + "(\"GPU-Initiated Communication: Dissecting Down to the Bone\" Fig. 8).",
                "--single-op: put+completion latency of ONE pointer WRITE per size instead (Fig. 11).",
                "--nic mlx5 (--target cuda): the same sweeps over verbs QPs on a ConnectX, without the wire model "
                        + "(exit 77 without one); --posters runs on the software NIC only.",
                "--posters BLOCKS[xTHREADS]: many posters instead of one (the gda rate poster, pointer payloads): "
                        + "poster t posts to QP t mod --qps, --batch (16) WQEs per doorbell, --window in all "
                        + "(default 256 per QP); records say mode=many-poster.",
                "--wire-gbps (default 200, 0 = none): the software NIC's wire model (docs/design/wire-model.md), "
                        + "ONE port shared by every QP and engine thread; records name it under wire_model and say "
                        + "hardware=false. Timing: docs/design/methods.md.",
                "--preset NAME (marrow presets list): a GPU-submitted library's ordering (--ordering); goodput posts "
                        + "from one thread through one QP with a doorbell per WQE, so a preset needing more QPs, "
                        + "batched doorbells or warp publication is refused with the knob named. Explicit flags "
                        + "override the preset; records carry \"preset\".", RunBounds.HELP})
final class GdaGoodputCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    OutputOptions out;

    @Option(names = "--target", defaultValue = "cpu", converter = CliNames.Targets.class,
            completionCandidates = CliNames.Targets.class, description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    Target target;

    @Option(names = "--ordering", converter = CliNames.Orderings.class, completionCandidates = CliNames.Orderings.class,
            description = "${COMPLETION-CANDIDATES}. Default: release-sys (host-resident queues, docs/design/orderings.md §3)")
    Ordering ordering;

    @Mixin
    NicOption nicOption = new NicOption();

    @Option(names = "--wire-gbps", defaultValue = "200", paramLabel = "GBPS",
            description = "Wire model rate in Gb/s (0: no model). Default: ${DEFAULT-VALUE}")
    double wireGbps;

    @Option(names = "--sizes", paramLabel = "LIST|LO-HI",
            description = "Bytes per WRITE: a list (8,64,4096) or a power-of-two range. Default: 8-4194304, "
                    + "--single-op 8-1048576")
    String sizes;

    @Option(names = "--single-op", description = "Fig. 11: put+completion of one pointer WRITE per size")
    boolean singleOp;

    @Option(names = "--window", description = "WQEs outstanding in all, window / --qps per QP. Default: 128 "
            + "(--posters: 256 per QP)")
    Integer window;

    @Option(names = "--signal-every", defaultValue = "32", description = "Signal every Nth WQE of a QP (at most its window). Default: ${DEFAULT-VALUE}")
    int signalEvery;

    @Option(names = "--qps", defaultValue = "1", description = "QPs the window is spread over, round robin (pipelined mode; 1..16, --posters 1..512). Default: ${DEFAULT-VALUE}")
    int qps;

    @Option(names = "--posters", paramLabel = "BLOCKS[xTHREADS]",
            description = "Many-poster mode: BLOCKS x THREADS posting threads (GPU threads on cuda, pthreads on cpu) "
                    + "run the gda rate poster over --qps QPs (poster t on QP t mod qps); at least --qps posters")
    String posters;

    @Option(names = "--batch", description = "--posters: WQEs per doorbell of each poster, 1..256 (whole batches: "
            + "messages per poster round up to it). Default: 16")
    Integer batch;

    @Mixin
    EngineThreadOptions engine;

    @Option(names = "--bytes-per-point", defaultValue = "268435456",
            description = "Timed payload per size (messages = bytes / size, 64..1000000). Default: ${DEFAULT-VALUE}")
    long bytesPerPoint;

    @Option(names = "--iters", defaultValue = "2000", description = "--single-op: timed operations per size. Default: ${DEFAULT-VALUE}")
    int iters;

    @Option(names = "--warmup", defaultValue = "200", description = "Untimed WRITEs (or operations) first. Default: ${DEFAULT-VALUE}")
    int warmup;

    @Option(names = "--timeout-ms", defaultValue = "5000", description = "Bound of every single wait. Default: ${DEFAULT-VALUE}")
    long timeoutMs;

    @Option(names = "--engine-cpu", defaultValue = "-1", description = "Pin the software NIC engine (one thread) to this CPU. Default: ${DEFAULT-VALUE}")
    int engineCpu;

    @Option(names = "--cuda-device", defaultValue = "0", description = "CUDA device ordinal. Default: ${DEFAULT-VALUE}")
    int cudaDevice;

    @Option(names = "--preset", paramLabel = "NAME",
            description = "A library preset (marrow presets list); explicit flags override its choices")
    String preset;

    /** What --preset set (records carry it); NONE without one. */
    PresetRules.Applied presetApplied = PresetRules.Applied.NONE;

    static final int MAX_SIZE = 4 << 20;

    /** The knobs of gda goodput: those of gda latency (one thread, one QP, a doorbell per WQE). */
    static PresetRules presetRules(GdaGoodputCommand c) {
        return GdaCommand.Latency.oneQpRules("gda goodput", o -> c.ordering = o,
                "rings the doorbell for every WQE of its window");
    }

    @Override
    public Integer call() {
        out.format();
        if (preset != null) {
            presetApplied = presetRules(this).apply(Presets.get(preset), spec.commandLine().getParseResult()::hasMatchedOption);
        }
        boolean many = posters != null;
        if (many && singleOp) {
            throw new IllegalArgumentException("--posters runs the pipelined sweep with many posters; --single-op "
                    + "times one WRITE at a time: give one of them");
        }
        if (!many && batch != null) {
            throw new IllegalArgumentException("--batch belongs to --posters: the one-poster loop rings the doorbell "
                    + "for every WQE");
        }
        int window = this.window != null ? this.window : many ? GdaGoodputPosters.defaultWindow(qps) : 128;
        if ((!many && (window < 1 || window > 256 || signalEvery > window)) || signalEvery < 1 || warmup < 0
                || timeoutMs <= 0 || iters < 1 || bytesPerPoint < 1 || bytesPerPoint > (1L << 30) || wireGbps < 0) {
            throw new IllegalArgumentException("--window 1..256, --signal-every 1..window, --iters >= 1, --warmup >= 0, "
                    + "--timeout-ms > 0, --bytes-per-point 1..1073741824, --wire-gbps >= 0");
        }
        int[] cpus = engineCpus();
        Nic nic = nicOption.nic;
        boolean softNic = nic == Nic.SOFTNIC;
        if (!softNic && many) {
            throw new IllegalArgumentException("--posters runs on gda rate's software-NIC queues; with --nic " + nic
                    + " use gda rate --nic " + nic + " for many posters");
        }
        if (!softNic && spec.commandLine().getParseResult().hasMatchedOption("--wire-gbps")) {
            throw new IllegalArgumentException("--wire-gbps models the software NIC's wire; --nic " + nic
                    + " has a real one");
        }
        if (!softNic) { // whether this machine has the NIC: exit 77 before any record
            Fabric.check(MiniGda.fabricOptions(GdaSetup.defaults(target).withNic(nic)));
        }
        if (many) {
            return runPosters(window, cpus);
        }
        if (!singleOp) {
            GoodputQueues.check(qps, engine.engineThreads, cpus);
        }
        int[] perQp = singleOp ? new int[] {window, signalEvery} : GdaGoodput.perQp(window, signalEvery, qps);
        List<Integer> sz = GoodputMath.sizes(sizes != null ? sizes : singleOp ? "8-1048576" : "8-4194304", MAX_SIZE);
        WireModel wire = WireModel.ofGbps(softNic ? wireGbps : 0);
        Ordering ord = ordering != null ? ordering : OrderingPolicy.defaultFor(Placement.HOST);
        int maxSize = sz.stream().mapToInt(Integer::intValue).max().orElse(8);
        int spinning = (target == Target.CPU ? 1 : 0) + engine.engineThreads;   // poster (cpu) + the NIC engine
        CpuBudget.check(spinning, "poster, NIC engine", spec.commandLine().getErr());
        // room for 4 slots of the largest size, 2 per QP with several QPs (each QP writes its own slice)
        long slotBytes = (maxSize + 4095L) / 4096 * 4096;
        GdaSetup setup = GdaSetup.defaults(target).withNic(nic).withEngineCpu(engineCpu).withCudaDevice(cudaDevice)
                .withPollMode(CpuBudget.pollMode(SoftNic.PollMode.HOT, spinning))
                .withBufferBytes(Math.max(1L << 20, Math.max(4, 2L * qps) * slotBytes));
        List<ResultRecord> records = out.records(); // streamed: each record written as its point completes
        List<Double> gbs = new ArrayList<>();
        List<Integer> done = new ArrayList<>();
        boolean allValid = true;
        String bound = RunBounds.applyDefault(out, sz.size());
        RunProgress progress = out.progress(singleOp ? "gda goodput --single-op" : "gda goodput", sz.size());
        try (MiniGda g = singleOp ? MiniGda.open(setup) : null;
             GoodputQueues q = singleOp ? null : GoodputQueues.open(nic, target, cudaDevice, qps,
                     engine.engineThreads, cpus, setup.pollMode(), setup.bufferBytes())) {
            SoftNic soft = !softNic ? null : g != null ? g.softNic() : q.softNic(); // the wire model's NIC
            if (soft != null) {
                soft.setWire(wire);
            }
            for (int size : sz) {
                if (progress.expired()) {
                    break;
                }
                long timeout = progress.capTimeoutNs(timeoutMs * 1_000_000L);
                SoftNic.WireStats w0 = soft == null ? null : soft.wireStats();
                ResultRecord r;
                if (singleOp) {
                    GdaRun run = g.run(new GdaRunSpec(Experiment.PUT_COMPLETION, ord, Payload.POINTER, size, iters,
                            warmup, timeout));
                    r = GdaRecords.record(List.of(run)).param("sweep", "single-op put+completion vs size (Fig. 11)");
                    allValid &= run.valid();
                    r.param("wire_model", wire.describe());
                } else {
                    long messages = GoodputMath.messagesFor(size, bytesPerPoint, 64, 1_000_000);
                    GdaGoodput.Run run = GdaGoodput.run(q, new GdaGoodput.Spec(ord, size, perQp[0], perQp[1],
                            messages, warmup, timeout));
                    allValid &= run.valid();
                    r = new ResultRecord("gda.goodput", setup.backendName(), nic.hardware() && target == Target.CUDA)
                            .param("target", target.label()).param("nic", nic.label()).param("ordering", ord.label())
                            .param("payload", Payload.POINTER.label()).param("size_bytes", size)
                            .param("qps", qps).param("engine_threads", engine.engineThreads)
                            .param("engine_cpus", cpus == null ? List.of() : Arrays.stream(cpus).boxed().toList())
                            .param("poster_threads", 1).param("window", window).param("window_per_qp", perQp[0])
                            .param("signal_every", signalEvery).param("signal_every_per_qp", perQp[1])
                            .param("messages", messages).param("warmup", warmup)
                            .param("buffer_bytes", setup.bufferBytes())
                            .metric("goodput_gbps", ResultRecord.round(run.gbPerS(), 4))
                            .metric("messages_per_s", Math.round(run.messagesPerS()))
                            .metric("timed_ns", run.timedNs()).metric("doorbells", run.doorbells())
                            .metric("cqes", run.cqes()).metric("slots_checked", run.slots())
                            .metric("payload_errors", run.payloadErrors()).metric("valid", run.valid())
                            .metric("emu_wqe_rdma_write", run.emuCounters().getOrDefault("emu_wqe_rdma_write", 0L));
                    GoodputMath.tagWire(r, wire, size, run.gbPerS());
                    if (wire.enabled()) {
                        r.param("wire_model_scope", "one port: the " + qps + " QP(s) and " + engine.engineThreads
                                + " engine thread(s) of this software NIC serialise through one " + wireGbps
                                + " Gb/s link");
                    }
                    gbs.add(run.gbPerS());
                    done.add(size);
                }
                if (soft != null && wire.enabled()) {
                    SoftNic.WireStats w1 = soft.wireStats();
                    r.metric("wire_bytes", w1.wireBytes() - w0.wireBytes()).metric("wire_cqe_hold_ns", w1.heldNs() - w0.heldNs());
                }
                tagProvenance(r);
                CpuBudget.tag(r, spinning);
                CpuBudget.tagPollMode(r, SoftNic.PollMode.HOT, spinning);
                records.add(r);
                progress.step();
            }
        } catch (NativeException e) {
            progress.close();
            throw e;
        }
        progress.close();
        if (!singleOp && !records.isEmpty()) {
            ResultRecord s = GoodputMath.summary("gda.goodput", setup.backendName(), wire, done, gbs, records);
            tagProvenance(s);
            records.add(s);
        }
        CliErrors.requireRecords(records, progress, sz.size() + " size point(s)", bound);
        progress.tag(records);
        out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr());
        if (!allValid) {
            spec.commandLine().getErr().println("marrow: FAILED rows have valid=false: wrong bytes delivered (payload_errors)");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    /** --posters: one many-poster run per size (GdaGoodputPosters), then the summary, as the one-poster sweep. */
    private Integer runPosters(int window, int[] cpus) {
        int[] shape = GdaGoodputPosters.parseShape(posters);
        List<Integer> sz = GoodputMath.sizes(sizes != null ? sizes : "8-4194304", MAX_SIZE);
        Ordering ord = ordering != null ? ordering : OrderingPolicy.defaultFor(Placement.HOST);
        GdaGoodputPosters p = new GdaGoodputPosters(target, shape[0], shape[1], qps, batch != null ? batch : 16,
                window, signalEvery, engine.engineThreads, cpus, ord, warmup, cudaDevice).check(sz, bytesPerPoint);
        WireModel wire = WireModel.ofGbps(wireGbps);
        if (target == Target.CUDA) {
            Backend.CUDA.ensureAvailability(); // exit 77 before any warning about host threads
        }
        CpuBudget.check(p.spinning(), "posters, NIC engine", spec.commandLine().getErr());
        List<ResultRecord> records = out.records(); // streamed: each record written as its point completes
        List<Double> gbs = new ArrayList<>();
        List<Integer> done = new ArrayList<>();
        boolean allValid = true;
        String bound = RunBounds.applyDefault(out, sz.size());
        RunProgress progress = out.progress("gda goodput --posters", sz.size());
        try {
            for (int size : sz) {
                if (progress.expired()) {
                    break;
                }
                GdaGoodputPosters.Point pt = p.run(size, bytesPerPoint, progress.capTimeoutNs(timeoutMs * 1_000_000L),
                        wire, wireGbps);
                ResultRecord r = pt.record();
                tagProvenance(r);
                CpuBudget.tag(r, p.spinning());
                CpuBudget.tagPollMode(r, SoftNic.PollMode.HOT, p.spinning());
                records.add(r);
                gbs.add(pt.gbPerS());
                done.add(size);
                allValid &= pt.valid();
                progress.step();
            }
        } catch (RuntimeException e) {
            progress.close();
            throw e;
        }
        progress.close();
        if (!records.isEmpty()) {
            ResultRecord s = GoodputMath.summary("gda.goodput", target.label() + "+softnic", wire, done, gbs,
                    records);
            tagProvenance(s);
            records.add(s);
        }
        CliErrors.requireRecords(records, progress, sz.size() + " size point(s)", bound);
        progress.tag(records);
        out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr());
        if (!allValid) {
            spec.commandLine().getErr().println("marrow: FAILED rows have valid=false: wrong bytes delivered "
                    + "(payload_errors) or a WRITE count that differs from the WQEs posted");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    /**
     * The engine CPUs: --engine-cpus, or --engine-cpu as a one-thread list
     * (pipelined mode); refuses the combinations that mean nothing.
     */
    private int[] engineCpus() {
        if (singleOp && (qps != 1 || engine.engineThreads != 1 || engine.engineCpus != null)) {
            throw new IllegalArgumentException("--single-op times one WRITE on one QP with one engine thread: "
                    + "--qps, --engine-threads and --engine-cpus belong to the pipelined mode (use --engine-cpu)");
        }
        if (engineCpu >= 0 && engine.engineCpus != null) {
            throw new IllegalArgumentException("--engine-cpu and --engine-cpus both given: give one");
        }
        CpuBudget.checkCpus("--engine-cpu", engineCpu);
        CpuBudget.checkCpus("--engine-cpus", engine.engineCpus);
        if (engineCpu >= 0 && engine.engineThreads != 1) {
            throw new IllegalArgumentException("--engine-cpu pins one engine thread; with --engine-threads "
                    + engine.engineThreads + " give --engine-cpus (one CPU per thread)");
        }
        if (singleOp) {
            return null;
        }
        return engine.engineCpus != null ? engine.engineCpus : engineCpu >= 0 ? new int[] {engineCpu} : null;
    }

    private void tagProvenance(ResultRecord r) {
        presetApplied.tag(r);
        if (target == Target.CUDA) {
            r.param("gpu_hardware", true).param("nic_hardware", nicOption.nic.hardware());
        }
    }
}
