// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Target;
import dev.marrow.fabric.Mlx5Options;
import dev.marrow.api.NativeException;
import dev.marrow.peer.JobToken;
import dev.marrow.peer.PeerAddress;
import dev.marrow.peer.PeerExchange;
import dev.marrow.peer.PeerExchangeException;
import dev.marrow.peer.PeerMessages;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two-host run control of mini-gda (GdaPeerProtocol) without a NIC or a
 * GPU: codecs, malformed messages, and whole sessions over loopback TCP with
 * two threads, where the initiator's "run" writes the pattern into a shared
 * buffer standing in for the responder's inbox (what the RDMA WRITEs do).
 */
class GdaPeerProtocolTest {
    static final Duration T = Duration.ofSeconds(5);
    static final Duration BOUND = Duration.ofSeconds(30);
    /** Both sides of every session here: no token file of the user's is touched. */
    static final JobToken TOKEN = JobToken.random("test");
    static final GdaSetup SETUP = GdaSetup.defaults(Target.CUDA).withNic(Nic.MLX5)
            .withMlx5(Mlx5Options.defaults().withPeer(PeerAddress.parse("node2:7000"), null));

    static GdaRunSpec spec(Experiment e, int size) {
        return new GdaRunSpec(e, Ordering.RELEASE_SYS, Payload.POINTER, size, 20, 3, 1_000_000_000L);
    }

    /** What a local run returns: plausible counters, no local payload check (remote destination). */
    static GdaRun fakeRun(GdaRunSpec s) {
        long total = (long) s.iters() + s.warmup();
        long[] ns = new long[s.iters()];
        Arrays.fill(ns, 1000);
        return new GdaRun(SETUP, s, new GdaRun.Samples(ns, ns.clone(), 20_000, 30_000),
                new GdaRun.Counters(total, total, total, 0, 0), new GdaRun.WqeShape(3, 1), java.util.Map.of());
    }

    /** The "RDMA WRITE" of every iteration into the responder's inbox; lastIt: what the final write holds. */
    static Function<GdaRunSpec, GdaPeerProtocol.LocalOutcome> writer(MemorySegment inbox, int lag) {
        return s -> {
            long total = (long) s.iters() + s.warmup();
            for (long it = 0; it < total; it++) {
                write(inbox, s.size(), Math.max(0, it - lag));
            }
            return GdaPeerProtocol.LocalOutcome.of(fakeRun(s));
        };
    }

    static void write(MemorySegment dst, int len, long it) {
        for (int j = 0; j < len; j++) {
            dst.set(JAVA_BYTE, j, (byte) (GdaPattern.word(it, j / 4) >>> (8 * (j % 4))));
        }
    }

    /** A Responder over a plain buffer; the round trip's peer role "answers" every ping. */
    static final class FakeResponder implements GdaPeerProtocol.Responder {
        final MemorySegment inbox;
        final List<GdaRunSpec> served = Collections.synchronizedList(new ArrayList<>());
        volatile GdaPeerProtocol.Served serveResult;

        FakeResponder(MemorySegment inbox) {
            this.inbox = inbox;
        }

        @Override
        public String refusal(GdaRunSpec s) {
            return s.size() > inbox.byteSize() ? "the run writes " + s.size() + " bytes, this side's inbox has "
                    + inbox.byteSize() + ": start the responder with --size " + s.size() : null;
        }

        @Override
        public void prepare(GdaRunSpec s) {
            inbox.fill((byte) 0);
        }

        @Override
        public GdaPeerProtocol.Served serve(GdaRunSpec s) {
            served.add(s);
            return serveResult != null ? serveResult
                    : new GdaPeerProtocol.Served(0, (long) s.iters() + s.warmup(), "");
        }

        @Override
        public MemorySegment inbox() {
            return inbox;
        }
    }

    /** Runs the responder's loop on a thread against an initiator script on this one. */
    static <T> T session(FakeResponder r, List<String> log, Function<PeerExchange, T> initiator,
                         CompletableFuture<Integer>[] servedOut) {
        try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
            int port = l.port();
            CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> {
                try (PeerExchange x = l.accept(T)) {
                    return GdaPeerProtocol.serve(x, r, log::add);
                }
            });
            servedOut[0] = server;
            try (PeerExchange x = PeerExchange.open(PeerAddress.parse("127.0.0.1:" + port), T, TOKEN)) {
                return initiator.apply(x);
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aWholeSessionOverLoopbackChecksTheResponderInboxAndEndsAtTheClosingBarrier() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Arena a = Arena.ofShared()) {
                MemorySegment inbox = a.allocate(4096, 4096);
                FakeResponder r = new FakeResponder(inbox);
                List<String> log = Collections.synchronizedList(new ArrayList<>());
                CompletableFuture<Integer>[] served = new CompletableFuture[1];
                List<GdaRun> runs = session(r, log, x -> {
                    List<GdaRun> l = new ArrayList<>();
                    int seq = 0;
                    for (Experiment e : Experiment.values()) {
                        l.add(GdaPeerProtocol.initiate(x, ++seq, spec(e, 8), writer(inbox, 0)));
                    }
                    l.add(GdaPeerProtocol.initiate(x, ++seq, spec(Experiment.PUT_COMPLETION, 220), writer(inbox, 0)));
                    x.barrier(); // the closing barrier
                    return l;
                }, served);
                assertEquals(Experiment.values().length + 1, served[0].get(5, TimeUnit.SECONDS),
                        "runs served before the closing barrier");
                for (GdaRun run : runs) {
                    assertTrue(run.valid(), run.spec() + ": " + run.payloadErrors());
                    long total = run.spec().iters() + run.spec().warmup();
                    assertEquals(run.spec().experiment() == Experiment.ROUND_TRIP ? total : 0, run.peerPosts(),
                            run.spec().experiment() + ": the responder's posts");
                }
                assertEquals(1, r.served.size(), "only the round trip runs the peer role");
                assertEquals(spec(Experiment.ROUND_TRIP, 8), r.served.getFirst(), "the spec arrived whole");
                assertEquals(Experiment.values().length + 1, log.size(), log.toString());
                assertTrue(log.get(2).contains("answered 23 pings") && log.get(2).contains("final iteration"),
                        log.get(2));
            }
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void staleOrWrongBytesInTheResponderInboxAreAPayloadError() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Arena a = Arena.ofShared()) {
                MemorySegment inbox = a.allocate(4096, 4096);
                FakeResponder r = new FakeResponder(inbox);
                CompletableFuture<Integer>[] served = new CompletableFuture[1];
                GdaRun run = session(r, new ArrayList<>(), x -> {
                    // the last write carries the previous iteration's bytes
                    GdaRun g = GdaPeerProtocol.initiate(x, 1, spec(Experiment.PUT_COMPLETION, 28), writer(inbox, 1));
                    x.barrier();
                    return g;
                }, served);
                assertEquals(1, run.payloadErrors());
                assertFalse(run.valid());
                ResultRecordCheck.hasTwoHostParams(GdaRecords.record(List.of(run)));
                assertEquals(1, served[0].get(5, TimeUnit.SECONDS));
            }
        });
    }

    /** The record of a two-host run names peer, role and how the bytes were checked. */
    static final class ResultRecordCheck {
        static void hasTwoHostParams(dev.marrow.results.ResultRecord rec) {
            assertEquals("cuda+mlx5", rec.backend());
            assertTrue(rec.hardware());
            assertEquals("node2:7000", rec.params().get("peer"));
            assertEquals("initiator", rec.params().get("role"));
            assertTrue(String.valueOf(rec.params().get("payload_check")).contains("responder"), rec.params().toString());
            assertEquals(1L, ((Number) rec.metric("payload_errors")).longValue());
            assertEquals(false, rec.metric("valid"));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRefusedRunIsAClearErrorAndTheSessionGoesOn() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Arena a = Arena.ofShared()) {
                MemorySegment inbox = a.allocate(64, 64);
                FakeResponder r = new FakeResponder(inbox);
                CompletableFuture<Integer>[] served = new CompletableFuture[1];
                GdaRun ok = session(r, new ArrayList<>(), x -> {
                    PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> GdaPeerProtocol
                            .initiate(x, 1, spec(Experiment.PUT_COMPLETION, 220), writer(inbox, 0)));
                    assertTrue(e.getMessage().contains("refused run 1") && e.getMessage().contains("--size 220"),
                            e.getMessage());
                    GdaRun g = GdaPeerProtocol.initiate(x, 2, spec(Experiment.ISSUE, 60), writer(inbox, 0));
                    x.barrier();
                    return g;
                }, served);
                assertTrue(ok.valid());
                assertEquals(1, served[0].get(5, TimeUnit.SECONDS));
            }
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aFailedPeerRoleIsReportedAsTheResponderError() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Arena a = Arena.ofShared()) {
                MemorySegment inbox = a.allocate(4096, 4096);
                FakeResponder r = new FakeResponder(inbox);
                r.serveResult = new GdaPeerProtocol.Served(-110, 3, "marrow_gda_cuda_serve: GPU peer (serving the "
                        + "remote initiator) timed out in iteration 3");
                CompletableFuture<Integer>[] served = new CompletableFuture[1];
                NativeException e = session(r, new ArrayList<>(), x -> {
                    NativeException n = assertThrows(NativeException.class, () -> GdaPeerProtocol.initiate(x, 1,
                            spec(Experiment.ROUND_TRIP, 8), s -> {
                                throw new NativeException(-110, "ETIMEDOUT", "marrow_gda_cuda_run", "no reply");
                            }));
                    x.barrier();
                    return n;
                }, served);
                assertEquals(-110, e.status());
                assertTrue(e.isTimeout());
                assertTrue(e.getMessage().contains("responder's peer role") && e.getMessage().contains("iteration 3"),
                        e.getMessage());
                assertEquals(1, e.getSuppressed().length, "the initiator's own timeout rides along");
                assertEquals(1, served[0].get(5, TimeUnit.SECONDS));
            }
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aFailedLocalRunIsStillReportedToTheResponderThenThrown() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Arena a = Arena.ofShared()) {
                MemorySegment inbox = a.allocate(4096, 4096);
                List<String> log = Collections.synchronizedList(new ArrayList<>());
                CompletableFuture<Integer>[] served = new CompletableFuture[1];
                NativeException e = session(new FakeResponder(inbox), log, x -> {
                    NativeException n = assertThrows(NativeException.class, () -> GdaPeerProtocol.initiate(x, 1,
                            spec(Experiment.PUT_COMPLETION, 8), s -> {
                                throw new NativeException(-5, "EIO", "marrow_gda_cuda_run", "error CQE");
                            }));
                    x.barrier();
                    return n;
                }, served);
                assertEquals(-5, e.status());
                assertEquals(1, served[0].get(5, TimeUnit.SECONDS), "the responder went on to the closing barrier");
                assertTrue(log.getFirst().contains("not checked"), log.toString());
            }
        });
    }

    @Test
    void aResponderThatDiesIsAnInitiatorErrorNotAHang() {
        for (int dieAfter = 0; dieAfter < 2; dieAfter++) {
            int when = dieAfter;
            assertTimeoutPreemptively(BOUND, () -> {
                try (ServerSocket raw = new ServerSocket(0)) {
                    CompletableFuture<Void> responder = CompletableFuture.runAsync(() -> {
                        try (Socket s = raw.accept()) {
                            PeerExchange.answerHello(s, TOKEN, T);
                            // reads the RUN, then (1) says READY, or (0) says nothing; then dies
                            s.getInputStream().readNBytes(4 + 8 + GdaPeerProtocol.RUN_LEN);
                            if (when == 1) {
                                OutputStream o = s.getOutputStream();
                                o.write(PeerMessages.encode(GdaPeerProtocol.TYPE_READY,
                                        GdaPeerCodec.encodeReady(1, true, "")));
                                o.flush();
                                s.getInputStream().readNBytes(4 + 8 + GdaPeerProtocol.DONE_LEN);
                            }
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    });
                    try (PeerExchange x = PeerExchange.connect("127.0.0.1", raw.getLocalPort(), T, TOKEN)) {
                        PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> GdaPeerProtocol
                                .initiate(x, 1, spec(Experiment.ISSUE, 8), s -> GdaPeerProtocol.LocalOutcome
                                        .of(fakeRun(s))));
                        assertTrue(e.getMessage().contains("closed the connection"), e.getMessage());
                        assertTrue(e.getMessage().contains(when == 0 ? "READY" : "REPORT"), e.getMessage());
                    }
                    responder.get(5, TimeUnit.SECONDS);
                }
            });
        }
    }

    /**
     * Finding 8: the responder dies during the run; this side's run fails with a transport error
     * (the wire's view of the dead peer). The error keeps its status but says the responder went away.
     */
    @Test
    void aResponderThatDiesDuringTheRunIsNamedNextToTheLocalError() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (ServerSocket raw = new ServerSocket(0)) {
                CompletableFuture<Void> responder = CompletableFuture.runAsync(() -> {
                    try (Socket s = raw.accept()) {
                        PeerExchange.answerHello(s, TOKEN, T);
                        s.getInputStream().readNBytes(4 + 8 + GdaPeerProtocol.RUN_LEN);
                        OutputStream o = s.getOutputStream();
                        o.write(PeerMessages.encode(GdaPeerProtocol.TYPE_READY,
                                GdaPeerCodec.encodeReady(1, true, "")));
                        o.flush();
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    } // and dies: the connection closes
                });
                try (PeerExchange x = PeerExchange.connect("127.0.0.1", raw.getLocalPort(), T, TOKEN)) {
                    NativeException e = assertThrows(NativeException.class, () -> GdaPeerProtocol.initiate(x, 1,
                            spec(Experiment.PUT_COMPLETION, 8), s -> {
                                try {
                                    responder.get(5, TimeUnit.SECONDS); // the peer is gone before the run fails
                                } catch (Exception ex) {
                                    throw new RuntimeException(ex);
                                }
                                throw new NativeException(-5, "EIO", "marrow_gda_cpu_run",
                                        "initiator got an error CQE, syndrome 0x15");
                            }));
                    String m = e.getMessage();
                    assertEquals(-5, e.status(), m);
                    assertTrue(m.contains("syndrome 0x15"), m);
                    assertTrue(m.contains("exchange with the responder failed") && m.contains(x.peerName()), m);
                    assertTrue(m.contains("closed the connection") || m.contains("peer gone"), m);
                    assertTrue(m.contains("last received: READY for run 1"), m);
                }
            }
        });
    }

    @Test
    void aSilentResponderTimesOut() throws Exception {
        try (ServerSocket raw = new ServerSocket(0)) {
            CompletableFuture<Socket> held = CompletableFuture.supplyAsync(() -> {
                try {
                    Socket s = raw.accept();
                    PeerExchange.answerHello(s, TOKEN, T); // then silent
                    return s;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertTimeoutPreemptively(BOUND, () -> {
                try (PeerExchange x = PeerExchange.connect("127.0.0.1", raw.getLocalPort(), Duration.ofMillis(300),
                        TOKEN)) {
                    PeerExchangeException e = assertThrows(PeerExchangeException.class, () -> GdaPeerProtocol
                            .initiate(x, 1, spec(Experiment.ISSUE, 8), s -> {
                                throw new AssertionError("must not run before READY");
                            }));
                    assertTrue(e.getMessage().contains("no READY for run 1") && e.getMessage().contains("within"),
                            e.getMessage());
                }
            });
            held.get(5, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void anInitiatorThatDiesLeavesTheResponderWithAnErrorNotAHang() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Arena a = Arena.ofShared();
                 PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
                FakeResponder r = new FakeResponder(a.allocate(64, 64));
                CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> {
                    try (PeerExchange x = l.accept(T)) {
                        return GdaPeerProtocol.serve(x, r, s -> { });
                    }
                });
                try (Socket s = new Socket("127.0.0.1", l.port())) {
                    PeerExchange.sendHello(s, TOKEN, T);
                    s.getOutputStream().write(PeerMessages.encode(GdaPeerProtocol.TYPE_RUN,
                            GdaPeerCodec.encodeRun(1, spec(Experiment.ISSUE, 8))));
                    s.getOutputStream().flush();
                    s.getInputStream().readNBytes(4 + 8 + 7); // READY, then the initiator "dies"
                }
                Exception e = assertThrows(Exception.class, () -> server.get(10, TimeUnit.SECONDS));
                assertTrue(e.getCause() instanceof PeerExchangeException, String.valueOf(e.getCause()));
                assertTrue(e.getCause().getMessage().contains("DONE of run 1"), e.getCause().getMessage());
            }
        });
    }

    @Test
    void aRunFromAnotherVersionIsRefusedWithTheReason() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Arena a = Arena.ofShared();
                 PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
                FakeResponder r = new FakeResponder(a.allocate(64, 64));
                CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> {
                    try (PeerExchange x = l.accept(T)) {
                        return GdaPeerProtocol.serve(x, r, s -> { });
                    }
                });
                try (Socket s = new Socket("127.0.0.1", l.port())) {
                    PeerExchange.sendHello(s, TOKEN, T);
                    byte[] f = PeerMessages.encode(GdaPeerProtocol.TYPE_RUN,
                            GdaPeerCodec.encodeRun(1, spec(Experiment.ISSUE, 8)));
                    f[4 + 5] = 1; // version 1: before the run control existed
                    s.getOutputStream().write(f);
                    s.getOutputStream().flush();
                    Exception e = assertThrows(Exception.class, () -> server.get(10, TimeUnit.SECONDS));
                    assertTrue(e.getCause().getMessage().contains("exchange version 1, this build speaks "
                            + PeerMessages.VERSION), e.getCause().getMessage());
                }
            }
        });
    }

    @Test
    void codecsRoundTripEveryField() {
        for (Experiment e : Experiment.values()) {
            for (Ordering o : Ordering.values()) {
                for (Payload p : Payload.values()) {
                    GdaRunSpec s = new GdaRunSpec(e, o, p, e == Experiment.ROUND_TRIP ? 8 : 220, Integer.MAX_VALUE, 0,
                            Long.MAX_VALUE);
                    GdaPeerProtocol.Run run = GdaPeerCodec.decodeRun(GdaPeerCodec.encodeRun(-7, s));
                    assertEquals(-7, run.seq());
                    assertEquals(s, run.spec());
                }
            }
        }
        assertEquals(new GdaPeerProtocol.Ready(3, false, "no GPU: ü"),
                GdaPeerCodec.decodeReady(GdaPeerCodec.encodeReady(3, false, "no GPU: ü")));
        GdaPeerProtocol.Done d = new GdaPeerProtocol.Done(4, -110, 1L << 33);
        assertEquals(d, GdaPeerCodec.decodeDone(GdaPeerCodec.encodeDone(d)));
        GdaPeerProtocol.Report rep = new GdaPeerProtocol.Report(5, -5, 1L << 40, true, 1, "x".repeat(10));
        assertEquals(rep, GdaPeerCodec.decodeReport(GdaPeerCodec.encodeReport(rep)));
        String longText = "y".repeat(5000);
        assertEquals(GdaPeerProtocol.MAX_TEXT, GdaPeerCodec.decodeReport(GdaPeerCodec.encodeReport(
                new GdaPeerProtocol.Report(1, 0, 0, true, 0, longText))).message().length(), "texts are cut");
        // a frame carries them under the usual header
        PeerMessages.Frame f = PeerMessages.decodeFrame(Arrays.copyOfRange(PeerMessages.encode(
                GdaPeerProtocol.TYPE_DONE, GdaPeerCodec.encodeDone(d)), 4, 4 + 8 + GdaPeerProtocol.DONE_LEN));
        assertEquals(GdaPeerProtocol.TYPE_DONE, f.type());
        assertEquals(d, GdaPeerCodec.decodeDone(f.payload()));
    }

    @Test
    void malformedRunControlMessagesAreRefusedWithTheReason() {
        byte[] run = GdaPeerCodec.encodeRun(1, spec(Experiment.ISSUE, 8));
        assertMsg(() -> GdaPeerCodec.decodeRun(Arrays.copyOf(run, 20)), "has 36 payload bytes, the peer sent 20");
        assertMsg(() -> GdaPeerCodec.decodeRun(Arrays.copyOf(run, 40)), "the peer sent 40");
        byte[] exp = run.clone();
        exp[5] = 9;
        assertMsg(() -> GdaPeerCodec.decodeRun(exp), "unknown experiment code 9");
        byte[] ord = run.clone();
        ord[7] = 7;
        assertMsg(() -> GdaPeerCodec.decodeRun(ord), "unknown ordering code 7");
        byte[] pay = run.clone();
        pay[9] = 2;
        assertMsg(() -> GdaPeerCodec.decodeRun(pay), "unknown payload code 2");
        byte[] rtt16 = GdaPeerCodec.encodeRun(1, spec(Experiment.ISSUE, 16));
        rtt16[5] = (byte) Experiment.ROUND_TRIP.code();
        assertMsg(() -> GdaPeerCodec.decodeRun(rtt16), "invalid RUN: round trip polls one 8-byte data word");
        byte[] noIters = run.clone();
        ByteBuffer.wrap(noIters).putInt(16, 0);
        assertMsg(() -> GdaPeerCodec.decodeRun(noIters), "invalid RUN: iters 0 must be 1..2^32-1");
        byte[] noTimeout = run.clone();
        ByteBuffer.wrap(noTimeout).putLong(28, 0);
        assertMsg(() -> GdaPeerCodec.decodeRun(noTimeout), "invalid RUN: timeout 0 ns must be > 0");

        assertMsg(() -> GdaPeerCodec.decodeReady(new byte[3]), "READY message is truncated");
        byte[] ready = GdaPeerCodec.encodeReady(1, true, "abc");
        assertMsg(() -> GdaPeerCodec.decodeReady(Arrays.copyOf(ready, ready.length - 1)), "text of 3 bytes");
        byte[] okByte = ready.clone();
        okByte[4] = 5;
        assertMsg(() -> GdaPeerCodec.decodeReady(okByte), "ok = 5");
        assertMsg(() -> GdaPeerCodec.decodeDone(new byte[15]), "DONE message of version");
        byte[] negDone = GdaPeerCodec.encodeDone(new GdaPeerProtocol.Done(1, 0, 0));
        negDone[8] = (byte) 0x80;
        assertMsg(() -> GdaPeerCodec.decodeDone(negDone), "iterations");
        byte[] rep = GdaPeerCodec.encodeReport(new GdaPeerProtocol.Report(1, 0, 0, true, 0, ""));
        assertMsg(() -> GdaPeerCodec.decodeReport(Arrays.copyOf(rep, 10)), "REPORT message is truncated");
        rep[16] = 2;
        assertMsg(() -> GdaPeerCodec.decodeReport(rep), "invalid REPORT");

        byte[] body = Arrays.copyOfRange(PeerMessages.encode(GdaPeerProtocol.TYPE_RUN, run), 4, 4 + 8 + run.length);
        body[5] = 9;
        assertMsg(() -> PeerMessages.decodeFrame(body), "exchange version 9");
        assertMsg(() -> PeerMessages.decodeFrame(new byte[5]), "shorter than the 8-byte header");
    }

    // ---- gda loaded across two processes (docs/design/two-process.md section 11) ----

    /** The probe of a loaded run: an 8-byte inline round trip. */
    static GdaRunSpec loadedSpec() {
        GdaRunSpec r = spec(Experiment.ROUND_TRIP, 8);
        return new GdaRunSpec(r.experiment(), r.ordering(), Payload.INLINE, 8, r.iters(), r.warmup(), r.timeoutNs());
    }

    static final GdaPeerProtocol.Loaded LOADED = new GdaPeerProtocol.Loaded(GdaLoaded.Queue.RESERVED, 2, 64, 16,
            30_000_000L);

    /** The loaded RUN of an initiator built before ENGINES (60 bytes). */
    static final GdaPeerProtocol.Loaded OLD_LOADED = new GdaPeerProtocol.Loaded(GdaLoaded.Queue.RESERVED, 2, 64, 16,
            30_000_000L, false);

    /** A responder that serves loaded runs: its own streams "posted" 5 and 7, nothing run natively. */
    static final class LoadedResponder implements GdaPeerProtocol.Responder {
        final FakeResponder base;
        final List<GdaLoaded.Spec> served = Collections.synchronizedList(new ArrayList<>());

        LoadedResponder(MemorySegment inbox) {
            base = new FakeResponder(inbox);
        }

        public String refusal(GdaRunSpec s) {
            return base.refusal(s);
        }

        public void prepare(GdaRunSpec s) {
            base.prepare(s);
        }

        public GdaPeerProtocol.Served serve(GdaRunSpec s) {
            return base.serve(s);
        }

        public MemorySegment inbox() {
            return base.inbox();
        }

        @Override
        public String loadedRefusal(GdaLoaded.Spec spec) {
            return null;
        }

        @Override
        public GdaPeerProtocol.LoadedServed serveLoaded(GdaLoaded.Spec spec, long[] posted) {
            served.add(spec);
            posted[0] = 5;
            posted[1] = 7;
            return new GdaPeerProtocol.LoadedServed(new GdaPeerProtocol.Served(0, spec.iters() + spec.warmup(), ""),
                    1_000_000);
        }
    }

    private static GdaLoaded.Run fakeLoaded(GdaRunSpec s) {
        return new GdaLoaded.Run(LOADED.spec(s), new long[] {1}, 1, 0, 0, 0, 0);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aLoadedRunCarriesTheBackgroundBothWaysAndTheResponderChecksItsInbox() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Arena a = Arena.ofShared()) {
                MemorySegment inbox = a.allocate(GdaLoaded.inboxBytes(2), 4096);
                LoadedResponder r = new LoadedResponder(inbox);
                List<String> log = Collections.synchronizedList(new ArrayList<>());
                CompletableFuture<Integer>[] served = new CompletableFuture[1];
                GdaRunSpec s = loadedSpec();
                List<GdaPeerProtocol.LoadedOutcome> out = sessionOf(r, log, x -> {
                    List<GdaPeerProtocol.LoadedOutcome> l = new ArrayList<>();
                    // 1: the final probe word lands, this side's streams posted nothing: clean
                    l.add(GdaPeerProtocol.initiateLoaded(x, 1, s, LOADED, () -> { }, posted -> {
                        write(inbox, 8, (long) s.iters() + s.warmup() - 1);
                        return fakeLoaded(s);
                    }));
                    // 2: this side claims 3 WRITEs of stream 0 that never landed: the responder finds 3 wrong slots
                    l.add(GdaPeerProtocol.initiateLoaded(x, 2, s, LOADED, () -> { }, posted -> {
                        write(inbox, 8, (long) s.iters() + s.warmup() - 1);
                        posted[0] = 3;
                        return fakeLoaded(s);
                    }));
                    // 3: an initiator of the first loaded RUN (60 bytes) is served without ENGINES, in step
                    l.add(GdaPeerProtocol.initiateLoaded(x, 3, s, OLD_LOADED, () -> { }, posted -> {
                        write(inbox, 8, (long) s.iters() + s.warmup() - 1);
                        return fakeLoaded(s);
                    }));
                    x.barrier();
                    return l;
                }, served);
                assertEquals(3, served[0].get(5, TimeUnit.SECONDS));
                assertEquals(LOADED.spec(s), r.served.getFirst(), "the background spec arrived whole");
                GdaPeerProtocol.LoadedOutcome ok = out.get(0);
                assertEquals(0, ok.report().payloadErrors(), ok.report().message());
                assertEquals((long) s.iters() + s.warmup(), ok.report().peerPosts());
                assertEquals(12, ok.peer().total(), "the responder's stream counts");
                assertEquals(1_000_000, ok.peer().spanNs());
                GdaPeerProtocol.LoadedOutcome bad = out.get(1);
                assertEquals(3, bad.report().payloadErrors(), bad.report().message());
                assertTrue(bad.report().message().contains("3 of the initiator's background slots wrong"),
                        bad.report().message());
                assertTrue(log.get(0).contains("inbox holds the final probe word"), log.get(0));
                // this responder placed nothing (no NIC): ENGINES says so, rather than echoing anything
                assertEquals(0, ok.peerEngines().engineThreads());
                assertEquals(null, ok.peerEngines().placement(false));
                GdaPeerProtocol.LoadedOutcome old = out.get(2);
                assertEquals(null, old.peerEngines(), "no ENGINES asked, none sent");
                assertEquals(0, old.report().payloadErrors(), old.report().message());
                assertEquals(12, old.peer().total());
            }
        });
    }

    @Test
    @SuppressWarnings("unchecked")
    void aResponderThatServesNoLoadedRunsRefusesItWithTheReason() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (Arena a = Arena.ofShared()) {
                FakeResponder r = new FakeResponder(a.allocate(64, 64));
                CompletableFuture<Integer>[] served = new CompletableFuture[1];
                GdaRunSpec s = loadedSpec();
                RuntimeException e = session(r, new ArrayList<>(), x -> {
                    RuntimeException t = assertThrows(PeerExchangeException.class, () ->
                            GdaPeerProtocol.initiateLoaded(x, 1, s, LOADED, () -> { }, p -> fakeLoaded(s)));
                    x.barrier(); // the session goes on after a refusal
                    return t;
                }, served);
                assertTrue(e.getMessage().contains("refused loaded run 1") && e.getMessage().contains(
                        "serves no loaded round trips"), e.getMessage());
                assertEquals(0, served[0].get(5, TimeUnit.SECONDS));
            }
        });
    }

    /**
     * A responder built before ENGINES accepted loaded RUNs of 60 bytes only: it refuses this
     * Marrow's 64-byte RUN in its READY with its length rule, and the initiator says what to do.
     */
    @Test
    void aResponderWithoutEnginesRefusesTheLongerRunCleanly() {
        assertTimeoutPreemptively(BOUND, () -> {
            try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
                CompletableFuture<Integer> old = CompletableFuture.supplyAsync(() -> {
                    try (PeerExchange x = l.accept(T)) {
                        byte[] run = x.receiveMessage(GdaPeerProtocol.TYPE_RUN, "RUN");
                        String why = run.length == 60 ? "" : "RUN message of version 3 has 36 payload bytes, the peer "
                                + "sent " + run.length + " (a loaded round trip's RUN has 60)"; // its words
                        x.sendMessage(GdaPeerProtocol.TYPE_READY, GdaPeerCodec.encodeReady(
                                ByteBuffer.wrap(run).getInt(), why.isEmpty(), why), "READY");
                        x.answerBarrier(x.receiveAny("closing barrier"));
                        return run.length;
                    }
                });
                try (PeerExchange x = PeerExchange.open(PeerAddress.parse("127.0.0.1:" + l.port()), T, TOKEN)) {
                    GdaRunSpec s = loadedSpec();
                    PeerExchangeException e = assertThrows(PeerExchangeException.class, () ->
                            GdaPeerProtocol.initiateLoaded(x, 1, s, LOADED, () -> { }, p -> fakeLoaded(s)));
                    assertTrue(e.getMessage().contains("the peer sent 64") && e.getMessage().contains(
                            "run the same Marrow on both sides"), e.getMessage());
                    x.barrier();
                }
                assertEquals(64, old.get(5, TimeUnit.SECONDS));
            }
        });
    }

    /** session() for any Responder. */
    static <T> T sessionOf(GdaPeerProtocol.Responder r, List<String> log, Function<PeerExchange, T> initiator,
                           CompletableFuture<Integer>[] servedOut) {
        try (PeerExchange.Listener l = PeerExchange.bind(PeerAddress.listen(null, 0), TOKEN)) {
            int port = l.port();
            CompletableFuture<Integer> server = CompletableFuture.supplyAsync(() -> {
                try (PeerExchange x = l.accept(T)) {
                    return GdaPeerProtocol.serve(x, r, log::add);
                }
            });
            servedOut[0] = server;
            try (PeerExchange x = PeerExchange.open(PeerAddress.parse("127.0.0.1:" + port), T, TOKEN)) {
                return initiator.apply(x);
            }
        }
    }

    @Test
    void loadedCodecsRoundTripAndRefuseWhatTheRunnerWould() {
        GdaRunSpec s = loadedSpec();
        byte[] p = GdaPeerCodec.encodeLoadedRun(9, s, LOADED);
        // this Marrow asks for the responder's engine placement: 4 bytes more than the first loaded RUN
        assertEquals(GdaPeerProtocol.RUN_LEN + GdaPeerProtocol.LOADED_EXT_LEN + GdaPeerProtocol.ENGINES_EXT_LEN,
                p.length);
        GdaPeerProtocol.Run run = GdaPeerCodec.decodeRun(p);
        assertEquals(new GdaPeerProtocol.Run(9, s, LOADED), run);
        assertTrue(run.loaded().enginesReport());
        assertEquals(null, GdaPeerCodec.decodeRun(GdaPeerCodec.encodeRun(9, s)).loaded(), "a plain RUN");
        // the first loaded RUN (60 bytes, an earlier initiator) is still served, without ENGINES
        GdaPeerProtocol.Loaded old = new GdaPeerProtocol.Loaded(LOADED.queue(), LOADED.streams(), LOADED.window(),
                LOADED.signalEvery(), LOADED.paceMsgsPerS(), false);
        byte[] p60 = GdaPeerCodec.encodeLoadedRun(9, s, old);
        assertEquals(60, p60.length);
        assertEquals(new GdaPeerProtocol.Run(9, s, old), GdaPeerCodec.decodeRun(p60));
        // what a responder without the extension says (the old rule accepted 36 and 60 only), and this one
        assertMsg(() -> GdaPeerCodec.decodeRun(Arrays.copyOf(p, p.length + 1)), "has 36 payload bytes, the "
                + "peer sent 65 (a loaded round trip's RUN has 60, or 64 with the engine-placement report)");
        byte[] flags = p.clone();
        ByteBuffer.wrap(flags).putInt(GdaPeerProtocol.RUN_LEN + GdaPeerProtocol.LOADED_EXT_LEN, 3);
        assertMsg(() -> GdaPeerCodec.decodeRun(flags), "engine-placement flags");
        byte[] queue = p.clone();
        ByteBuffer.wrap(queue).putShort(GdaPeerProtocol.RUN_LEN + 4, (short) 2);
        assertMsg(() -> GdaPeerCodec.decodeRun(queue), "queue 2");
        byte[] many = p.clone();
        ByteBuffer.wrap(many).putInt(GdaPeerProtocol.RUN_LEN, 100_000);
        assertMsg(() -> GdaPeerCodec.decodeRun(many), "100000 streams");
        byte[] window = p.clone();
        ByteBuffer.wrap(window).putInt(GdaPeerProtocol.RUN_LEN + 8, 0);
        assertMsg(() -> GdaPeerCodec.decodeRun(window), "invalid RUN: loaded");
        byte[] issue = GdaPeerCodec.encodeLoadedRun(9, spec(Experiment.ISSUE, 8), LOADED);
        assertMsg(() -> GdaPeerCodec.decodeRun(issue), "8-byte inline round trip");

        GdaPeerProtocol.Streams st = new GdaPeerProtocol.Streams(4, 123, new long[] {1, 1L << 40});
        GdaPeerProtocol.Streams back = GdaPeerCodec.decodeStreams(GdaPeerCodec.encodeStreams(st), 2);
        assertEquals(4, back.seq());
        assertEquals(123, back.spanNs());
        assertTrue(Arrays.equals(st.posted(), back.posted()));
        assertMsg(() -> GdaPeerCodec.decodeStreams(GdaPeerCodec.encodeStreams(st), 3), "for 3 streams");
        byte[] neg = GdaPeerCodec.encodeStreams(new GdaPeerProtocol.Streams(4, 0, new long[] {-1}));
        assertMsg(() -> GdaPeerCodec.decodeStreams(neg, 1), "invalid STREAMS");

        GdaPeerProtocol.Engines e = new GdaPeerProtocol.Engines(4, 3, GdaLoaded.ProbeEngine.DEDICATED, 0,
                new int[] {1, 2, 1});
        GdaPeerProtocol.Engines eb = GdaPeerCodec.decodeEngines(GdaPeerCodec.encodeEngines(e), 3);
        assertEquals(3, eb.engineThreads());
        assertEquals(GdaLoaded.ProbeEngine.DEDICATED, eb.requested());
        assertTrue(Arrays.equals(new int[] {1, 2, 1}, eb.backgroundThreads()));
        assertTrue(eb.placement(false).probeEngineAlone());
        GdaPeerProtocol.Engines none = GdaPeerProtocol.Engines.of(5, null, GdaLoaded.ProbeEngine.SHARED);
        assertEquals(null, GdaPeerCodec.decodeEngines(GdaPeerCodec.encodeEngines(none), 3).placement(false),
                "a responder whose run failed placed nothing");
        assertMsg(() -> GdaPeerCodec.decodeEngines(GdaPeerCodec.encodeEngines(e), 2), "for 2 background QPs");
        GdaPeerProtocol.Engines outOfRange = new GdaPeerProtocol.Engines(4, 2, GdaLoaded.ProbeEngine.SHARED, 0,
                new int[] {1, 2, 1});
        assertMsg(() -> GdaPeerCodec.decodeEngines(GdaPeerCodec.encodeEngines(outOfRange), 3),
                "invalid ENGINES");
    }

    private static void assertMsg(org.junit.jupiter.api.function.Executable x, String part) {
        RuntimeException e = assertThrows(RuntimeException.class, x);
        assertTrue(e.getMessage().contains(part), "expected '" + part + "' in: " + e.getMessage());
    }
}
