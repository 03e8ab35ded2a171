// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.api.Backend;
import dev.marrow.api.NativeException;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CI guarantees again with CUDA producers (GPU threads publishing into
 * mapped host rings): delivery with byte verification for both handoffs,
 * back-pressure through many laps of a small ring, latency phases, and a
 * stopped worker turning into a bounded, explained GPU-side timeout.
 */
@Tag("gpu")
@RequiresBackend(Backend.CUDA)
class GpuProducersTest {
    private static final long TIMEOUT = 5_000_000_000L;

    static ProxyConfig cfg(int workers, int rings, int batch, Handoff h, int logSlots) {
        return ProxyConfig.softnic(workers, rings, batch, h).withLogSlots(logSlots).withLogSq(8).withCheckOrder(true)
                .withMinBufferBytes(4L << 20);
    }

    @Test
    void bothHandoffsDeliverFromGpuThreads() {
        for (Handoff h : Handoff.values()) {
            try (MiniProxy px = MiniProxy.open(cfg(2, 8, 16, h, 3))) {
                GpuProducers g = px.openGpu(0, h, true);
                try {
                    px.start();
                    // 8 slots per ring, 20000 messages per producer: thousands of laps under back-pressure.
                    RateResult r = g.rate(8, 20_000, 1_000, 8, TIMEOUT);
                    assertEquals(160_000, r.messages(), h.label());
                    assertEquals(0, r.verifyErrors());
                    assertEquals(160_000, r.workers().stream().mapToLong(WorkerStats::requests).sum());
                    for (int ring = 0; ring < 8; ring++) {
                        long[] c = px.ringCounters(ring);
                        assertEquals(21_000, c[0], "ring " + ring + " consumed");
                    }
                } finally {
                    g.close();
                }
            }
        }
    }

    @Test
    void baselineProducersMaySharePRings() {
        try (MiniProxy px = MiniProxy.open(cfg(1, 2, 8, Handoff.BASELINE, 4))) {
            GpuProducers g = px.openGpu(0, Handoff.BASELINE, true);
            try {
                px.start();
                RateResult r = g.rate(64, 2_000, 0, 8, TIMEOUT);   // 32 GPU threads per ring
                assertEquals(128_000, r.messages());
                assertEquals(0, r.verifyErrors());
            } finally {
                g.close();
            }
        }
    }

    /** One step of %globaltimer on the H200 (32 ns): a shorter phase may read 0. */
    private static final long TIMER_QUANTUM_NS = 32;

    @Test
    void latencyPhasesProduceSamples() {
        for (Handoff h : Handoff.values()) {
            try (MiniProxy px = MiniProxy.open(cfg(1, 2, 16, h, 6))) {
                GpuProducers g = px.openGpu(0, h, true);
                try {
                    px.start();
                    LatencySamples s = g.latency(500, 50, TIMEOUT, true, true);
                    // An issue can be shorter than one step of the GPU timer, so a single sample may
                    // read 0: phases are checked for order, and the put+completion through a CPU
                    // worker (microseconds) must lie above the quantum.
                    for (int i = 0; i < 500; i++) {
                        assertTrue(s.issueNs()[i] >= 0 && s.putcNs()[i] >= s.issueNs()[i]
                                && s.rttNs()[i] >= s.issueNs()[i], "sample " + i);
                    }
                    long[] putc = s.putcNs().clone();
                    java.util.Arrays.sort(putc);
                    assertTrue(putc[putc.length / 2] > TIMER_QUANTUM_NS,
                            "median put+completion " + putc[putc.length / 2] + " ns through a CPU worker");
                    assertTrue(g.smClockKhz() > 100_000, "measured SM clock " + g.smClockKhz());
                } finally {
                    g.close();
                }
            }
        }
    }

    @Test
    void stoppedWorkerMakesGpuProducersTimeOut() {
        try (MiniProxy px = MiniProxy.open(cfg(1, 1, 8, Handoff.TUNED, 3))) {
            GpuProducers g = px.openGpu(0, Handoff.TUNED, true);
            try {
                px.start();
                px.stop();
                long t0 = System.nanoTime();
                NativeException e = assertThrows(NativeException.class, () -> g.rate(1, 100, 0, 8, 200_000_000L));
                assertTrue(e.isTimeout(), e.getMessage());
                assertTrue(e.getMessage().contains("a free ring slot") || e.getMessage().contains("a completion"),
                        e.getMessage());
                assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
            } finally {
                g.close();
            }
        }
    }
}
