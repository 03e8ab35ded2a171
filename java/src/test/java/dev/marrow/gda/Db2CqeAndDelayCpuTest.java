// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The doorbell-to-CQE experiment and the responder delay on cpu + softnic. */
class Db2CqeAndDelayCpuTest {
    @Test
    void doorbellToCqeDeliversAndCountsLikePutCompletion() {
        try (MiniGda g = MiniGda.open(MiniGdaCpuTest.cpu())) {
            GdaRun r = g.run(GdaRunSpec.of(Experiment.DB2CQE, Ordering.RELEASE_SYS, Payload.INLINE, 8)
                    .withIters(MiniGdaCpuTest.ITERS, MiniGdaCpuTest.WARMUP));
            MiniGdaCpuTest.assertDelivered(g, r);
        }
    }

    @Test
    void aRespondersDelayIsAFloorUnderEveryRoundTrip() {
        long delay = 200_000; // 200 us: far above the scheduling noise of a small CI host
        try (MiniGda g = MiniGda.open(MiniGdaCpuTest.cpu())) {
            GdaRun r = g.run(GdaRunSpec.of(Experiment.ROUND_TRIP, Ordering.RELEASE_SYS, Payload.INLINE, 8)
                    .withIters(50, 5).withResponderDelayNs(delay));
            MiniGdaCpuTest.assertDelivered(g, r);
            for (long v : r.samplesNs()) {
                assertTrue(v >= delay, "a round trip of " + v + " ns is shorter than the responder's delay");
            }
            assertEquals(delay, r.spec().responderDelayNs());
        }
    }

    @Test
    void aDelayOutsideTheRoundTripIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.RELEASE_SYS, Payload.INLINE, 8)
                        .withResponderDelayNs(1000));
        assertThrows(IllegalArgumentException.class,
                () -> GdaRunSpec.of(Experiment.ROUND_TRIP, Ordering.RELEASE_SYS, Payload.INLINE, 8)
                        .withResponderDelayNs(-1));
        assertThrows(IllegalArgumentException.class,
                () -> GdaRunSpec.of(Experiment.ROUND_TRIP, Ordering.RELEASE_SYS, Payload.INLINE, 8)
                        .withTimeoutNs(1000).withResponderDelayNs(1000), "not shorter than the wait bound");
        GdaRunSpec kept = GdaRunSpec.of(Experiment.ROUND_TRIP, Ordering.RELEASE_SYS, Payload.INLINE, 8)
                .withResponderDelayNs(5000);
        assertEquals(0, kept.withExperiment(Experiment.ISSUE).responderDelayNs());
        assertEquals(5000, kept.withIters(10, 1).responderDelayNs());
    }
}
