// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.NativeException;
import dev.marrow.api.Status;
import dev.marrow.internal.ffi.CEnum;
import dev.marrow.peer.PeerExchange;
import dev.marrow.peer.PeerExchangeException;
import dev.marrow.peer.PeerMessages;

import java.lang.foreign.MemorySegment;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Run control of a two-host mini-gda session, over the TCP {@link PeerExchange}
 * (frames of {@link PeerMessages}; the run control since its version 2). Per run:
 * <pre>
 *   initiator                          responder
 *   RUN {seq, spec}          -------&gt;   decode; refuse (READY !ok, why) or zero its inbox
 *                            &lt;-------   READY {seq, ok, reason}
 *   native run (issue / putc /         round trip only: the peer role
 *   round trip, destination remote)    (marrow_gda_*_serve, warmup+iters pings)
 *   DONE {seq, status, iters_done} --&gt;  check its inbox: the final iteration's bytes
 *                            &lt;-------   REPORT {seq, serve status, peer posts, checked,
 *                                                payload_errors, message}
 * </pre>
 * The spec carries experiment, ordering, payload, size, iters, warmup and the
 * per-wait timeout, so the responder needs no matching flags; the iteration
 * count is its peer role's stop condition. The session ends with the
 * initiator's closing barrier, which the responder answers from its wait
 * for the next RUN. Every receive is bounded by the exchange's timeout; a
 * peer that dies or sends garbage ends in {@link PeerExchangeException}.
 *
 * <p>Validation across hosts: the initiator cannot read the destination (it
 * is the responder's memory), so the responder checks once, after the run,
 * that its inbox holds the LAST iteration's bytes ({@link GdaPattern});
 * payload_errors is then 0 or 1 (one host checks every iteration).
 */
public final class GdaPeerProtocol {
    private GdaPeerProtocol() {
    }

    /** RUN payload: seq u32, experiment u16, ordering u16, payload u16, reserved u16, size u32, iters u32,
     *  warmup u32, reserved u32, timeout_ns u64. */
    static final int RUN_LEN = 36;
    /** A loaded RUN: the RUN payload, then streams u32, queue u16, reserved u16, window u32, signal_every u32,
     *  pace u64. A responder of a Marrow without it refuses the longer RUN (READY !ok naming the lengths). */
    static final int LOADED_EXT_LEN = 24;
    /** A loaded RUN that asks for the responder's engine placement: the loaded RUN, then flags u32 (bit 0:
     *  answer ENGINES after STREAMS; other bits 0). A responder of a Marrow without it refuses the longer RUN. */
    static final int ENGINES_EXT_LEN = 4;
    static final int ENGINES_FLAG_REPORT = 1;
    static final int ENGINES_HEAD = 12;
    static final int STREAMS_HEAD = 16;
    static final int DONE_LEN = 16;
    /** Message types of the run control over the exchange (docs/design/two-process.md sections 4 and 11). */
    public static final int TYPE_RUN = 3;
    public static final int TYPE_READY = 4;
    public static final int TYPE_DONE = 5;
    public static final int TYPE_REPORT = 6;
    /** gda loaded across two processes: one side's background counts. */
    public static final int TYPE_STREAMS = 11;
    /** gda loaded across two processes: the responder's engine placement. */
    public static final int TYPE_ENGINES = 12;
    /** Messages are cut to this many UTF-8 bytes (frames are at most 4 KiB). */
    static final int MAX_TEXT = 2048;

    /**
     * @param loaded null for a plain run; else the background of a loaded round trip
     *               (gda loaded across two processes, docs/design/two-process.md section 11)
     */
    public record Run(int seq, GdaRunSpec spec, Loaded loaded) {
        public Run(int seq, GdaRunSpec spec) {
            this(seq, spec, null);
        }
    }

    /**
     * The extension a loaded round trip's RUN carries after the plain RUN
     * payload: both sides run this background toward the other.
     */
    public record Loaded(GdaLoaded.Queue queue, int streams, int window, int signalEvery, long paceMsgsPerS,
                         boolean enginesReport) {
        /** As this Marrow sends it: the responder answers ENGINES (its engine placement) after its STREAMS. */
        public Loaded(GdaLoaded.Queue queue, int streams, int window, int signalEvery, long paceMsgsPerS) {
            this(queue, streams, window, signalEvery, paceMsgsPerS, true);
        }

        /** The native run spec of one side (the probe's ordering, iterations and wait bound from spec). */
        public GdaLoaded.Spec spec(GdaRunSpec run) {
            return new GdaLoaded.Spec(run.ordering(), queue, streams, paceMsgsPerS, window, signalEvery, run.iters(),
                    run.warmup(), run.timeoutNs());
        }
    }

    /** STREAMS: each background stream's WRITE count (all completed) and the span the streams ran. */
    public record Streams(int seq, long spanNs, long[] posted) {
        public long total() {
            long t = 0;
            for (long p : posted) {
                t += p;
            }
            return t;
        }
    }

    /**
     * ENGINES: one side's software-NIC engine placement in a loaded run, as its NIC reported it
     * (marrow_emu_qp_engine) after placing the QPs. engineThreads 0: the side placed nothing (its run
     * failed before placement). qpThread: the engine thread of the side's session QP (the probe's on the
     * initiator, the answering QP on the responder); backgroundThreads: one per reserved background QP.
     */
    public record Engines(int seq, int engineThreads, GdaLoaded.ProbeEngine requested, int qpThread,
                          int[] backgroundThreads) {
        public static Engines of(int seq, GdaLoaded.EnginePlacement p, GdaLoaded.ProbeEngine requested) {
            return p == null ? new Engines(seq, 0, requested, 0, new int[0])
                    : new Engines(seq, p.engineThreads(), requested, p.probeThread(), p.backgroundThreads());
        }

        /** The placement as the one-process record reads it; null when nothing was placed. */
        public GdaLoaded.EnginePlacement placement(boolean sharedQueue) {
            return engineThreads == 0 ? null
                    : new GdaLoaded.EnginePlacement(engineThreads, qpThread, qpThread, backgroundThreads, sharedQueue);
        }
    }

    /** The initiator's view of a loaded run across two processes; peerEngines: the responder's ENGINES. */
    public record LoadedOutcome(GdaLoaded.Run run, Report report, Streams peer, Engines peerEngines) {
    }

    public record Ready(int seq, boolean ok, String reason) {
    }

    /** @param itersDone iterations the initiator completed, warm-up included */
    public record Done(int seq, int status, long itersDone) {
    }

    /**
     * @param serveStatus   0, or the status of the responder's peer role (round trip)
     * @param peerPosts     WQEs the responder posted (round trip)
     * @param checked       whether the responder checked its inbox (only after a run that succeeded)
     * @param payloadErrors 1 when its inbox did not hold the final iteration's bytes
     */
    public record Report(int seq, int serveStatus, long peerPosts, boolean checked, long payloadErrors,
                         String message) {
    }

    /** What the initiator's own (native) run produced; error is what it would throw, or null. */
    public record LocalOutcome(int status, long itersDone, GdaRun run, RuntimeException error) {
        public static LocalOutcome of(GdaRun run) {
            return new LocalOutcome(0, (long) run.spec().iters() + run.spec().warmup(), run, null);
        }

        public static LocalOutcome failed(RuntimeException e) {
            return new LocalOutcome(e instanceof NativeException n ? n.status() : Status.EIO.code(), 0, null, e);
        }
    }

    /** What the responder's peer role did (round trip); never thrown, reported. */
    public record Served(int status, long peerPosts, String message) {
        public static final Served NOTHING = new Served(0, 0, "");
    }

    /** The responder's side of a run, supplied by MiniGda (or a test). */
    public interface Responder {
        /** null when this side can serve spec; else the reason it cannot (sent to the initiator). */
        String refusal(GdaRunSpec spec);

        /** Before READY: clear the inbox so that stale bytes cannot pass the final check. */
        void prepare(GdaRunSpec spec);

        /** Round trip: the peer role for warmup + iters pings; must return, not throw. */
        Served serve(GdaRunSpec spec);

        /** The inbox the initiator writes into, as this process sees it. */
        MemorySegment inbox();

        /** Why this side cannot serve a loaded round trip (spec of this side), or null. */
        default String loadedRefusal(GdaLoaded.Spec spec) {
            return "this responder serves no loaded round trips (gda loaded across processes runs on the software "
                    + "NIC's wire)";
        }

        /**
         * Loaded round trip: answer warmup + iters pings while this side's own background streams post toward
         * the initiator; their counts go into posted. Must return, not throw.
         */
        default LoadedServed serveLoaded(GdaLoaded.Spec spec, long[] posted) {
            return new LoadedServed(new Served(Status.EINVAL.code(), 0, loadedRefusal(spec)), 0);
        }
    }

    /**
     * The responder's side of a loaded run: its answers, the span its streams ran, and its engine
     * placement as its NIC reported it (null: nothing placed) under the placement its flags asked for.
     */
    public record LoadedServed(Served served, long spanNs, GdaLoaded.EnginePlacement placement,
                               GdaLoaded.ProbeEngine requested) {
        public LoadedServed(Served served, long spanNs) {
            this(served, spanNs, null, GdaLoaded.ProbeEngine.SHARED);
        }
    }

    // ---- the two roles -----------------------------------------------------

    /**
     * The initiator's side of one run: announce it, wait for READY, run
     * locally, report DONE, read the responder's REPORT. A failure of the
     * local run is still reported to the responder (so it does not wait
     * for DONE) and then thrown; a failed peer role of a round trip is
     * thrown as the cause when the initiator's own run merely timed out.
     */
    public static GdaRun initiate(PeerExchange x, int seq, GdaRunSpec spec,
                                  Function<GdaRunSpec, LocalOutcome> local) {
        x.sendMessage(GdaPeerProtocol.TYPE_RUN, GdaPeerCodec.encodeRun(seq, spec), "RUN " + seq);
        Ready ready = GdaPeerCodec.decodeReady(x.receiveMessage(GdaPeerProtocol.TYPE_READY, "READY for run " + seq));
        step(seq, ready.seq(), "READY");
        if (!ready.ok()) {
            throw new PeerExchangeException("the responder " + x.peerName() + " refused run " + seq + " (" + spec
                    .experiment() + "): " + ready.reason());
        }
        LocalOutcome o;
        try {
            o = local.apply(spec);
        } catch (RuntimeException e) {
            o = LocalOutcome.failed(e);
        }
        Report rep;
        try { // a responder that died mid-run makes the DONE fail too (broken pipe): both are the peer's story
            x.sendMessage(GdaPeerProtocol.TYPE_DONE, GdaPeerCodec.encodeDone(new Done(seq, o.status(), o.itersDone())),
                    "DONE " + seq);
            rep = GdaPeerCodec.decodeReport(x.receiveMessage(GdaPeerProtocol.TYPE_REPORT, "REPORT of run " + seq));
            step(seq, rep.seq(), "REPORT");
        } catch (PeerExchangeException e) {
            if (o.error() != null) {
                throw withPeerLoss(o.error(), e);
            }
            throw e;
        }
        if (spec.experiment() == Experiment.ROUND_TRIP && rep.serveStatus() != 0
                && (o.status() == 0 || o.status() == Status.ETIMEDOUT.code() || o.status() == Status.ECONNRESET.code())) {
            NativeException peer = new NativeException(rep.serveStatus(), statusWord(rep.serveStatus()),
                    "the responder's peer role at " + x.peerName(), rep.message());
            if (o.error() != null) {
                peer.addSuppressed(o.error());
            }
            throw peer;
        }
        if (o.error() != null) {
            throw o.error();
        }
        if (!rep.checked()) {
            throw new PeerExchangeException("the responder did not check its inbox after run " + seq + ": "
                    + rep.message());
        }
        return o.run().withPeerReport(rep.peerPosts(), rep.payloadErrors());
    }

    /**
     * The initiator's side of a loaded round trip across two processes:
     * prepare (clear this side's inbox: the responder's background lands
     * there from READY on) before the RUN; the local run (probe and this
     * side's background); DONE and this side's STREAMS; the responder's
     * REPORT (its check of the probe word and of this side's background
     * slots) and its STREAMS, for the caller's check of the responder's
     * background in this side's inbox.
     */
    public static LoadedOutcome initiateLoaded(PeerExchange x, int seq, GdaRunSpec spec, Loaded l, Runnable prepare,
                                               Function<long[], GdaLoaded.Run> local) {
        prepare.run();
        x.sendMessage(GdaPeerProtocol.TYPE_RUN, GdaPeerCodec.encodeLoadedRun(seq, spec, l), "RUN " + seq);
        Ready ready = GdaPeerCodec.decodeReady(x.receiveMessage(GdaPeerProtocol.TYPE_READY, "READY for run " + seq));
        step(seq, ready.seq(), "READY");
        if (!ready.ok()) {
            throw new PeerExchangeException("the responder " + x.peerName() + " refused loaded run " + seq + ": "
                    + ready.reason() + (ready.reason().contains("payload bytes") ? " (a Marrow without two-process "
                    + "gda loaded, or without its engine-placement report (ENGINES), refuses the longer RUN: run the "
                    + "same Marrow on both sides)" : ""));
        }
        long[] posted = new long[l.streams()];
        GdaLoaded.Run run = null;
        RuntimeException error = null;
        long t0 = System.nanoTime();
        try {
            run = local.apply(posted);
        } catch (RuntimeException e) {
            error = e;
        }
        long span = System.nanoTime() - t0;
        int status = error == null ? 0 : error instanceof NativeException n ? n.status() : Status.EIO.code();
        long itersDone = error == null ? (long) spec.iters() + spec.warmup() : 0;
        Report rep;
        Streams peer;
        Engines engines = null;
        try {
            x.sendMessage(GdaPeerProtocol.TYPE_DONE, GdaPeerCodec.encodeDone(new Done(seq, status, itersDone)), "DONE " + seq);
            x.sendMessage(GdaPeerProtocol.TYPE_STREAMS, GdaPeerCodec.encodeStreams(new Streams(seq, span, posted)),
                    "STREAMS " + seq);
            rep = GdaPeerCodec.decodeReport(x.receiveMessage(GdaPeerProtocol.TYPE_REPORT, "REPORT of run " + seq));
            step(seq, rep.seq(), "REPORT");
            peer = GdaPeerCodec.decodeStreams(x.receiveMessage(GdaPeerProtocol.TYPE_STREAMS, "STREAMS of run " + seq),
                    l.streams());
            step(seq, peer.seq(), "STREAMS");
            if (l.enginesReport()) {
                engines = GdaPeerCodec.decodeEngines(x.receiveMessage(GdaPeerProtocol.TYPE_ENGINES, "ENGINES of run " + seq),
                        l.queue() == GdaLoaded.Queue.RESERVED ? l.streams() : 0);
                step(seq, engines.seq(), "ENGINES");
            }
        } catch (PeerExchangeException e) {
            if (error != null) {
                throw withPeerLoss(error, e);
            }
            throw e;
        }
        if (rep.serveStatus() != 0) { // both sides' words: each waits on the other, either may have stalled first
            NativeException p = new NativeException(rep.serveStatus(), statusWord(rep.serveStatus()),
                    "the responder's side of the loaded run at " + x.peerName(), rep.message()
                    + (error != null ? "; this side (initiator): " + error.getMessage() : ""));
            if (error != null) {
                p.addSuppressed(error);
            }
            throw p;
        }
        if (error != null) {
            throw error;
        }
        if (!rep.checked()) {
            throw new PeerExchangeException("the responder did not check its inbox after run " + seq + ": "
                    + rep.message());
        }
        return new LoadedOutcome(run, rep, peer, engines);
    }

    /**
     * The responder's loop: serves RUNs until the initiator's closing
     * barrier (answered here), then returns how many runs were served.
     * log receives one line per run.
     */
    public static int serve(PeerExchange x, Responder r, Consumer<String> log) {
        int served = 0;
        for (;;) {
            PeerMessages.Frame f = x.receiveAny("next RUN or the closing barrier");
            if (f.type() == PeerMessages.TYPE_BARRIER) {
                x.answerBarrier(f);
                return served;
            }
            if (f.type() != GdaPeerProtocol.TYPE_RUN) {
                throw new PeerExchangeException("expected a RUN or the closing barrier from " + x.peerName()
                        + ", got type " + f.type() + " (the two sides are out of step)");
            }
            Run run;
            try {
                run = GdaPeerCodec.decodeRun(f.payload());
            } catch (PeerExchangeException e) {
                int seq = f.payload().length >= 4 ? ByteBuffer.wrap(f.payload()).getInt() : -1;
                x.sendMessage(GdaPeerProtocol.TYPE_READY, GdaPeerCodec.encodeReady(seq, false, e.getMessage()), "READY");
                throw e;
            }
            GdaRunSpec spec = run.spec();
            if (run.loaded() != null) {
                if (serveLoaded(x, r, run, log)) {
                    served++;
                }
                continue;
            }
            String why = r.refusal(spec);
            if (why != null) {
                x.sendMessage(GdaPeerProtocol.TYPE_READY, GdaPeerCodec.encodeReady(run.seq(), false, why), "READY");
                log.accept("refused run " + run.seq() + " (" + describe(spec) + "): " + why);
                continue;
            }
            r.prepare(spec);
            x.sendMessage(GdaPeerProtocol.TYPE_READY, GdaPeerCodec.encodeReady(run.seq(), true, ""), "READY");
            Served sv = spec.experiment() == Experiment.ROUND_TRIP ? r.serve(spec) : Served.NOTHING;
            Done d = GdaPeerCodec.decodeDone(x.receiveMessage(GdaPeerProtocol.TYPE_DONE, "DONE of run " + run.seq()));
            step(run.seq(), d.seq(), "DONE");
            boolean checked = d.status() == 0 && d.itersDone() > 0;
            long errs = checked && !GdaPattern.holds(r.inbox(), spec.size(), d.itersDone() - 1) ? 1 : 0;
            String msg = sv.message();
            if (!checked) {
                msg = (msg.isEmpty() ? "" : msg + "; ") + "inbox not checked: the initiator's run failed (status "
                        + d.status() + ")";
            }
            x.sendMessage(GdaPeerProtocol.TYPE_REPORT,
                    GdaPeerCodec.encodeReport(new Report(run.seq(), sv.status(), sv.peerPosts(), checked, errs, msg)), "REPORT");
            served++;
            log.accept("run " + run.seq() + " (" + describe(spec) + "): "
                    + (spec.experiment() == Experiment.ROUND_TRIP ? "answered " + sv.peerPosts() + " pings, " : "")
                    + (checked ? (errs == 0 ? "inbox holds the final iteration's bytes" : "inbox WRONG (payload error)")
                    : "not checked") + (sv.status() != 0 ? "; peer role failed: " + sv.message() : ""));
        }
    }

    /** One loaded run on the responder: READY, answers + background, DONE/STREAMS in, check, REPORT/STREAMS out. */
    private static boolean serveLoaded(PeerExchange x, Responder r, Run run, Consumer<String> log) {
        GdaRunSpec spec = run.spec();
        GdaLoaded.Spec ls = run.loaded().spec(spec);
        String why = r.refusal(spec);
        if (why == null) {
            why = r.loadedRefusal(ls);
        }
        if (why != null) {
            x.sendMessage(GdaPeerProtocol.TYPE_READY, GdaPeerCodec.encodeReady(run.seq(), false, why), "READY");
            log.accept("refused loaded run " + run.seq() + ": " + why);
            return false;
        }
        r.prepare(spec);
        x.sendMessage(GdaPeerProtocol.TYPE_READY, GdaPeerCodec.encodeReady(run.seq(), true, ""), "READY");
        long[] posted = new long[ls.streams()];
        LoadedServed sv = r.serveLoaded(ls, posted);
        Done d = GdaPeerCodec.decodeDone(x.receiveMessage(GdaPeerProtocol.TYPE_DONE, "DONE of run " + run.seq()));
        step(run.seq(), d.seq(), "DONE");
        Streams theirs = GdaPeerCodec.decodeStreams(x.receiveMessage(GdaPeerProtocol.TYPE_STREAMS, "STREAMS of run " + run.seq()),
                ls.streams());
        step(run.seq(), theirs.seq(), "STREAMS");
        boolean checked = d.status() == 0 && d.itersDone() > 0;
        long probeErr = 0;
        long slotErr = 0;
        if (checked) {
            probeErr = GdaPattern.holds(r.inbox(), spec.size(), d.itersDone() - 1) ? 0 : 1;
            slotErr = GdaLoaded.checkSlots(r.inbox(), theirs.posted());
        }
        String msg = sv.served().message();
        if (!checked) {
            msg = (msg.isEmpty() ? "" : msg + "; ") + "inbox not checked: the initiator's run failed (status "
                    + d.status() + ")";
        } else if (probeErr + slotErr > 0) {
            msg = (msg.isEmpty() ? "" : msg + "; ") + (probeErr > 0 ? "probe word wrong; " : "") + slotErr
                    + " of the initiator's background slots wrong";
        }
        x.sendMessage(GdaPeerProtocol.TYPE_REPORT, GdaPeerCodec.encodeReport(new Report(run.seq(), sv.served().status(),
                sv.served().peerPosts(), checked, probeErr + slotErr, msg)), "REPORT");
        x.sendMessage(GdaPeerProtocol.TYPE_STREAMS, GdaPeerCodec.encodeStreams(new Streams(run.seq(), sv.spanNs(), posted)),
                "STREAMS");
        GdaLoaded.EnginePlacement placed = sv.placement();
        if (run.loaded().enginesReport()) {
            x.sendMessage(GdaPeerProtocol.TYPE_ENGINES, GdaPeerCodec.encodeEngines(Engines.of(run.seq(), placed, sv.requested())),
                    "ENGINES");
        }
        log.accept("loaded run " + run.seq() + " (" + ls.streams() + " background streams each way, "
                + ls.queue().label() + " queue" + (ls.paceMsgsPerS() > 0 ? ", pace " + ls.paceMsgsPerS() + " msg/s"
                : "") + "): answered " + sv.served().peerPosts() + " pings, posted " + new Streams(0, 0, posted).total()
                + " background WRITEs; " + (checked ? (probeErr + slotErr == 0
                ? "inbox holds the final probe word and the initiator's background" : "inbox WRONG: " + msg)
                : "not checked") + (sv.served().status() != 0 ? "; this side failed: " + sv.served().message() : "")
                + (placed == null ? "" : "; engine threads " + placed.engineThreads() + ", answering QP on thread "
                + placed.probeThread() + (placed.sharedQueue() || placed.backgroundThreads().length == 0 ? ""
                : ", background on " + placed.backgroundEngineThreads() + " thread(s)"
                + (placed.probeEngineAlone() ? ", none on the answering QP's" : ", some on the answering QP's"))));
        return true;
    }

    /**
     * This side's run failed and then the exchange did too (the responder
     * died or went silent): the local error alone (e.g. an error CQE's
     * syndrome) would not say that the peer is gone, so its message gets the
     * exchange's (what was awaited from whom, the last step of each side).
     * A native failure keeps its type and status (the CLI's finding/exit logic).
     */
    static RuntimeException withPeerLoss(RuntimeException local, PeerExchangeException lost) {
        String more = "; then the exchange with the responder failed: " + lost.getMessage().split("\n", 2)[0];
        RuntimeException r = local instanceof NativeException n ? n.withMore(more)
                : new PeerExchangeException(local.getMessage() + more, local);
        r.addSuppressed(lost);
        return r;
    }

    static String describe(GdaRunSpec s) {
        return s.experiment() + " " + s.ordering().label() + " " + s.payload().label() + " " + s.size() + " B, "
                + s.iters() + " iters + " + s.warmup() + " warm-up";
    }

    private static void step(int want, int got, String what) {
        if (want != got) {
            throw new PeerExchangeException(what + " for run " + got + " while at run " + want
                    + " (the two sides are out of step)");
        }
    }

    private static String statusWord(int status) {
        Status s = Status.of(status);
        return s == null ? "status" : s.name();
    }
}
