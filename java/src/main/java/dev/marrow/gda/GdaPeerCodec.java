// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.NativeException;
import dev.marrow.api.Status;
import dev.marrow.internal.ffi.CEnum;
import dev.marrow.peer.PeerExchangeException;
import dev.marrow.peer.PeerMessages;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The payloads of {@link GdaPeerProtocol}'s messages (RUN, READY, DONE, REPORT, STREAMS, ENGINES):
 * fixed big-endian layouts, each decoder refusing a length or a value it does not know with a
 * {@link PeerExchangeException} that names the message. The layouts are documented on the
 * constants of {@link GdaPeerProtocol}.
 */
public final class GdaPeerCodec {
    private GdaPeerCodec() {
    }

    public static byte[] encodeRun(int seq, GdaRunSpec s) {
        return ByteBuffer.allocate(GdaPeerProtocol.RUN_LEN).putInt(seq).putShort((short) s.experiment().code())
                .putShort((short) s.ordering().code()).putShort((short) s.payload().code()).putShort((short) 0)
                .putInt(s.size()).putInt(s.iters()).putInt(s.warmup()).putInt(0).putLong(s.timeoutNs()).array();
    }

    public static byte[] encodeLoadedRun(int seq, GdaRunSpec s, GdaPeerProtocol.Loaded l) {
        ByteBuffer b = ByteBuffer.allocate(GdaPeerProtocol.RUN_LEN + GdaPeerProtocol.LOADED_EXT_LEN + (l.enginesReport() ? GdaPeerProtocol.ENGINES_EXT_LEN : 0))
                .put(encodeRun(seq, s)).putInt(l.streams())
                .putShort((short) (l.queue() == GdaLoaded.Queue.SHARED ? 0 : 1)).putShort((short) 0)
                .putInt(l.window()).putInt(l.signalEvery()).putLong(l.paceMsgsPerS());
        if (l.enginesReport()) {
            b.putInt(GdaPeerProtocol.ENGINES_FLAG_REPORT);
        }
        return b.array();
    }

    public static GdaPeerProtocol.Run decodeRun(byte[] p) {
        if (p.length != GdaPeerProtocol.RUN_LEN && p.length != GdaPeerProtocol.RUN_LEN + GdaPeerProtocol.LOADED_EXT_LEN
                && p.length != GdaPeerProtocol.RUN_LEN + GdaPeerProtocol.LOADED_EXT_LEN + GdaPeerProtocol.ENGINES_EXT_LEN) {
            throw new PeerExchangeException("RUN message of version " + PeerMessages.VERSION + " has " + GdaPeerProtocol.RUN_LEN
                    + " payload bytes, the peer sent " + p.length + " (a loaded round trip's RUN has "
                    + (GdaPeerProtocol.RUN_LEN + GdaPeerProtocol.LOADED_EXT_LEN) + ", or " + (GdaPeerProtocol.RUN_LEN + GdaPeerProtocol.LOADED_EXT_LEN + GdaPeerProtocol.ENGINES_EXT_LEN)
                    + " with the engine-placement report)");
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
            GdaRunSpec spec = new GdaRunSpec(byCode(Experiment.values(), exp, "experiment"),
                    byCode(Ordering.values(), ord, "ordering"), byCode(Payload.values(), pay, "payload"), size, iters,
                    warmup, timeout);
            if (!b.hasRemaining()) {
                return new GdaPeerProtocol.Run(seq, spec);
            }
            long streams = Integer.toUnsignedLong(b.getInt());
            int queue = Short.toUnsignedInt(b.getShort());
            int reserved = Short.toUnsignedInt(b.getShort());
            int window = b.getInt();
            int every = b.getInt();
            long pace = b.getLong();
            int flags = b.hasRemaining() ? b.getInt() : 0;
            boolean engines = p.length == GdaPeerProtocol.RUN_LEN + GdaPeerProtocol.LOADED_EXT_LEN + GdaPeerProtocol.ENGINES_EXT_LEN;
            if (engines && flags != GdaPeerProtocol.ENGINES_FLAG_REPORT) {
                throw new IllegalArgumentException("the engine-placement flags of a loaded RUN are "
                        + GdaPeerProtocol.ENGINES_FLAG_REPORT + " (report ENGINES), not " + flags);
            }
            if (spec.experiment() != Experiment.ROUND_TRIP || spec.payload() != Payload.INLINE || spec.size() != 8
                    || queue > 1 || reserved != 0 || streams > dev.marrow.gda.internal.LoadedFfi.MAX_STREAMS) {
                throw new IllegalArgumentException("a loaded run is an 8-byte inline round trip with queue 0/1 and "
                        + "at most " + dev.marrow.gda.internal.LoadedFfi.MAX_STREAMS + " streams (got " + spec
                        .experiment() + " " + spec.payload() + " " + spec.size() + " B, queue " + queue + ", "
                        + streams + " streams)");
            }
            GdaPeerProtocol.Loaded l = new GdaPeerProtocol.Loaded(queue == 0 ? GdaLoaded.Queue.SHARED : GdaLoaded.Queue.RESERVED, (int) streams,
                    window, every, pace, engines);
            l.spec(spec); // the native spec's checks: window, signal-every, pace
            return new GdaPeerProtocol.Run(seq, spec, l);
        } catch (IllegalArgumentException e) {
            throw new PeerExchangeException("peer sent an invalid RUN: " + e.getMessage(), e);
        }
    }

    public static byte[] encodeStreams(GdaPeerProtocol.Streams s) {
        ByteBuffer b = ByteBuffer.allocate(GdaPeerProtocol.STREAMS_HEAD + 8 * s.posted().length).putInt(s.seq())
                .putInt(s.posted().length).putLong(s.spanNs());
        for (long p : s.posted()) {
            b.putLong(p);
        }
        return b.array();
    }

    public static GdaPeerProtocol.Streams decodeStreams(byte[] p, int expectStreams) {
        if (p.length != GdaPeerProtocol.STREAMS_HEAD + 8L * expectStreams) {
            throw new PeerExchangeException("STREAMS message for " + expectStreams + " streams has "
                    + (GdaPeerProtocol.STREAMS_HEAD + 8L * expectStreams) + " payload bytes, the peer sent " + p.length);
        }
        ByteBuffer b = ByteBuffer.wrap(p);
        int seq = b.getInt();
        int n = b.getInt();
        long span = b.getLong();
        long[] posted = new long[expectStreams];
        for (int k = 0; k < posted.length; k++) {
            posted[k] = b.getLong();
        }
        if (n != expectStreams || span < 0 || java.util.Arrays.stream(posted).anyMatch(v -> v < 0)) {
            throw new PeerExchangeException("peer sent an invalid STREAMS (" + n + " streams, expected "
                    + expectStreams + ", span " + span + " ns)");
        }
        return new GdaPeerProtocol.Streams(seq, span, posted);
    }

    public static byte[] encodeEngines(GdaPeerProtocol.Engines e) {
        ByteBuffer b = ByteBuffer.allocate(GdaPeerProtocol.ENGINES_HEAD + 2 * e.backgroundThreads().length).putInt(e.seq())
                .putShort((short) e.engineThreads())
                .put((byte) (e.requested() == GdaLoaded.ProbeEngine.DEDICATED ? 1 : 0)).put((byte) 0)
                .putShort((short) e.qpThread()).putShort((short) e.backgroundThreads().length);
        for (int t : e.backgroundThreads()) {
            b.putShort((short) t);
        }
        return b.array();
    }

    /** expectStreams: the reserved background QPs of the run (0 with a shared queue). */
    public static GdaPeerProtocol.Engines decodeEngines(byte[] p, int expectStreams) {
        if (p.length != GdaPeerProtocol.ENGINES_HEAD + 2L * expectStreams && p.length != GdaPeerProtocol.ENGINES_HEAD) {
            throw new PeerExchangeException("ENGINES message for " + expectStreams + " background QPs has "
                    + (GdaPeerProtocol.ENGINES_HEAD + 2L * expectStreams) + " payload bytes, the peer sent " + p.length);
        }
        ByteBuffer b = ByteBuffer.wrap(p);
        int seq = b.getInt();
        int threads = Short.toUnsignedInt(b.getShort());
        int req = Byte.toUnsignedInt(b.get());
        int reserved = Byte.toUnsignedInt(b.get());
        int qpThread = Short.toUnsignedInt(b.getShort());
        int n = Short.toUnsignedInt(b.getShort());
        int[] bg = new int[n];
        for (int k = 0; k < n; k++) {
            bg[k] = Short.toUnsignedInt(b.getShort());
        }
        boolean placed = threads > 0 && n == expectStreams;
        boolean nothing = threads == 0 && n == 0 && qpThread == 0;
        if (req > 1 || reserved != 0 || !(placed || nothing) || (placed && qpThread >= threads)
                || java.util.Arrays.stream(bg).anyMatch(t -> t >= threads)) {
            throw new PeerExchangeException("peer sent an invalid ENGINES (" + threads + " engine threads, placement "
                    + req + ", QP on thread " + qpThread + ", " + n + " background QPs for " + expectStreams
                    + " expected)");
        }
        return new GdaPeerProtocol.Engines(seq, threads, req == 1 ? GdaLoaded.ProbeEngine.DEDICATED : GdaLoaded.ProbeEngine.SHARED,
                qpThread, bg);
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

    public static GdaPeerProtocol.Ready decodeReady(byte[] p) {
        try {
            ByteBuffer b = ByteBuffer.wrap(p);
            int seq = b.getInt();
            int ok = Byte.toUnsignedInt(b.get());
            if (ok > 1) {
                throw new PeerExchangeException("peer sent a READY with ok = " + ok);
            }
            String reason = readText(b, "READY");
            return new GdaPeerProtocol.Ready(seq, ok == 1, reason);
        } catch (BufferUnderflowException e) {
            throw new PeerExchangeException("peer READY message is truncated (" + p.length + " bytes)", e);
        }
    }

    public static byte[] encodeDone(GdaPeerProtocol.Done d) {
        return ByteBuffer.allocate(GdaPeerProtocol.DONE_LEN).putInt(d.seq()).putInt(d.status()).putLong(d.itersDone()).array();
    }

    public static GdaPeerProtocol.Done decodeDone(byte[] p) {
        if (p.length != GdaPeerProtocol.DONE_LEN) {
            throw new PeerExchangeException("DONE message of version " + PeerMessages.VERSION + " has " + GdaPeerProtocol.DONE_LEN
                    + " payload bytes, the peer sent " + p.length);
        }
        ByteBuffer b = ByteBuffer.wrap(p);
        GdaPeerProtocol.Done d = new GdaPeerProtocol.Done(b.getInt(), b.getInt(), b.getLong());
        if (d.itersDone() < 0) {
            throw new PeerExchangeException("peer sent a DONE with " + d.itersDone() + " iterations");
        }
        return d;
    }

    public static byte[] encodeReport(GdaPeerProtocol.Report r) {
        byte[] t = text(r.message());
        return ByteBuffer.allocate(4 + 4 + 8 + 1 + 8 + 2 + t.length).putInt(r.seq()).putInt(r.serveStatus())
                .putLong(r.peerPosts()).put((byte) (r.checked() ? 1 : 0)).putLong(r.payloadErrors())
                .putShort((short) t.length).put(t).array();
    }

    public static GdaPeerProtocol.Report decodeReport(byte[] p) {
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
            return new GdaPeerProtocol.Report(seq, st, posts, checked == 1, errs, msg);
        } catch (BufferUnderflowException e) {
            throw new PeerExchangeException("peer REPORT message is truncated (" + p.length + " bytes)", e);
        }
    }

    private static byte[] text(String s) {
        byte[] t = (s == null ? "" : s).getBytes(StandardCharsets.UTF_8);
        return t.length <= GdaPeerProtocol.MAX_TEXT ? t : java.util.Arrays.copyOf(t, GdaPeerProtocol.MAX_TEXT);
    }

    private static String readText(ByteBuffer b, String what) {
        int n = Short.toUnsignedInt(b.getShort());
        if (n > GdaPeerProtocol.MAX_TEXT || n != b.remaining()) {
            throw new PeerExchangeException("peer " + what + " message: text of " + n + " bytes, "
                    + b.remaining() + " left in the message");
        }
        byte[] t = new byte[n];
        b.get(t);
        return new String(t, StandardCharsets.UTF_8);
    }
}
