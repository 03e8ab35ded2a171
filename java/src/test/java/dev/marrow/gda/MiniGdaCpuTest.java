// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.fabric.Mlx5Options;
import dev.marrow.api.BackendUnavailableException;
import dev.marrow.api.NativeException;
import dev.marrow.api.Status;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.api.softnic.SoftNic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.foreign.MemorySegment;
import java.time.Duration;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** mini-gda on cpu + softnic through the Java API: delivery, counters, bounded failure paths. */
class MiniGdaCpuTest {
    static final int ITERS = 100;
    static final int WARMUP = 10;

    static GdaSetup cpu() {
        // idle polling: CI hosts may have fewer cores than spinning threads
        return GdaSetup.defaults(Target.CPU).withPollMode(SoftNic.PollMode.IDLE);
    }

    /** The checks shared with the GPU test: bytes, CQEs and counters. */
    static void assertDelivered(MiniGda g, GdaRun r) {
        GdaRunSpec s = r.spec();
        long total = s.iters() + s.warmup();
        String what = s.experiment() + " " + s.ordering() + " " + s.payload() + " " + s.size() + " B";
        assertTrue(r.valid(), what + ": payload errors " + r.payloadErrors());
        assertEquals(s.iters(), r.samplesNs().length);
        for (long v : r.samplesNs()) {
            assertTrue(v > 0 && v < s.timeoutNs(), what + ": sample " + v);
        }
        assertEquals(total, r.posts(), what + ": posts");
        assertEquals(total, r.cqes(), what + ": one CQE per signaled WRITE");
        assertEquals(total, r.doorbells(), what + ": one doorbell per WRITE");
        long writes = total + r.peerPosts();
        if (s.experiment() == Experiment.ROUND_TRIP) {
            assertEquals(total, r.peerPosts(), what + ": the peer answered every ping");
            assertTrue(GdaPattern.holds(g.inboxA(), 8, total - 1), what + ": reply word in A's inbox");
        }
        assertEquals(writes, r.emuCounters().get("emu_wqe_rdma_write"), what + ": engine executed every WRITE");
        assertEquals(writes, r.emuCounters().get("emu_cqe_req"), what + ": engine wrote every CQE");
        assertEquals(0L, r.emuCounters().get("emu_cqe_req_err"), what + ": no error CQE");
        long bytes = writes * s.size();
        assertEquals(s.payload() == Payload.INLINE ? bytes : 0L, r.emuCounters().get("emu_inline_bytes"), what);
        assertEquals(s.payload() == Payload.POINTER ? bytes : 0L, r.emuCounters().get("emu_gather_bytes"), what);
        assertTrue(GdaPattern.holds(g.inboxB(), s.size(), total - 1), what + ": destination holds the last iteration");
    }

    @ParameterizedTest
    @EnumSource(Ordering.class)
    void everyOrderingAndPayloadDeliversBytesAndCqes(Ordering o) {
        try (MiniGda g = MiniGda.open(cpu())) {
            for (Payload p : Payload.values()) {
                for (Experiment e : Experiment.values()) {
                    assertDelivered(g, g.run(GdaRunSpec.of(e, o, p, 8).withIters(ITERS, WARMUP)));
                }
            }
        }
    }

    @Test
    void inlineSizesOfFig3aArrive() {
        try (MiniGda g = MiniGda.open(cpu())) {
            for (int size : new int[] {16, 28, 32, 60, 92, 124, 220}) {
                GdaRun r = g.run(GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.FENCE_SYS, Payload.INLINE, size)
                        .withIters(ITERS, WARMUP));
                assertDelivered(g, r);
                assertEquals((16 + 16 + 4 + size + 63) / 64, r.wqebbsPerWqe(), size + " B inline WQEBBs");
            }
        }
    }

    @Test
    void collapsedCqCompletesByWqeCounter() {
        try (MiniGda g = MiniGda.open(cpu().withQueues(4, 2, true))) {
            assertDelivered(g, g.run(GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.RELEASE_SYS, Payload.INLINE, 60)
                    .withIters(ITERS, WARMUP)));
        }
    }

    @Test
    void aLostDoorbellEndsInTheTimeoutErrorNotAHang() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            try (MiniGda g = MiniGda.open(cpu())) {
                g.softNic().pauseEngine(true);
                NativeException e = assertThrows(NativeException.class, () -> g.run(
                        GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.GPU_FENCE, Payload.INLINE, 8)
                                .withIters(5, 0).withTimeoutNs(100_000_000L)));
                assertTrue(e.isTimeout(), e.getMessage());
                assertTrue(e.getMessage().contains("timed out") && e.getMessage().contains("doorbell"), e.getMessage());
                g.softNic().pauseEngine(false);
            }
        });
    }

    @Test
    void inlineBeyondTheQpMaximumIsRejected() {
        try (MiniGda g = MiniGda.open(cpu().withMaxInline(64))) {
            NativeException e = assertThrows(NativeException.class, () -> g.run(
                    GdaRunSpec.of(Experiment.ISSUE, Ordering.GPU_FENCE, Payload.INLINE, 65)));
            assertEquals(-34, e.status(), "ERANGE");
            assertTrue(e.getMessage().contains("exceeds the QP's max_inline_data 64"), e.getMessage());
            // the same size goes through as a pointer write
            assertDelivered(g, g.run(GdaRunSpec.of(Experiment.ISSUE, Ordering.GPU_FENCE, Payload.POINTER, 65)
                    .withIters(ITERS, WARMUP)));
        }
    }

    @Test
    void gpuPlacementNeedsTheCudaTarget() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MiniGda.open(cpu().withPlacement(Placement.GPU)));
        assertTrue(e.getMessage().contains("GPU memory") && e.getMessage().contains("--target cuda"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> cpu().withNicSms(0));
    }

    @Test
    void mlx5WithoutANicIsUnavailableWithAReason() {
        assumeFalse(dev.marrow.api.Backend.VERBS.isAvailable(), "an mlx5 NIC is present: see MiniGdaMlx5Test");
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class,
                () -> MiniGda.open(GdaSetup.defaults(Target.CUDA).withNic(Nic.MLX5)));
        assertTrue(e.getMessage().contains("verbs"), e.getMessage());
    }

    @Test
    void cpuPlusMlx5IsRefusedOnAnyMachine() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MiniGda.open(cpu().withNic(Nic.MLX5)));
        assertTrue(e.getMessage().contains("--target cuda only"), e.getMessage());
    }

    @Test
    void aSoftNicPeerThatNeverComesIsAClearBoundedError() {
        long t0 = System.nanoTime();
        dev.marrow.peer.PeerExchangeException e = assertThrows(dev.marrow.peer.PeerExchangeException.class,
                () -> MiniGda.open(cpu().withMlx5(Mlx5Options.defaults()
                        .withPeer(dev.marrow.peer.PeerAddress.parse("127.0.0.1:9"), null)
                        .withPeerTimeout(java.time.Duration.ofMillis(300)))));
        assertTrue(e.getMessage().contains("could not connect to peer 127.0.0.1:9"), e.getMessage());
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L, "the connect wait is bounded");
    }

    @Test
    void roundTripNeedsEightBytes() {
        assertThrows(IllegalArgumentException.class,
                () -> GdaRunSpec.of(Experiment.ROUND_TRIP, Ordering.NONE, Payload.INLINE, 16));
    }

    @Test
    void anEndpointRecoversAfterAnErrorCqe() {
        try (MiniGda g = MiniGda.open(cpu())) {
            MemorySegment ep = g.initiatorEndpoint();
            long rkeyAt = GdaLayouts.off(GdaLayouts.ENDPOINT, "rkey");
            int rkey = ep.get(JAVA_INT, rkeyAt);
            ep.set(JAVA_INT, rkeyAt, rkey ^ 0x5a5a00); // no such key: remote access error, both QPs to ERR
            GdaRunSpec putc = GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.RELEASE_SYS, Payload.INLINE, 8)
                    .withIters(ITERS, WARMUP);
            NativeException e = assertThrows(NativeException.class, () -> g.run(putc));
            assertTrue(e.is(Status.EIO) && e.getMessage().contains("error CQE"), e.getMessage());
            assertEquals(0, e.getSuppressed().length, "recovery failed: " + java.util.Arrays.toString(e.getSuppressed()));
            ep.set(JAVA_INT, rkeyAt, rkey);
            assertDelivered(g, g.run(putc));
            // B went to ERR with A (remote access error): the round trip needs both back in RTS.
            assertDelivered(g, g.run(GdaRunSpec.of(Experiment.ROUND_TRIP, Ordering.RELEASE_SYS, Payload.POINTER, 8)
                    .withIters(ITERS, WARMUP)));
        }
    }
}
