// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Target;
import dev.marrow.api.Backend;
import dev.marrow.api.NativeException;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The CPU test's checks on cuda + softnic: GPU threads post into the emulator's host queues. */
@Tag("gpu")
@RequiresBackend(Backend.CUDA)
class MiniGdaGpuTest {
    static GdaSetup cuda() {
        return GdaSetup.defaults(Target.CUDA);
    }

    @Test
    void everyOrderingAndPayloadDeliversBytesAndCqes() {
        try (MiniGda g = MiniGda.open(cuda())) {
            for (Ordering o : Ordering.values()) {
                if (o == Ordering.NONE) {
                    continue; // the unsafe control: see theUnsafeControlEitherDeliversOrFailsCleanly
                }
                for (Payload p : Payload.values()) {
                    for (Experiment e : Experiment.values()) {
                        GdaRun r = g.run(GdaRunSpec.of(e, o, p, 8).withIters(50, 5));
                        MiniGdaCpuTest.assertDelivered(g, r);
                        assertTrue(r.smClockGhz() > 0.1 && r.smClockGhz() < 5, "SM clock " + r.smClockGhz());
                        assertTrue(r.p50Cycles() > 0, "cycles per sample");
                    }
                }
            }
        }
    }

    /**
     * Without fences the GPU's WQE, dbrec and doorbell stores reach host memory
     * in any order, so the engine may read a stale WQE (error CQE), miss the
     * producer position (lost doorbell: timeout) or copy stale bytes. Any of
     * those, or a clean run, is acceptable; a hang or a crash is not.
     */
    @Test
    void theUnsafeControlEitherDeliversOrFailsCleanly() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            for (Payload p : Payload.values()) {
                try (MiniGda g = MiniGda.open(cuda())) {
                    GdaRun r = g.run(GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.NONE, p, 8)
                            .withIters(50, 5).withTimeoutNs(1_000_000_000L));
                    assertTrue(r.samplesNs().length == 50, "a clean run returns every sample");
                } catch (NativeException e) {
                    assertTrue(e.isTimeout() || e.status() == -5, "a finding, not another failure: " + e.getMessage());
                }
            }
        });
    }

    @Test
    void inlineSizesOfFig3aArrive() {
        try (MiniGda g = MiniGda.open(cuda())) {
            for (int size : new int[] {16, 28, 32, 60, 92, 124, 220}) {
                MiniGdaCpuTest.assertDelivered(g, g.run(GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.GPU_FENCE,
                        Payload.INLINE, size).withIters(50, 5)));
            }
        }
    }

    @Test
    void aLostDoorbellEndsTheKernelWithTheTimeoutError() {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try (MiniGda g = MiniGda.open(cuda())) {
                g.softNic().pauseEngine(true);
                NativeException e = assertThrows(NativeException.class, () -> g.run(
                        GdaRunSpec.of(Experiment.PUT_COMPLETION, Ordering.FENCE_SYS, Payload.INLINE, 8)
                                .withIters(5, 0).withTimeoutNs(200_000_000L)));
                assertTrue(e.isTimeout(), e.getMessage());
                assertTrue(e.getMessage().contains("GPU initiator timed out"), e.getMessage());
                g.softNic().pauseEngine(false);
            }
        });
    }

    @Test
    void inlineBeyondTheMaximumIsRejectedBeforeLaunch() {
        try (MiniGda g = MiniGda.open(cuda().withMaxInline(64))) {
            NativeException e = assertThrows(NativeException.class, () -> g.run(
                    GdaRunSpec.of(Experiment.ISSUE, Ordering.GPU_FENCE, Payload.INLINE, 65)));
            assertEquals(-34, e.status());
        }
    }
}
