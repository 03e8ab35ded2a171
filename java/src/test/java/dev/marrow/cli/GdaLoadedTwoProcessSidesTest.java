// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.gda.GdaLoaded;
import dev.marrow.gda.GdaPeerProtocol;
import dev.marrow.gda.Ordering;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rank 0's reading of both sides' engine placement in a two-process gda loaded point
 * (docs/design/two-process.md section 11): a side that asked for a dedicated engine thread in a
 * reserved run and reports a background QP on its session QP's thread fails the point, whichever
 * side it is; a responder that reports nothing for a run that succeeded fails it too.
 */
class GdaLoadedTwoProcessSidesTest {
    static final GdaLoaded.Spec RESERVED = new GdaLoaded.Spec(Ordering.NONE, GdaLoaded.Queue.RESERVED, 3, 0,
            64, 16, 10, 1, 1_000_000_000L);

    private static GdaPeerProtocol.LoadedOutcome outcome(int[] own, GdaPeerProtocol.Engines peer) {
        GdaLoaded.Run run = new GdaLoaded.Run(RESERVED, new long[] {1}, 1, 0, 0, 0, 0,
                new GdaLoaded.EnginePlacement(4, 0, 0, own, false));
        return new GdaPeerProtocol.LoadedOutcome(run, new GdaPeerProtocol.Report(1, 0, 11, true, 0, ""),
                new GdaPeerProtocol.Streams(1, 1, new long[3]), peer);
    }

    @Test
    void bothSidesAloneAreReadBack() {
        GdaLoadedTwoProcess.Sides s = GdaLoadedTwoProcess.Sides.of(outcome(new int[] {1, 2, 3},
                new GdaPeerProtocol.Engines(1, 3, GdaLoaded.ProbeEngine.DEDICATED, 0, new int[] {1, 2, 1})),
                RESERVED, GdaLoaded.ProbeEngine.DEDICATED);
        assertEquals(3, s.peerThreads());
        assertTrue(s.own().probeEngineAlone() && s.peer().probeEngineAlone());
        assertEquals(2, s.peer().maxBackgroundQpsPerThread());
    }

    @Test
    void aDedicatedSideWithABackgroundQpOnItsSessionThreadFails() {
        IllegalStateException peer = assertThrows(IllegalStateException.class, () -> GdaLoadedTwoProcess.Sides.of(
                outcome(new int[] {1, 2, 3}, new GdaPeerProtocol.Engines(1, 3, GdaLoaded.ProbeEngine.DEDICATED, 0,
                        new int[] {0, 1, 2})), RESERVED, GdaLoaded.ProbeEngine.DEDICATED));
        assertTrue(peer.getMessage().contains("responder's software NIC placed a background QP"), peer.getMessage());
        IllegalStateException own = assertThrows(IllegalStateException.class, () -> GdaLoadedTwoProcess.Sides.of(
                outcome(new int[] {0, 2, 3}, new GdaPeerProtocol.Engines(1, 3, GdaLoaded.ProbeEngine.SHARED, 0,
                        new int[] {0, 1, 2})), RESERVED, GdaLoaded.ProbeEngine.DEDICATED));
        assertTrue(own.getMessage().contains("initiator's) software NIC placed a background QP"), own.getMessage());
        // shared on both sides: a background QP on the session thread is what was asked
        GdaLoadedTwoProcess.Sides.of(outcome(new int[] {0, 1, 2}, new GdaPeerProtocol.Engines(1, 3,
                GdaLoaded.ProbeEngine.SHARED, 0, new int[] {0, 1, 2})), RESERVED, GdaLoaded.ProbeEngine.SHARED);
    }

    @Test
    void aResponderThatReportsNoPlacementFailsThePoint() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> GdaLoadedTwoProcess.Sides.of(
                outcome(new int[] {1, 2, 3}, GdaPeerProtocol.Engines.of(1, null, GdaLoaded.ProbeEngine.SHARED)),
                RESERVED, GdaLoaded.ProbeEngine.DEDICATED));
        assertTrue(e.getMessage().contains("reported no engine placement"), e.getMessage());
    }
}
