// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.api.BackendUnavailableException;
import dev.marrow.api.NativeException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CI tests of the Java API with CPU producers on the software NIC (idle
 * engine, few threads: CI hosts have two cores). Each test asserts delivered
 * bytes or counters that a broken proxy would get wrong.
 */
class MiniProxyTest {
    private static final long TIMEOUT = 5_000_000_000L;

    static ProxyConfig small(int workers, int rings, int batch, Handoff h) {
        return ProxyConfig.softnic(workers, rings, batch, h).withLogSlots(4).withLogSq(6).withCheckOrder(true)
                .withEngine(false, 1, -1);
    }

    @Test
    void bothHandoffsDeliverEveryRequestExactlyOnceInOrder() {
        for (Handoff h : Handoff.values()) {
            try (MiniProxy px = MiniProxy.open(small(2, 4, 8, h).withLogSlots(5))) {
                px.start();
                RateResult r = px.cpuRate(2, 20_000, 1_000, 8, TIMEOUT);
                assertEquals(40_000, r.messages(), h.label());
                assertEquals(0, r.verifyErrors(), h.label());
                long requests = r.workers().stream().mapToLong(WorkerStats::requests).sum();
                assertEquals(40_000, requests, h + ": workers posted exactly what was enqueued in the window");
                long consumed = 0;
                long completed = 0;
                for (int ring = 0; ring < 4; ring++) {
                    long[] c = px.ringCounters(ring);
                    consumed += c[0];
                    completed += c[1];
                }
                assertEquals(42_000, consumed, h.label());
                assertEquals(42_000, completed, h.label());
                for (WorkerStats w : r.workers()) {
                    assertTrue(w.chains() > 0 && w.meanChainLength() >= 1 && w.meanChainLength() <= 8, w.toString());
                    assertEquals(0, w.error());
                }
            }
        }
    }

    @Test
    void enqueuedWritesLandAtTheirOffsets() {
        try (MiniProxy px = MiniProxy.open(small(1, 1, 4, Handoff.TUNED).withMinBufferBytes(1 << 20))) {
            px.start();
            long half = px.buffer().byteSize() / 2;
            for (int k = 0; k < 100; k++) {
                px.buffer().set(ValueLayout.JAVA_LONG_UNALIGNED, 16384 + 8L * k, 0xFEED0000L + k);
                long pos = px.enqueue(0, 16384 + 8 * k, (int) (half + 16384 + 8L * k), 8, TIMEOUT);
                assertEquals(k, pos);
            }
            px.await(0, 100, TIMEOUT);
            for (int k = 0; k < 100; k++) {
                assertEquals(0xFEED0000L + k, px.buffer().get(ValueLayout.JAVA_LONG_UNALIGNED, half + 16384 + 8L * k));
            }
        }
    }

    @Test
    void stoppedWorkerMakesProducersTimeOutWithAClearError() {
        try (MiniProxy px = MiniProxy.open(small(1, 1, 4, Handoff.BASELINE).withLogSlots(2))) {
            px.start();
            px.stop();
            long t0 = System.nanoTime();
            NativeException e = assertThrows(NativeException.class, () -> {
                for (int i = 0; i < 10; i++) {
                    px.enqueue(0, 0, 20000, 8, 100_000_000L);
                }
            });
            long took = System.nanoTime() - t0;
            assertTrue(e.isTimeout(), e.getMessage());
            assertTrue(e.getMessage().contains("worker 0 is stopped"), e.getMessage());
            assertTrue(took < 3_000_000_000L, "bounded wait took " + took + " ns");
        }
    }

    @Test
    void latencySamplesArePositiveAndOrdered() {
        try (MiniProxy px = MiniProxy.open(small(1, 2, 4, Handoff.TUNED))) {
            px.start();
            LatencySamples s = px.cpuLatency(200, 20, 8, TIMEOUT, true, true);
            assertEquals(200, s.issueNs().length);
            for (int i = 0; i < 200; i++) {
                // An issue can take less than one tick of the timer: it may read 0.
                assertTrue(s.issueNs()[i] >= 0 && s.putcNs()[i] >= s.issueNs()[i] && s.rttNs()[i] > 0);
            }
            List<WorkerStats> w = px.window();
            assertTrue(w.getFirst().requests() >= 2 * 220, "pings and replies went through the worker: " + w);
        }
    }

    @Test
    void verbsWithoutADeviceIsUnavailableNotACrash() {
        ProxyConfig c = small(1, 1, 4, Handoff.TUNED).withNic("verbs", null);
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> MiniProxy.open(c).close());
        assertTrue(e.getMessage().contains("verbs backend"), e.getMessage());
    }

    @Test
    void configRejectsImpossibleShapes() {
        // The library's check (marrow_proxy_config_check) is the only one: its text is the usage error.
        IllegalArgumentException rings = assertThrows(IllegalArgumentException.class,
                () -> ProxyConfig.softnic(4, 2, 8, Handoff.TUNED));
        assertTrue(rings.getMessage().startsWith("rings 2 must be >= workers (4)"), rings.getMessage());
        IllegalArgumentException batch = assertThrows(IllegalArgumentException.class,
                () -> ProxyConfig.softnic(1, 1, 0, Handoff.TUNED));
        assertTrue(batch.getMessage().startsWith("batch 0 must be 1.."), batch.getMessage());
        IllegalArgumentException slots = assertThrows(IllegalArgumentException.class,
                () -> small(1, 1, 4, Handoff.TUNED).withLogSlots(-1));
        assertTrue(slots.getMessage().startsWith("log-slots -1 must be 1..20"), slots.getMessage());
        IllegalArgumentException sq = assertThrows(IllegalArgumentException.class,
                () -> MiniProxy.open(small(1, 1, 4, Handoff.TUNED).withLogSq(16)).close());
        assertTrue(sq.getMessage().contains("16"), "the software NIC's refusal names the value: " + sq.getMessage());
        try (MiniProxy px = MiniProxy.open(small(1, 1, 4, Handoff.TUNED))) {
            px.start();
            NativeException e = assertThrows(NativeException.class, () -> px.cpuRate(2, 10, 0, 8, TIMEOUT));
            assertTrue(e.getMessage().contains("one producer per ring"), e.getMessage());
        }
    }
}
