// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.Backend;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    @Tag("gpu")
    @RequiresBackend(Backend.CUDA)
    void gpuBackgroundCtasSharedAndReserved() {
        GdaSetup s = GdaSetup.defaults(Target.CUDA);
        check(s, GdaLoaded.Queue.SHARED, 0);
        check(s, GdaLoaded.Queue.SHARED, 8);
        check(s, GdaLoaded.Queue.RESERVED, 8);
    }
}
