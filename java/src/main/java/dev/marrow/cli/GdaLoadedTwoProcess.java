// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.MarrowException;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.WireModel;
import dev.marrow.gda.GdaLoaded;
import dev.marrow.gda.GdaPeerProtocol;
import dev.marrow.gda.GdaSetup;
import dev.marrow.gda.MiniGda;
import dev.marrow.fabric.Mlx5Options;
import dev.marrow.gda.Ordering;
import dev.marrow.fabric.PeerRole;
import dev.marrow.fabric.Target;
import dev.marrow.gda.internal.LoadedFfi;
import dev.marrow.launch.LaunchEnv;
import dev.marrow.peer.PeerAddress;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * gda loaded across two processes of one host (docs/design/two-process.md
 * section 11): rank 0 (initiator) runs the probe and its background streams
 * into rank 1's inbox; rank 1 (responder) answers each probe and runs the
 * same background toward rank 0, so both endpoints are loaded. One MiniGda
 * session (one wire each way) carries every point; each point is one loaded
 * RUN of {@link GdaPeerProtocol}. Only rank 0 writes records.
 */
final class GdaLoadedTwoProcess {
    private final GdaLoadedCommand c;
    private final PeerAddress addr;
    private final PeerRole role;
    private final LaunchEnv launch;

    private GdaLoadedTwoProcess(GdaLoadedCommand c, PeerAddress addr, PeerRole role, LaunchEnv launch) {
        this.c = c;
        this.addr = addr;
        this.role = role;
        this.launch = launch;
    }

    /** --peer, else a launcher's environment; null in one process. Usage errors name the flag. */
    static GdaLoadedTwoProcess resolve(GdaLoadedCommand c) {
        if (c.peerTimeoutS <= 0) {
            throw new IllegalArgumentException("--peer-timeout-s must be > 0, not " + c.peerTimeoutS);
        }
        PeerAddress addr;
        PeerRole role;
        LaunchEnv launch = null;
        if (c.peer != null) {
            try {
                addr = PeerAddress.parse(c.peer);
            } catch (MarrowException e) { // PeerAddress words it with "--peer ..."
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            role = addr.listens() ? PeerRole.RESPONDER : PeerRole.INITIATOR;
        } else {
            launch = LaunchEnv.detect(c.environment).orElse(null);
            if (launch == null) {
                return null;
            }
            addr = launch.peerAddress();
            role = launch.initiator() ? PeerRole.INITIATOR : PeerRole.RESPONDER;
        }
        // each side's engine flags govern its own software NIC (docs/design/two-process.md section 11)
        c.checkEngineFlags();
        if (c.spec.commandLine().getParseResult().hasMatchedOption("--wire-gbps")) {
            throw new IllegalArgumentException("--wire-gbps applies to one process: across processes the "
                    + "background and the probe cross the shared-memory wire with no timing model (the records "
                    + "say wire_model none)");
        }
        return new GdaLoadedTwoProcess(c, addr, role, launch);
    }

    /** The initiator runs on --target (cpu threads or GPU blocks); the responder always on CPU threads. */
    private Target sideTarget() {
        return role == PeerRole.INITIATOR ? c.target : Target.CPU;
    }

    private GdaSetup setup(int spinning) {
        // One session for every point: inboxes large enough for the most streams the command allows.
        return GdaSetup.defaults(sideTarget()).withEngineCpu(c.engineCpu).withEngineThreads(engines())
                .withPollMode(CpuBudget.pollMode(SoftNic.PollMode.HOT, spinning)).withQueues(8, 10, false)
                .withBufferBytes(GdaLoaded.inboxBytes(LoadedFfi.MAX_STREAMS))
                .withMlx5(Mlx5Options.defaults().withPeer(addr, role)
                        .withPeerTimeout(Duration.ofSeconds(c.peerTimeoutS)));
    }

    /** This side's software-NIC engine threads (its own --engine-threads). */
    private int engines() {
        return c.engine.engineThreads;
    }

    /** --engine-cpus on this side's NIC; a CPU this host lacks is the flag's fault. */
    private void pin(MiniGda g) {
        if (c.engine.engineCpus != null) {
            try {
                g.softNic().pinEngines(c.engine.engineCpus);
            } catch (dev.marrow.api.NativeException e) {
                throw new IllegalArgumentException("--engine-cpus: " + e.getMessage(), e);
            }
        }
    }

    int run(List<Integer> bgs, List<String> queues, long pace, WireModel wire, Ordering ord) {
        GdaLoaded.ProbeEngine placement = c.probeEngine();
        PrintWriter err = c.spec.commandLine().getErr();
        int most = bgs.stream().mapToInt(Integer::intValue).max().orElse(0);
        // per side: the NIC engine, the probe (or the answers) and the background streams; a GPU initiator
        // spins only its engine
        int spinningMost = spinning(most);
        CpuBudget.check(spinningMost, "two processes: NIC engine threads (this side's count assumed for the peer "
                + "until it reports), probe, answers, background streams", err);
        GdaSetup setup = setup(spinningMost);
        if (role == PeerRole.RESPONDER) {
            if (c.target != Target.CPU) {
                err.println("marrow: gda loaded responder: answers and background on CPU threads (the GPU runner "
                        + "plays the initiator only)");
            }
            if (c.out.run.maxSeconds != null) {
                throw new IllegalArgumentException("--max-seconds applies to the initiator; the responder serves "
                        + "until the initiator is done (bounded by --peer-timeout-s)");
            }
            try (MiniGda g = MiniGda.open(setup)) {
                pin(g);
                err.println("marrow: gda loaded responder: connected " + g.connection());
                err.println("marrow: gda loaded responder: serving the initiator's runs (its flags decide them; each "
                        + "wait on the initiator at most " + c.peerTimeoutS + " s)");
                err.flush();
                err.println("marrow: gda loaded responder: " + engines() + " engine thread(s), placement "
                        + placement.label() + " (this side's flags)");
                int n = g.serve(line -> {
                    err.println("marrow: gda loaded responder: " + line);
                    err.flush();
                }, placement);
                err.println("marrow: gda loaded responder: initiator done after " + n + " run(s); the initiator "
                        + "writes the result");
                return ExitCodes.OK;
            }
        }
        List<ResultRecord> records;
        boolean allValid = true;
        String bound = RunBounds.applyDefault(c.out, (long) bgs.size() * queues.size());
        RunProgress progress = c.out.progress("gda loaded (two processes)", (long) bgs.size() * queues.size());
        try (MiniGda g = MiniGda.open(setup)) {
            pin(g);
            err.println("marrow: gda loaded initiator: connected " + g.connection());
            err.flush();
            // streamed: each record written as its point completes; the header carries the peer's environment
            Map<String, Object> peerEnv = g.peerEnvironment();
            records = c.out.records(x -> { }, () -> peerEnv);
            String connection = g.connection();
            run:
            for (String qn : queues) {
                Set<Integer> ran = new HashSet<>();
                for (int asked : bgs) {
                    if (progress.expired()) {
                        break run;
                    }
                    if (asked == 0 && qn.equals("reserved") && queues.size() > 1) {
                        progress.step(); // idle: one row (the shared row) says it
                        continue;
                    }
                    int cap = GdaLoadedCommand.cpuStreamCap(Runtime.getRuntime().availableProcessors(), engines());
                    int n = !c.oversubscribe && asked > cap ? cap : asked; // the responder's streams are CPU threads
                    if (n != asked) {
                        err.println("marrow: note: " + asked + " CPU background streams per side capped at " + n
                                + " (cores - 2 - engine threads; --oversubscribe runs them all); the record carries "
                                + "background_streams_requested=" + asked);
                    }
                    if (!ran.add(n)) {
                        progress.step();
                        continue;
                    }
                    GdaLoaded.Queue queue = qn.equals("shared") ? GdaLoaded.Queue.SHARED : GdaLoaded.Queue.RESERVED;
                    GdaLoaded.Spec spec = new GdaLoaded.Spec(ord, queue, n, pace, c.window, c.signalEvery, c.iters,
                            c.warmup, progress.capTimeoutNs(c.timeoutMs * 1_000_000L));
                    GdaPeerProtocol.LoadedOutcome o = g.runLoaded(spec, placement);
                    Sides sides = Sides.of(o, spec, placement);
                    int spinning = spinning(n, sides.peerThreads());
                    // the responder's background in this side's inbox, now that its streams completed
                    long peerSlotErrors = o.report().serveStatus() == 0
                            ? GdaLoaded.checkSlots(g.peerInbox(), o.peer().posted()) : -1;
                    ResultRecord r = record(o, spec, asked, n, pace, ord, peerSlotErrors, connection, sides);
                    boolean valid = o.run().valid() && o.report().payloadErrors() == 0 && peerSlotErrors == 0;
                    r.metric("valid", valid);
                    allValid &= valid;
                    CpuBudget.tag(r, spinning);
                    // the mode this side's NIC was opened in for the whole session (by the most streams), not
                    // the point's own count
                    CpuBudget.tagPollMode(r, SoftNic.PollMode.HOT, spinningMost);
                    records.add(r);
                    progress.step();
                }
            }
        }
        progress.close();
        CliErrors.requireRecords(records, progress, (long) bgs.size() * queues.size() + " point(s)", bound);
        c.out.emit(records, c.spec.commandLine().getOut(), err);
        if (!allValid) {
            err.println("marrow: FAILED rows have valid=false: wrong bytes in an inbox (responder_payload_errors: "
                    + "the responder's check of the probe word and of this side's background; "
                    + "peer_background_slot_errors: this side's check of the responder's background)");
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    /** Busy threads of both processes before the peer reported: its engine threads taken as this side's. */
    private int spinning(int n) {
        return spinning(n, engines());
    }

    /** Busy threads of both processes: engine threads, probe (CPU target) and answers, both sides' CPU streams. */
    private int spinning(int n, int peerEngines) {
        return engines() + peerEngines + 1 + n + (sideTarget() == Target.CPU ? 1 + n : 0);
    }

    /**
     * Both sides' engine placement of one point as their NICs reported it; a side that asked for a
     * dedicated engine thread in a reserved run and got a background QP on its session QP's thread fails.
     */
    record Sides(GdaLoaded.EnginePlacement own, GdaLoaded.ProbeEngine ownRequested,
                 GdaLoaded.EnginePlacement peer, GdaLoaded.ProbeEngine peerRequested) {
        static Sides of(GdaPeerProtocol.LoadedOutcome o, GdaLoaded.Spec spec, GdaLoaded.ProbeEngine asked) {
            GdaPeerProtocol.Engines pe = o.peerEngines();
            boolean shared = spec.queue() == GdaLoaded.Queue.SHARED && spec.streams() > 0;
            GdaLoaded.EnginePlacement peer = pe == null ? null : pe.placement(shared);
            if (o.run().placement() == null || peer == null) {
                throw new IllegalStateException("a side reported no engine placement for a run that succeeded "
                        + "(initiator " + o.run().placement() + ", responder " + pe + ")");
            }
            Sides s = new Sides(o.run().placement(), asked, peer, pe.requested());
            s.check(s.own, s.ownRequested, spec, "this side's (initiator's) software NIC placed a background QP on "
                    + "the probe's");
            s.check(s.peer, s.peerRequested, spec, "the responder's software NIC placed a background QP on the "
                    + "answering QP's");
            return s;
        }

        private void check(GdaLoaded.EnginePlacement p, GdaLoaded.ProbeEngine req, GdaLoaded.Spec spec, String what) {
            if (spec.queue() == GdaLoaded.Queue.RESERVED && req == GdaLoaded.ProbeEngine.DEDICATED
                    && !p.probeEngineAlone()) {
                throw new IllegalStateException(what + " engine thread " + p.probeThread() + ": "
                        + java.util.Arrays.toString(p.backgroundThreads()));
            }
        }

        int peerThreads() {
            return peer.engineThreads();
        }
    }

    /** One side's placement fields, prefixed ("" this side, "peer_" the responder). */
    private static void placementFields(ResultRecord r, String prefix, GdaLoaded.EnginePlacement p,
                                        GdaLoaded.ProbeEngine requested, int n) {
        r.param(prefix + "engine_threads", p.engineThreads())
                .param(prefix + "probe_engine", p.sharedQueue() ? GdaLoaded.ProbeEngine.SHARED.label()
                        : requested.label())
                .param(prefix + "probe_engine_requested", requested.label())
                .param(prefix + "probe_engine_alone", p.probeEngineAlone())
                .param(prefix + "background_engine_threads", n == 0 ? 0 : p.backgroundEngineThreads())
                .param(prefix + "background_qps_per_engine_max", p.maxBackgroundQpsPerThread());
    }

    private ResultRecord record(GdaPeerProtocol.LoadedOutcome o, GdaLoaded.Spec spec, int asked, int n, long pace,
                                Ordering ord, long peerSlotErrors, String connection, Sides sides) {
        GdaLoaded.Run run = o.run();
        Stats st = run.stats();
        GdaPeerProtocol.Streams peer = o.peer();
        double peerRate = peer.spanNs() == 0 ? 0 : peer.total() * 1e3 / peer.spanNs();
        ResultRecord r = new ResultRecord("gda.loaded", c.target.label() + "+softnic", false)
                .param("target", c.target.label()).param("peer_target", Target.CPU.label()).param("nic", "softnic")
                .param("ordering", ord.label())
                .param("queue", n == 0 ? "idle" : spec.queue().label()).param("background_streams", n)
                .param("background_streams_requested", asked).param("background_streams_capped", n != asked)
                .param("peer_background_streams", n)
                .param("pace_msgs_per_s", pace).param("probe_size_bytes", 8).param("background_size_bytes", 8)
                .param("window", spec.window()).param("signal_every", spec.signalEvery()).param("iters", spec.iters())
                .param("warmup", spec.warmup()).param("hosts", 1).param("processes", 2)
                .param("wire_model", WireModel.NONE.describe())
                .param("background_unit", c.target == Target.CUDA ? "one-thread CTA" : "CPU thread")
                .param("peer_background_unit", "CPU thread").param("percentiles", Stats.PERCENTILE_DEFINITION)
                .param("gpu_hardware", c.target == Target.CUDA).param("nic_hardware", false)
                .param("peer", addr.toString()).param("role", PeerRole.INITIATOR.label())
                .param("transport", "softnic shared-memory wire (two processes, one host)")
                .param("probe_round_trip", "rank 0 probe -> wire -> rank 1 answers through its own QP -> wire")
                .param("payload_check", "responder: final probe word and rank 0's background slots in its inbox; "
                        + "initiator: every reply word and rank 1's background slots in its inbox")
                .param("connection", connection)
                .metric("probe_p50_ns", st.p50()).metric("probe_p99_ns", st.p99())
                .metric("probe_p999_ns", st.p999()).metric("probe_min_ns", st.min()).metric("probe_max_ns", st.max())
                .metric("background_mmsg_s", ResultRecord.round(run.bgRateMmsgPerS(), 3))
                .metric("background_in_window", run.bgInWindow()).metric("background_posted", run.bgPosted())
                .metric("peer_pings_answered", o.report().peerPosts())
                .metric("peer_background_posted", peer.total())
                .metric("peer_background_mmsg_s", ResultRecord.round(peerRate, 3))
                .metric("responder_payload_errors", o.report().payloadErrors())
                .metric("peer_background_slot_errors", peerSlotErrors);
        // each side's NIC, its own flags: as the NICs reported them after placing (marrow_emu_qp_engine)
        placementFields(r, "", sides.own(), sides.ownRequested(), n);
        placementFields(r, "peer_", sides.peer(), sides.peerRequested(), n);
        r.param("probe_engine_thread", sides.own().probeThread())
                .param("peer_engine_thread", sides.peer().probeThread())
                .param("engine_placement", "each side's own flags on its own software NIC; reported per QP by that "
                        + "NIC (marrow_emu_qp_engine), the responder's over the ENGINES message; probe_engine_thread: "
                        + "the initiator's probe QP, peer_engine_thread: the responder's answering QP");
        if (launch != null) {
            launch.describe().forEach(r::param);
        }
        return r;
    }
}
