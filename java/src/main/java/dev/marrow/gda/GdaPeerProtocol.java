// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.NativeException;
import dev.marrow.api.Status;
import dev.marrow.internal.ffi.CEnum;
import dev.marrow.mlx5.PeerExchange;
import dev.marrow.mlx5.PeerExchangeException;
import dev.marrow.mlx5.PeerMessages;

import java.lang.foreign.MemorySegment;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Run control of a two-host mini-gda session, over the TCP {@link PeerExchange}
 * (frames of {@link PeerMessages}, version 2). Per run:
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
    static final int DONE_LEN = 16;
    /** Messages are cut to this many UTF-8 bytes (frames are at most 4 KiB). */
    static final int MAX_TEXT = 2048;

    public record Run(int seq, GdaRunSpec spec) {
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
    }

    // ---- codecs ------------------------------------------------------------

    public static byte[] encodeRun(int seq, GdaRunSpec s) {
        return ByteBuffer.allocate(RUN_LEN).putInt(seq).putShort((short) s.experiment().code())
                .putShort((short) s.ordering().code()).putShort((short) s.payload().code()).putShort((short) 0)
                .putInt(s.size()).putInt(s.iters()).putInt(s.warmup()).putInt(0).putLong(s.timeoutNs()).array();
    }

    public static Run decodeRun(byte[] p) {
        if (p.length != RUN_LEN) {
            throw new PeerExchangeException("RUN message of version " + PeerMessages.VERSION + " has " + RUN_LEN
                    + " payload bytes, the peer sent " + p.length);
        }
        ByteBuffer b = ByteBuffer.wrap(p);
        int seq = b.getInt();
        int exp = Short.toUnsignedInt(b.getShort());
        int ord = Short.toUnsignedInt(b.getShort());
        int pay = Short.toUnsignedInt(b.getShort());
        b.getShort();
        int size = b.getInt();
        int iters = b.getInt();
        int warmup = b.getInt();
        b.getInt();
        long timeout = b.getLong();
        try {
            return new Run(seq, new GdaRunSpec(byCode(Experiment.values(), exp, "experiment"),
                    byCode(Ordering.values(), ord, "ordering"), byCode(Payload.values(), pay, "payload"), size, iters,
                    warmup, timeout));
        } catch (IllegalArgumentException e) {
            throw new PeerExchangeException("peer sent an invalid RUN: " + e.getMessage(), e);
        }
    }

    private static <E extends CEnum> E byCode(E[] values, int code, String what) {
        E e = CEnum.byCode(values, code);
        if (e == null) {
            throw new IllegalArgumentException("unknown " + what + " code " + code);
        }
        return e;
    }

    public static byte[] encodeReady(int seq, boolean ok, String reason) {
        byte[] t = text(reason);
        return ByteBuffer.allocate(4 + 1 + 2 + t.length).putInt(seq).put((byte) (ok ? 1 : 0))
                .putShort((short) t.length).put(t).array();
    }

    public static Ready decodeReady(byte[] p) {
        try {
            ByteBuffer b = ByteBuffer.wrap(p);
            int seq = b.getInt();
            int ok = Byte.toUnsignedInt(b.get());
            if (ok > 1) {
                throw new PeerExchangeException("peer sent a READY with ok = " + ok);
            }
            String reason = readText(b, "READY");
            return new Ready(seq, ok == 1, reason);
        } catch (BufferUnderflowException e) {
            throw new PeerExchangeException("peer READY message is truncated (" + p.length + " bytes)", e);
        }
    }

    public static byte[] encodeDone(Done d) {
        return ByteBuffer.allocate(DONE_LEN).putInt(d.seq()).putInt(d.status()).putLong(d.itersDone()).array();
    }

    public static Done decodeDone(byte[] p) {
        if (p.length != DONE_LEN) {
            throw new PeerExchangeException("DONE message of version " + PeerMessages.VERSION + " has " + DONE_LEN
                    + " payload bytes, the peer sent " + p.length);
        }
        ByteBuffer b = ByteBuffer.wrap(p);
        Done d = new Done(b.getInt(), b.getInt(), b.getLong());
        if (d.itersDone() < 0) {
            throw new PeerExchangeException("peer sent a DONE with " + d.itersDone() + " iterations");
        }
        return d;
    }

    public static byte[] encodeReport(Report r) {
        byte[] t = text(r.message());
        return ByteBuffer.allocate(4 + 4 + 8 + 1 + 8 + 2 + t.length).putInt(r.seq()).putInt(r.serveStatus())
                .putLong(r.peerPosts()).put((byte) (r.checked() ? 1 : 0)).putLong(r.payloadErrors())
                .putShort((short) t.length).put(t).array();
    }

    public static Report decodeReport(byte[] p) {
        try {
            ByteBuffer b = ByteBuffer.wrap(p);
            int seq = b.getInt();
            int st = b.getInt();
            long posts = b.getLong();
            int checked = Byte.toUnsignedInt(b.get());
            long errs = b.getLong();
            String msg = readText(b, "REPORT");
            if (checked > 1 || posts < 0 || errs < 0) {
                throw new PeerExchangeException("peer sent an invalid REPORT (checked " + checked + ", posts "
                        + posts + ", payload errors " + errs + ")");
            }
            return new Report(seq, st, posts, checked == 1, errs, msg);
        } catch (BufferUnderflowException e) {
            throw new PeerExchangeException("peer REPORT message is truncated (" + p.length + " bytes)", e);
        }
    }

    private static byte[] text(String s) {
        byte[] t = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        return t.length <= MAX_TEXT ? t : java.util.Arrays.copyOf(t, MAX_TEXT);
    }

    private static String readText(ByteBuffer b, String what) {
        int n = Short.toUnsignedInt(b.getShort());
        if (n > MAX_TEXT || n != b.remaining()) {
            throw new PeerExchangeException("peer " + what + " message: text of " + n + " bytes, "
                    + b.remaining() + " left in the message");
        }
        byte[] t = new byte[n];
        b.get(t);
        return new String(t, StandardCharsets.UTF_8);
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
        x.sendMessage(PeerMessages.TYPE_GDA_RUN, encodeRun(seq, spec), "RUN " + seq);
        Ready ready = decodeReady(x.receiveMessage(PeerMessages.TYPE_GDA_READY, "READY for run " + seq));
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
        x.sendMessage(PeerMessages.TYPE_GDA_DONE, encodeDone(new Done(seq, o.status(), o.itersDone())),
                "DONE " + seq);
        Report rep;
        try {
            rep = decodeReport(x.receiveMessage(PeerMessages.TYPE_GDA_REPORT, "REPORT of run " + seq));
            step(seq, rep.seq(), "REPORT");
        } catch (PeerExchangeException e) {
            if (o.error() != null) { // the local failure is the first error; the lost report comes second
                o.error().addSuppressed(e);
                throw o.error();
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
            if (f.type() != PeerMessages.TYPE_GDA_RUN) {
                throw new PeerExchangeException("expected a RUN or the closing barrier from " + x.peerName()
                        + ", got type " + f.type() + " (the two sides are out of step)");
            }
            Run run;
            try {
                run = decodeRun(f.payload());
            } catch (PeerExchangeException e) {
                int seq = f.payload().length >= 4 ? ByteBuffer.wrap(f.payload()).getInt() : -1;
                x.sendMessage(PeerMessages.TYPE_GDA_READY, encodeReady(seq, false, e.getMessage()), "READY");
                throw e;
            }
            GdaRunSpec spec = run.spec();
            String why = r.refusal(spec);
            if (why != null) {
                x.sendMessage(PeerMessages.TYPE_GDA_READY, encodeReady(run.seq(), false, why), "READY");
                log.accept("refused run " + run.seq() + " (" + describe(spec) + "): " + why);
                continue;
            }
            r.prepare(spec);
            x.sendMessage(PeerMessages.TYPE_GDA_READY, encodeReady(run.seq(), true, ""), "READY");
            Served sv = spec.experiment() == Experiment.ROUND_TRIP ? r.serve(spec) : Served.NOTHING;
            Done d = decodeDone(x.receiveMessage(PeerMessages.TYPE_GDA_DONE, "DONE of run " + run.seq()));
            step(run.seq(), d.seq(), "DONE");
            boolean checked = d.status() == 0 && d.itersDone() > 0;
            long errs = checked && !GdaPattern.holds(r.inbox(), spec.size(), d.itersDone() - 1) ? 1 : 0;
            String msg = sv.message();
            if (!checked) {
                msg = (msg.isEmpty() ? "" : msg + "; ") + "inbox not checked: the initiator's run failed (status "
                        + d.status() + ")";
            }
            x.sendMessage(PeerMessages.TYPE_GDA_REPORT,
                    encodeReport(new Report(run.seq(), sv.status(), sv.peerPosts(), checked, errs, msg)), "REPORT");
            served++;
            log.accept("run " + run.seq() + " (" + describe(spec) + "): "
                    + (spec.experiment() == Experiment.ROUND_TRIP ? "answered " + sv.peerPosts() + " pings, " : "")
                    + (checked ? (errs == 0 ? "inbox holds the final iteration's bytes" : "inbox WRONG (payload error)")
                    : "not checked") + (sv.status() != 0 ? "; peer role failed: " + sv.message() : ""));
        }
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
