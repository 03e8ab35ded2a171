// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.WireModel;
import dev.marrow.peer.PeerAddress;
import dev.marrow.presets.PresetRules;
import dev.marrow.proxy.GpuProducers;
import dev.marrow.proxy.Handoff;
import dev.marrow.proxy.MiniProxy;
import dev.marrow.proxy.ProxyConfig;
import dev.marrow.proxy.ProxyPeer;
import dev.marrow.proxy.RateResult;
import dev.marrow.results.ResultRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** proxy goodput: pipelined WRITE goodput vs size through the mini-proxy (Fig. 8's proxy curves). */
@Command(name = "goodput", mixinStandardHelpOptions = true,
        description = {"mini-proxy goodput on the software NIC: producers keep the rings full (the rate "
                + "experiment's loop) with WRITEs of each size; GB/s of payload per size and the first size reaching "
                + "90 %% of the wire model's line rate (\"GPU-Initiated Communication: Dissecting Down to the Bone\" "
                + "Fig. 8).",
                "Timed: first enqueue -> last completion seen; every destination window is checked (verify_errors).",
                "Large sizes shrink the ring (slots) so that rings x slots x size stays within --max-buffer-mib.",
                "--wire-gbps (default 200, 0 = none): docs/design/wire-model.md, ONE port shared by every QP "
                        + "and engine thread; records say hardware=false.",
                "Scaling: each worker owns one QP (records: qps = --workers), and the QPs are sharded over "
                        + "--engine-threads software NIC engine threads.",
                "--preset NAME (marrow presets list): a proxy library's workers, rings (per PE, or per worker: "
                        + "R = that x T), batch and producer, as proxy rate takes them; a preset needing a knob "
                        + "goodput lacks is refused with the knob named. Explicit flags override the preset; "
                        + "records carry \"preset\".",
                "--peer or a launcher's environment: the WRITEs land in a second process's inbox (software NIC, "
                        + "shared-memory wire; docs/design/two-process.md section 9); the responder counts them.", RunBounds.HELP})
final class ProxyGoodputCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    OutputOptions out;
    @Mixin
    ProxyCommand.Common common;

    @Option(names = "--handoff", defaultValue = "tuned", converter = CliNames.Handoffs.class,
            completionCandidates = CliNames.Handoffs.class, description = "${COMPLETION-CANDIDATES}. Default: ${DEFAULT-VALUE}")
    CliNames.HandoffChoice handoff;

    @Option(names = "--workers", defaultValue = "1", description = "T. Default: ${DEFAULT-VALUE}")
    int workers;

    @Option(names = "--rings", defaultValue = "2", description = "R. Default: ${DEFAULT-VALUE}")
    int rings;

    @Option(names = "--batch", defaultValue = "16", description = "B. Default: ${DEFAULT-VALUE}")
    int batch;

    @Option(names = "--producers", defaultValue = "0", description = "Producer threads (0: one per ring; cpu: capped by free cores). Default: ${DEFAULT-VALUE}")
    int producers;

    @Option(names = "--wire-gbps", defaultValue = "200", paramLabel = "GBPS",
            description = "Wire model rate in Gb/s (0: no model). Default: ${DEFAULT-VALUE}")
    double wireGbps;

    @Option(names = "--sizes", paramLabel = "LIST|LO-HI",
            description = "Bytes per WRITE (multiples of 8): a list or a power-of-two range. Default: 8-4194304")
    String sizes;

    @Option(names = "--bytes-per-point", defaultValue = "268435456",
            description = "Timed payload per size (messages = bytes / size, 256..2000000). Default: ${DEFAULT-VALUE}")
    long bytesPerPoint;

    @Option(names = "--warmup-fraction", defaultValue = "0.1", description = "Untimed messages first, as a fraction of the timed ones. Default: ${DEFAULT-VALUE}")
    double warmupFraction;

    @Option(names = "--max-buffer-mib", defaultValue = "256", description = "Bound of the registered buffer per point. Default: ${DEFAULT-VALUE}")
    int maxBufferMib;

    /** A preset's rings per worker: R = this x T (null: --rings). */
    Integer ringsPerWorker;

    /** The knobs of proxy goodput: proxy rate's layout (T, B, R) and the producer. */
    static PresetRules presetRules(ProxyGoodputCommand c) {
        return c.common.layoutRules("proxy goodput", v -> c.workers = v, v -> c.batch = v, v -> c.rings = v,
                v -> c.ringsPerWorker = v);
    }

    @Override
    public Integer call() {
        out.format();
        common.applyPreset(presetRules(this), spec);
        if (ringsPerWorker != null) {
            rings = ringsPerWorker * workers;
        }
        common.validate();
        if (workers < 1 || rings < workers || batch < 1 || bytesPerPoint < 1 || bytesPerPoint > (1L << 30) || wireGbps < 0
                || maxBufferMib < 1 || maxBufferMib > 4096
                || !(warmupFraction >= 0 && warmupFraction <= 10)) {
            throw new IllegalArgumentException("--workers >= 1, --rings >= workers, --batch >= 1, --bytes-per-point 1..1073741824, "
                    + "--wire-gbps >= 0, --max-buffer-mib 1..4096, --warmup-fraction 0..10");
        }
        List<Integer> sz = GoodputMath.sizes(sizes != null ? sizes : "8-4194304", 64 << 20);
        for (int s : sz) {
            if (s % 8 != 0) {
                throw new IllegalArgumentException("--sizes: " + s + " is not a multiple of 8 (the proxy's WRITEs)");
            }
        }
        WireModel wire = WireModel.ofGbps(wireGbps);
        boolean gpu = common.producer == CliNames.Producer.CUDA;
        Handoff h = handoff.handoffs.getFirst();
        if (h == Handoff.TUNED && producers > rings) {
            throw new IllegalArgumentException("--handoff tuned allows one producer per ring: --producers " + producers
                    + " > --rings " + rings);
        }
        PeerAddress addr = common.peerAddress();
        if (addr != null && !common.initiator) {
            return common.serve(addr, out, spec);
        }
        List<Double> gbs = new ArrayList<>();
        List<Integer> done = new ArrayList<>();
        boolean allValid = true;
        String bound = RunBounds.applyDefault(out, sz.size());
        RunProgress progress = out.progress("proxy goodput", sz.size());
        ProxyPeer peer = common.openPeer(addr, spec);
        // streamed: each record written as its size completes (the header, with the peer's environment, with the first)
        List<ResultRecord> records = out.records(x -> { }, peer == null ? null : peer::peerEnvironment);
        try {
        for (int size : sz) {
            if (progress.expired()) {
                break;
            }
            int p = producers > 0 ? producers : rings;
            if (!gpu && producers == 0) {
                int free = Runtime.getRuntime().availableProcessors() - workers - common.engineThreads;
                p = Math.max(1, Math.min(rings, free));
            }
            long messages = GoodputMath.messagesFor(size, bytesPerPoint, 256, 2_000_000);
            long perProducer = Math.max(1, messages / p);
            long warmPer = (long) (perProducer * warmupFraction);
            int logSlots = logSlotsFor(size);
            long minBuffer = MiniProxy.bufferBytes(rings, logSlots, size);
            int spinning = (gpu ? 0 : p) + workers + common.engineThreads * (peer != null ? 2 : 1);
            ProxyConfig cfg = common.config(workers, rings, batch, h, minBuffer, spinning).withLogSlots(logSlots);
            try (MiniProxy px = MiniProxy.open(cfg, peer)) {
                px.softNic().ifPresent(n -> n.setWire(wire));
                GpuProducers g = gpu ? px.openGpu(common.gpu, h, common.gdrcopy) : null;
                try {
                    px.start();
                    px.precondition(common.precondition());
                    long timeoutNs = progress.capTimeoutNs(common.timeoutNs());
                    SoftNic.WireStats w0 = px.softNic().map(SoftNic::wireStats).orElse(null);
                    RateResult res = g != null ? g.rate(p, perProducer, warmPer, size, timeoutNs)
                            : px.cpuRate(p, perProducer, warmPer, size, timeoutNs);
                    double gbPerS = res.elapsedNs() == 0 ? 0 : (double) res.messages() * size / res.elapsedNs();
                    long nonzero = peer != null ? px.finishPeer() : -1;
                    // two processes: the destination is the responder's; it counts what arrived
                    boolean valid = peer != null ? nonzero > 0 : res.verifyErrors() == 0;
                    allValid &= valid;
                    ResultRecord rec = common.record("proxy.goodput", px, h)
                            .param("workers", workers).param("rings", rings).param("batch", batch)
                            .param("producers", p).param("qps", workers).param("engine_threads", common.engineThreads)
                            .param("size_bytes", size).param("log_slots", logSlots)
                            .param("messages", res.messages())
                            .metric("goodput_gbps", ResultRecord.round(gbPerS, 4))
                            .metric("rate_mmsg_s", ResultRecord.round(res.rateMmsgPerSec(), 3))
                            .metric("elapsed_ns", res.elapsedNs())
                            .metric("chain_len_mean", ResultRecord.round(res.meanChainLength(), 2))
                            .metric("valid", valid);
                    if (peer == null) {
                        rec.metric("verify_errors", res.verifyErrors());
                    } else {
                        common.tagPeer(rec, peer, px, nonzero);
                        if (!px.hardware()) {
                            rec.param("wire_model_scope", "this process's NIC (the initiator's WRITEs)");
                        }
                    }
                    if (!px.hardware()) {
                        GoodputMath.tagWire(rec, wire, size, gbPerS);
                        if (peer == null && wire.enabled()) {
                            rec.param("wire_model_scope", "one port: the " + workers + " QP(s) (one per worker) and "
                                    + common.engineThreads + " engine thread(s) of this software NIC serialise "
                                    + "through one " + wireGbps + " Gb/s link");
                        }
                        SoftNic.WireStats w1 = px.softNic().orElseThrow().wireStats();
                        if (wire.enabled() && w0 != null) {
                            rec.metric("wire_cqe_hold_ns", w1.heldNs() - w0.heldNs());
                        }
                    }
                    if (gpu) {
                        rec.param("gpu_hardware", true).param("nic_hardware", px.hardware());
                    }
                    CpuBudget.tag(rec, spinning);
                    CpuBudget.tagPollMode(rec, common.poll, spinning);
                    records.add(rec);
                    gbs.add(gbPerS);
                    done.add(size);
                } finally {
                    if (g != null) {
                        g.close();
                    }
                }
            }
            progress.step();
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
        if (!records.isEmpty()) {
            records.add(GoodputMath.summary("proxy.goodput", records.getFirst().backend(), wire, done, gbs,
                    records));
        }
        CliErrors.requireRecords(records, progress, sz.size() + " size point(s)", bound);
        progress.tag(records);
        out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr(),
                peer != null ? peer.peerEnvironment() : Map.of());
        if (!allValid) {
            spec.commandLine().getErr().println(peer != null
                    ? "marrow: FAILED rows have valid=false: the responder's inbox held no delivered byte"
                    : "marrow: FAILED rows have valid=false: wrong bytes delivered (verify_errors)");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    /** The configured slots per ring, fewer when rings x slots x size would pass --max-buffer-mib. */
    int logSlotsFor(int size) {
        long budget = (long) maxBufferMib << 20;
        int l = common.logSlots;
        while (l > 1 && 2L * rings * (1L << l) * size > budget) {
            l--;
        }
        return l;
    }
}
