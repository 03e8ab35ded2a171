// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.softnic.WireModel;
import dev.marrow.peer.PeerAddress;
import dev.marrow.presets.Knob;
import dev.marrow.presets.PresetRules;
import dev.marrow.proxy.Handoff;
import dev.marrow.proxy.MiniProxy;
import dev.marrow.proxy.ProxyConfig;
import dev.marrow.proxy.ProxyLoaded;
import dev.marrow.proxy.ProxyPeer;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** proxy loaded: 8 B probe round trip while background producers stream (Fig. 6 / Table 11). */
@Command(name = "loaded", mixinStandardHelpOptions = true,
        description = {"mini-proxy round trip under load on the software NIC: an 8-byte probe round trip on ring 0 "
                + "(p50/p99/p999) while N background producer threads stream 8-byte WRITEs into the probe's ring "
                + "(shared; baseline handoff, several producers per ring) or into rings of their own (reserved); the "
                + "background rate carried during the probe is reported beside it (\"GPU-Initiated Communication: "
                + "Dissecting Down to the Bone\" Fig. 6, Table 11).",
                "CPU producers (--producer cuda is a seam, not written yet). Timing: docs/design/methods.md.",
                "--peer or a launcher's environment: PE 1 is a second process (software NIC, shared-memory wire; "
                        + "docs/design/two-process.md section 9).",
                "--preset NAME (marrow presets list): a proxy library's workers (--workers) and batch (--batch), "
                        + "as proxy latency takes them for the probe; producers are CPU threads and the probe's PE "
                        + "has one ring, so a preset with a GPU producer or other rings is refused with the knob "
                        + "named. Explicit flags override the preset; every record carries \"preset\".", RunBounds.HELP})
final class ProxyLoadedCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    OutputOptions out;
    @Mixin
    ProxyCommand.Common common;
    @Mixin
    LoadedOptions load;

    @Option(names = "--workers", defaultValue = "1", description = "T. Default: ${DEFAULT-VALUE}")
    int workers;

    @Option(names = "--rings", defaultValue = "0", description = "R (0: 2 + the most background streams, at least 3). Default: ${DEFAULT-VALUE}")
    int rings;

    @Option(names = "--batch", defaultValue = "16", description = "B. Default: ${DEFAULT-VALUE}")
    int batch;

    @Option(names = "--handoff", defaultValue = "baseline", paramLabel = "baseline|tuned",
            description = "Handoff for every ring (shared needs baseline). Default: ${DEFAULT-VALUE}")
    String handoff;

    @Option(names = "--iters", defaultValue = "2000", description = "Timed probe round trips per point. Default: ${DEFAULT-VALUE}")
    int iters;

    @Option(names = "--warmup", defaultValue = "200", description = "Untimed probes first. Default: ${DEFAULT-VALUE}")
    int warmup;

    /**
     * The knobs of proxy loaded: those of proxy latency for its probe (one producer, ring 0 out and
     * ring 1 back), with CPU producers only; the background's rings are --queue's and --rings'.
     */
    static PresetRules presetRules(ProxyLoadedCommand c) {
        return ProxyCommand.Latency.oneProducerRules(ProxyCommand.Common.chainingRules("proxy loaded")
                        .fixed(Knob.PRODUCER, "cpu", "has CPU producers only (GPU background producers are not "
                                + "written yet)"),
                v -> c.workers = v, v -> c.batch = v);
    }

    @Override
    public Integer call() {
        out.format();
        common.applyPreset(presetRules(this), spec);
        common.validate();
        if (common.producer != CliNames.Producer.CPU) {
            throw new IllegalArgumentException("proxy loaded: --producer cpu only so far (GPU background producers "
                    + "are not written yet)");
        }
        Handoff h = switch (handoff) {
            case "baseline" -> Handoff.BASELINE;
            case "tuned" -> Handoff.TUNED;
            default -> throw new IllegalArgumentException("--handoff must be baseline or tuned, not \"" + handoff + "\"");
        };
        List<Integer> bgs = load.backgrounds(ProxyLoaded.MAX_STREAMS);
        List<String> queues = load.queues();
        if (iters < 1 || warmup < 0 || workers < 1 || batch < 1 || load.wireGbps < 0) {
            throw new IllegalArgumentException("--iters >= 1, --warmup >= 0, --workers >= 1, --batch >= 1, --wire-gbps >= 0");
        }
        int maxBg = bgs.stream().mapToInt(Integer::intValue).max().orElse(0);
        int r = rings > 0 ? rings : Math.max(3, Math.max(workers, 2 + maxBg));
        if (r < Math.max(2, workers)) {
            throw new IllegalArgumentException("--rings must be >= max(2, workers)");
        }
        boolean anyBackground = maxBg > 0;
        if (h == Handoff.TUNED && anyBackground && queues.contains("shared")) {
            throw new IllegalArgumentException("a shared ring has several producers: use --handoff baseline "
                    + "(tuned allows one producer per ring)");
        }
        if (anyBackground && queues.contains("reserved") && (r < 3 || (h == Handoff.TUNED && maxBg > r - 2))) {
            throw new IllegalArgumentException("reserved background rings are 2..R-1: --rings " + r + " is too few for "
                    + maxBg + " streams" + (h == Handoff.TUNED ? " with the tuned handoff" : ""));
        }
        long pace = load.paceMsgsPerS();
        WireModel wire = WireModel.ofGbps(load.wireGbps);
        PeerAddress addr = common.peerAddress();
        if (addr != null && !common.initiator) {
            return common.serve(addr, out, spec);
        }
        String bound = RunBounds.applyDefault(out, (long) bgs.size() * queues.size());
        RunProgress progress = out.progress("proxy loaded", (long) bgs.size() * queues.size());
        ProxyPeer peer = common.openPeer(addr, spec);
        // streamed: each record written as its point completes (the header, with the peer's environment, with the first)
        List<ResultRecord> records = out.records(x -> { }, peer == null ? null : peer::peerEnvironment);
        boolean peerFailed = false;
        try {
        run:
        for (String qn : queues) {
            for (int n : bgs) {
                if (progress.expired()) {
                    break run;
                }
                if (n == 0 && qn.equals("reserved") && queues.size() > 1) {
                    progress.step();
                    continue;
                }
                // probe, responder, streams, workers, engine; two processes: the peer's engine and proxy worker too
                int spinning = 2 + n + workers + common.engineThreads + (peer != null ? common.engineThreads + 1 : 0);
                CpuBudget.check(spinning, "probe, responder, background producers, workers, NIC engine",
                        spec.commandLine().getErr());
                long minBuffer = Math.max(ProxyLoaded.bufferBytes(n), MiniProxy.bufferBytes(r, common.logSlots, 8));
                ProxyConfig cfg = common.config(workers, r, batch, h, minBuffer, spinning);
                ProxyLoaded.Run run;
                String backend;
                boolean hardware;
                String nicName;
                long nonzero = -1;
                String connection = null;
                try (MiniProxy px = MiniProxy.open(cfg, peer, peer != null)) {
                    px.softNic().ifPresent(nic -> nic.setWire(wire));
                    px.start();
                    px.precondition(common.precondition());
                    run = ProxyLoaded.run(px, qn.equals("shared"), n, pace, iters, warmup,
                            progress.capTimeoutNs(common.timeoutNs()));
                    backend = px.hardware() ? "verbs" : "softnic";
                    hardware = px.hardware();
                    nicName = px.hardware() ? px.nicName() : "softnic (EMULATED)";
                    if (peer != null) {
                        nonzero = px.finishPeer();
                        connection = px.peerConnection();
                    }
                }
                Stats st = run.stats();
                ResultRecord rec = new ResultRecord("proxy.loaded", backend, hardware)
                        .param("nic", nicName).param("producer", "cpu").param("handoff", h.label())
                        .param("workers", workers).param("rings", r).param("batch", batch)
                        .param("queue", n == 0 ? "idle" : qn).param("background_streams", n)
                        .param("pace_msgs_per_s", pace).param("probe_size_bytes", 8).param("background_size_bytes", 8)
                        .param("iters", iters).param("warmup", warmup)
                        .param("hosts", peer != null && common.nic == CliNames.ProxyNic.VERBS ? 2 : 1)
                        .param("percentiles", Stats.PERCENTILE_DEFINITION);
                common.presetApplied.tag(rec);
                if (!hardware) {
                    rec.param("wire_model", wire.describe());
                }
                if (peer != null) {
                    common.tagPeer(rec, peer, connection, nonzero);
                    rec.param("probe_round_trip", "PE 1 is the responder process: its own proxy answers each probe "
                            + "on its ring 1, through its own QP to this process's buffer");
                    if (!hardware) {
                        rec.param("wire_model_scope", "this process's NIC (the responder's replies are not modelled)");
                    }
                    peerFailed |= nonzero <= 0;
                }
                rec.metric("probe_p50_ns", st.p50()).metric("probe_p99_ns", st.p99()).metric("probe_p999_ns", st.p999())
                        .metric("probe_min_ns", st.min()).metric("probe_max_ns", st.max())
                        .metric("background_mmsg_s", ResultRecord.round(run.bgRateMmsgPerS(), 3))
                        .metric("background_in_window", run.bgInWindow()).metric("background_posted", run.bgPosted())
                        .metric("background_slot_errors", run.bgSlotErrors())
                        // two processes: the destination slots are the responder's; its count is the check
                        .metric("valid", run.bgSlotErrors() == 0 && (peer == null || nonzero > 0));
                CpuBudget.tag(rec, spinning);
                CpuBudget.tagPollMode(rec, common.poll, spinning);
                records.add(rec);
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
        CliErrors.requireRecords(records, progress, bgs.size() * queues.size() + " point(s)", bound);
        progress.tag(records);
        out.emit(records, spec.commandLine().getOut(), spec.commandLine().getErr(),
                peer != null ? peer.peerEnvironment() : Map.of());
        return ProxyCommand.peerVerdict(peerFailed, spec);
    }
}
