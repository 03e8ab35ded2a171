// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Target;
import dev.marrow.api.Backend;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The loaded round trip through the Java API: probes complete and the
 * background delivers (every slot checked by the runner) with shared and
 * reserved queues, on the CPU and, tagged gpu, with background CTAs.
 */
class GdaLoadedTest {
    static void check(GdaSetup s, GdaLoaded.Queue q, int streams) {
        try (MiniGda g = MiniGda.open(s)) {
            GdaLoaded.Run r = GdaLoaded.run(g, new GdaLoaded.Spec(Ordering.RELEASE_SYS, q, streams, 0, 64, 16, 50, 5,
                    30_000_000_000L));
            assertTrue(r.valid(), "slot errors " + r.bgSlotErrors());
            assertEquals(50, r.samplesNs().length);
            assertTrue(r.stats().min() > 0, "probe samples");
            if (streams > 0) {
                assertTrue(r.bgPosted() > 0, "no background WRITE was posted");
            }
        }
    }

    @Test
    void cpuSharedAndReserved() {
        GdaSetup s = GdaSetup.defaults(Target.CPU).withPollMode(SoftNic.PollMode.IDLE);
        check(s, GdaLoaded.Queue.SHARED, 1);
        check(s, GdaLoaded.Queue.RESERVED, 1);
    }

    @Test
    void cpuDedicatedProbeEngineAsTheNicReportsIt() {
        GdaSetup s = GdaSetup.defaults(Target.CPU).withPollMode(SoftNic.PollMode.IDLE).withEngineThreads(3);
        try (MiniGda g = MiniGda.open(s)) {
            GdaLoaded.Run r = GdaLoaded.run(g, new GdaLoaded.Spec(Ordering.RELEASE_SYS, GdaLoaded.Queue.RESERVED, 4, 0,
                    64, 16, 30, 3, 30_000_000_000L), GdaLoaded.ProbeEngine.DEDICATED);
            assertTrue(r.valid(), "slot errors " + r.bgSlotErrors());
            GdaLoaded.EnginePlacement p = r.placement();
            assertEquals(0, p.probeThread());
            assertEquals(0, p.peerThread());
            assertArrayEquals(new int[] {1, 2, 1, 2}, p.backgroundThreads());
            assertTrue(p.probeEngineAlone());
            assertEquals(2, p.maxBackgroundQpsPerThread());
        }
        try (MiniGda g = MiniGda.open(s)) {
            GdaLoaded.Run r = GdaLoaded.run(g, new GdaLoaded.Spec(Ordering.RELEASE_SYS, GdaLoaded.Queue.RESERVED, 4, 0,
                    64, 16, 30, 3, 30_000_000_000L), GdaLoaded.ProbeEngine.SHARED);
            assertTrue(r.valid());
            assertArrayEquals(new int[] {0, 1, 2, 0}, r.placement().backgroundThreads());
            assertFalse(r.placement().probeEngineAlone());
        }
        try (MiniGda g = MiniGda.open(GdaSetup.defaults(Target.CPU).withPollMode(SoftNic.PollMode.IDLE))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GdaLoaded.run(g,
                    new GdaLoaded.Spec(Ordering.RELEASE_SYS, GdaLoaded.Queue.RESERVED, 1, 0, 64, 16, 3, 0,
                            30_000_000_000L), GdaLoaded.ProbeEngine.DEDICATED));
            assertTrue(e.getMessage().contains("--engine-threads >= 2"), e.getMessage());
        }
    }

    @Test
    @Tag("gpu")
    @RequiresBackend(Backend.CUDA)
    void gpuBackgroundCtasSharedAndReserved() {
        GdaSetup s = GdaSetup.defaults(Target.CUDA);
        check(s, GdaLoaded.Queue.SHARED, 0);
        check(s, GdaLoaded.Queue.SHARED, 8);
        check(s, GdaLoaded.Queue.RESERVED, 8);
    }

    @Test
    @Tag("gpu")
    @RequiresBackend(Backend.CUDA)
    void gpuBackgroundCtasBesideADedicatedProbeEngine() {
        GdaSetup s = GdaSetup.defaults(Target.CUDA).withEngineThreads(3);
        try (MiniGda g = MiniGda.open(s)) {
            GdaLoaded.Run r = GdaLoaded.run(g, new GdaLoaded.Spec(Ordering.RELEASE_SYS, GdaLoaded.Queue.RESERVED, 8, 0,
                    64, 16, 50, 5, 30_000_000_000L), GdaLoaded.ProbeEngine.DEDICATED);
            assertTrue(r.valid(), "slot errors " + r.bgSlotErrors());
            assertTrue(r.bgPosted() > 0, "no background WRITE was posted");
            assertTrue(r.placement().probeEngineAlone());
            assertArrayEquals(new int[] {1, 2, 1, 2, 1, 2, 1, 2}, r.placement().backgroundThreads());
        }
    }
}
