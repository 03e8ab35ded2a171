// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.NativeException;
import dev.marrow.kcost.Arm;
import dev.marrow.kcost.Caller;
import dev.marrow.kcost.KcostMeasurement;
import dev.marrow.kcost.KcostPoint;
import dev.marrow.kcost.KcostRecords;
import dev.marrow.kcost.KcostSettings;
import dev.marrow.kcost.KernelCost;
import dev.marrow.kcost.Transport;
import dev.marrow.results.ResultRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** What carrying, executing and waiting for communication code costs the kernel around it. */
@Command(name = "kernel-cost", mixinStandardHelpOptions = true,
        description = {"Cost to the enclosing kernel (\"GPU-Initiated Communication: Dissecting Down to the Bone\" "
                + "§4.3.2, Fig. 9, Table 14): a compute (FMA) and a streaming (memory-bound) caller, --blocks x "
                + "--threads, each thread keeping --live values in registers, built without communication code "
                + "(the baseline) and with mini-gda or mini-proxy inlined.",
                "Arms (one build, kernel arguments differ): dormant = compiled in, guarded by a zero kernel "
                + "argument; send = thread 0 of each block submits --msgs messages spread over the work, its "
                + "warp computes on; send-wait = it waits for each completion first. Completions left by send "
                + "are drained by an untimed kernel after each launch.",
                "Timed: each launch with cudaEvents; --warmup untimed launches first; the point's time is the "
                + "nearest-rank median of --launches. Reported per point: slowdown and throughput loss against "
                + "the baseline, waiting loss (send-wait vs send), registers per thread and local (spill) bytes "
                + "(cudaFuncGetAttributes), blocks per SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor).",
                "The GPU is real; the NIC of the mini-gda arms is --nic: the software NIC (sending arms: "
                + "\"hardware\": false, \"nic_hardware\": false) or mlx5 (a ConnectX; exit 77 without one); the "
                + "proxy arms run on the software NIC. The baseline and dormant arms use no NIC. Needs a CUDA GPU "
                + "(exit 77 without one).", RunBounds.HELP})
public final class KernelCostCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    OutputOptions out;

    @Option(names = "--transport", split = ",", converter = Transports.class, completionCandidates = Transports.class,
            description = "Comma list of ${COMPLETION-CANDIDATES}. Default: gda,proxy")
    List<Transport> transports;

    @Option(names = "--caller", split = ",", converter = Callers.class, completionCandidates = Callers.class,
            description = "Comma list of ${COMPLETION-CANDIDATES}. Default: compute,stream")
    List<Caller> callers;

    @Option(names = "--arms", split = ",", converter = Arms.class, completionCandidates = Arms.class,
            description = "Comma list of ${COMPLETION-CANDIDATES}. Default: all three")
    List<Arm> arms;

    @Option(names = "--live", split = ",", defaultValue = "32,160,224",
            description = "Live values per thread (the library's built set). Default: ${DEFAULT-VALUE}")
    List<Integer> live;

    @Option(names = "--msgs", split = ",", defaultValue = "1,4,16",
            description = "Messages per block per launch for the sending arms (each must divide the kernel's "
                    + "segment count, 16). Default: ${DEFAULT-VALUE}")
    List<Integer> msgs;

    @Option(names = "--sizes", split = ",", defaultValue = "8,7168",
            description = "Message sizes in bytes (mini-gda: 8 B and below inline, larger one pointer "
                    + "segment). Default: ${DEFAULT-VALUE}")
    List<Integer> sizes;

    @Option(names = "--blocks", defaultValue = "528", description = "Grid size. Default: ${DEFAULT-VALUE}")
    int blocks;

    @Option(names = "--threads", defaultValue = "256", description = "Threads per block. Default: ${DEFAULT-VALUE}")
    int threads;

    @Option(names = "--compute-work", defaultValue = "524288",
            description = "FMAs per thread of the compute caller. Default: ${DEFAULT-VALUE}")
    long computeWork;

    @Option(names = "--stream-work", defaultValue = "16384",
            description = "Streamed floats per thread of the streaming caller. Default: ${DEFAULT-VALUE}")
    long streamWork;

    @Option(names = "--launches", defaultValue = "15", description = "Timed launches per point. Default: ${DEFAULT-VALUE}")
    int launches;

    @Option(names = "--warmup", defaultValue = "3", description = "Untimed launches first. Default: ${DEFAULT-VALUE}")
    int warmup;

    @Option(names = "--timeout-ms", defaultValue = "5000", description = "Bound of every device-side wait. Default: ${DEFAULT-VALUE}")
    long timeoutMs;

    @Mixin
    NicOption nicOption = new NicOption();

    @Option(names = "--cuda-device", defaultValue = "0", description = "CUDA device ordinal. Default: ${DEFAULT-VALUE}")
    int cudaDevice;

    @Option(names = "--engine-cpu", defaultValue = "-1",
            description = "Pin the mini-gda QPs' software NIC engine to this CPU and the mini-proxy's to the "
                    + "next one. Default: ${DEFAULT-VALUE} (unpinned)")
    int engineCpu;

    @Option(names = "--proxy-workers", defaultValue = "4", description = "mini-proxy workers. Default: ${DEFAULT-VALUE}")
    int proxyWorkers;

    @Option(names = "--proxy-rings", defaultValue = "32", description = "mini-proxy rings. Default: ${DEFAULT-VALUE}")
    int proxyRings;

    static final class Transports extends CliNames.FlagWords<Transport> {
        Transports() {
            super("--transport", new Transport[] {Transport.GDA, Transport.PROXY}, Transport::label);
        }
    }

    static final class Callers extends CliNames.FlagWords<Caller> {
        Callers() {
            super("--caller", Caller.values(), Caller::label);
        }
    }

    static final class Arms extends CliNames.FlagWords<Arm> {
        Arms() {
            super("--arms", new Arm[] {Arm.DORMANT, Arm.SEND, Arm.SEND_WAIT},
                    a -> a == Arm.SEND ? "send" : a == Arm.SEND_WAIT ? "send-wait" : "dormant");
        }
    }

    /** Every usage error, before any device is touched. */
    KcostSettings settings(int segments) {
        for (int v : live) {
            if (v < 1) {
                throw new IllegalArgumentException("--live values must be >= 1, not " + v);
            }
        }
        for (int m : msgs) {
            if (m < 1 || (segments > 0 && segments % m != 0)) {
                throw new IllegalArgumentException("--msgs values must be >= 1" + (segments > 0
                        ? " and divide " + segments : "") + ", not " + m);
            }
        }
        for (int z : sizes) {
            if (z < 1) {
                throw new IllegalArgumentException("--sizes values must be >= 1, not " + z);
            }
        }
        if (proxyWorkers < 1 || proxyRings < 1) {
            throw new IllegalArgumentException("--proxy-workers and --proxy-rings must be >= 1");
        }
        return new KcostSettings(blocks, threads, computeWork, streamWork, launches, warmup, timeoutMs * 1_000_000L,
                cudaDevice, proxyWorkers, proxyRings, segments, engineCpu, nicOption.nic);
    }

    /** The points in run order: per caller and live count the baseline, then each transport's arms. */
    List<KcostPoint> points() {
        List<Transport> ts = transports == null || transports.isEmpty() ? List.of(Transport.GDA, Transport.PROXY) : transports;
        List<Caller> cs = callers == null || callers.isEmpty() ? List.of(Caller.values()) : callers;
        List<Arm> as = arms == null || arms.isEmpty() ? List.of(Arm.DORMANT, Arm.SEND, Arm.SEND_WAIT) : arms;
        List<KcostPoint> pts = new ArrayList<>();
        for (Caller c : cs) {
            for (int n : live) {
                pts.add(KcostPoint.absent(c, n));
                for (Transport t : ts) {
                    if (as.contains(Arm.DORMANT)) {
                        pts.add(KcostPoint.dormant(c, n, t));
                    }
                    for (int m : msgs) {
                        for (int z : sizes) {
                            for (Arm a : List.of(Arm.SEND, Arm.SEND_WAIT)) {
                                if (as.contains(a)) {
                                    pts.add(new KcostPoint(c, n, t, a, m, z));
                                }
                            }
                        }
                    }
                }
            }
        }
        return pts;
    }

    @Override
    public Integer call() {
        out.format();
        settings(0);                 // usage errors first, without the library
        List<KcostPoint> pts = points();
        int maxSize = sizes.stream().mapToInt(Integer::intValue).max().orElse(8);
        KcostSettings s;
        List<ResultRecord> records;
        boolean allValid = true;
        KernelCost kc = KernelCost.open(settings(0), maxSize);   // exit 77 here without a GPU
        try {
            s = settings(KernelCost.segments());
            List<Integer> built = KernelCost.liveValues();
            for (int v : live) {
                if (!built.contains(v)) {
                    throw new IllegalArgumentException("--live " + v + " is not built; the library has " + built);
                }
            }
            CpuBudget.check(s.proxyWorkers() + 1, "software NIC engine, proxy workers", spec.commandLine().getErr());
            String bound = RunBounds.applyDefault(out, pts.size());
            RunProgress progress = out.progress("kernel-cost", pts.size());
            records = out.records(); // streamed: each record written as its point completes
            Map<String, KcostMeasurement> baseline = new HashMap<>();
            Map<String, KcostMeasurement> send = new HashMap<>();
            for (KcostPoint p : pts) {
                if (progress.expired()) {
                    break;
                }
                String key = p.caller() + "/" + p.live();
                String sendKey = key + "/" + p.transport() + "/" + p.msgs() + "/" + p.msgSize();
                KcostMeasurement m;
                try {
                    m = kc.run(p);
                } catch (NativeException e) {
                    // a failed device wait or CUDA call: the point is recorded as failed, the rest of
                    // the run goes on over fresh queues (the failed ones may hold unconsumed work)
                    records.add(KcostRecords.failed(p, s, e.getMessage()));
                    allValid = false;
                    progress.step();
                    kc.close();
                    kc = KernelCost.open(settings(0), maxSize);
                    continue;
                }
                progress.step();
                if (p.arm() == Arm.ABSENT) {
                    baseline.put(key, m);
                }
                if (p.arm() == Arm.SEND) {
                    send.put(sendKey, m);
                }
                if (baseline.get(key) == null) {
                    records.add(KcostRecords.failed(p, s, "no baseline: the kernel without communication code "
                            + "failed at this caller and live-value count"));
                    allValid = false;
                    continue;
                }
                ResultRecord r = KcostRecords.record(m, baseline.get(key), send.get(sendKey), s);
                if (p.arm().sends()) { // hot-polling CPU threads serve the messages
                    CpuBudget.tag(r, p.transport() == Transport.PROXY ? s.proxyWorkers() + 1 : 1);
                }
                allValid &= Boolean.TRUE.equals(r.metric("valid"));
                records.add(r);
            }
            progress.close();
            CliErrors.requireRecords(records, progress, pts.size() + " point(s)", bound);
        } finally {
            kc.close();
        }
        out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr());
        if (!allValid) {
            spec.commandLine().getErr().println("marrow: FAILED rows have valid=false: a device-side wait or "
                    + "CUDA call failed (error), or messages submitted and completions seen differ");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

}
