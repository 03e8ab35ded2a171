// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

import dev.marrow.api.Backend;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Kernel cost on a real GPU, small: resources, timing, and every message of the sending arms completed. */
@Tag("gpu")
@RequiresBackend(Backend.CUDA)
class KernelCostGpuTest {
    static final KcostSettings SMALL = new KcostSettings(16, 128, 16 * 224 * 8, 16 * 224 * 4, 2, 1, 5_000_000_000L,
            0, 2, 4, 16, -1);

    @Test
    void dormantCodeAddsRegistersButSendsNothing() {
        try (KernelCost kc = KernelCost.open(SMALL, 8)) {
            assertTrue(KernelCost.liveValues().contains(32), KernelCost.liveValues().toString());
            assertEquals(16, KernelCost.segments());
            for (Caller c : Caller.values()) {
                KcostMeasurement base = kc.run(KcostPoint.absent(c, 32));
                KcostMeasurement dormant = kc.run(KcostPoint.dormant(c, 32, Transport.GDA));
                assertTrue(base.regsPerThread() > 0 && base.blocksPerSm() >= 1 && base.smCount() > 0, c + " baseline");
                assertTrue(dormant.regsPerThread() >= base.regsPerThread(),
                        c + ": the build with mini-gda code uses " + dormant.regsPerThread() + " registers, the "
                                + "baseline " + base.regsPerThread());
                assertEquals(0, dormant.messages());
                assertEquals(SMALL.launches(), dormant.launchMs().length);
                for (double ms : dormant.launchMs()) {
                    assertTrue(ms > 0, "launch time " + ms);
                }
            }
        }
    }

    @Test
    void everyMessageOfTheSendingArmsCompletes() {
        long expected = 4L * SMALL.blocks() * (SMALL.launches() + SMALL.warmup());
        try (KernelCost kc = KernelCost.open(SMALL, 7168)) {
            for (Transport t : new Transport[] {Transport.GDA, Transport.PROXY}) {
                for (Arm a : new Arm[] {Arm.SEND, Arm.SEND_WAIT}) {
                    for (int size : new int[] {8, 7168}) {
                        KcostMeasurement m = kc.run(new KcostPoint(Caller.COMPUTE, 32, t, a, 4, size));
                        String what = t + " " + a + " " + size + " B";
                        assertEquals(expected, m.messages(), what + ": messages");
                        assertEquals(expected, m.completions(), what + ": completions");
                    }
                }
            }
        }
    }
}
