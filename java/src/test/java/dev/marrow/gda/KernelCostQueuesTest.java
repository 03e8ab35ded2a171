// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.gda.internal.GdaFfi;
import dev.marrow.gda.internal.GdaLayouts;
import dev.marrow.internal.ffi.CStruct;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;

import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kernel-cost experiment's mini-gda queues, without a GPU: one QP per
 * block with its own buffer slices, and each endpoint of the array carries
 * real WRITEs when the CPU executor posts on it (the same gda_post.h code
 * the kernels inline).
 */
class KernelCostQueuesTest {
    static final int BLOCKS = 528;

    @Test
    void everyBlockGetsItsOwnQueueAndSlices() {
        try (KernelCostQueues q = KernelCostQueues.open(BLOCKS, 7168, 1, -1)) {
            long size = GdaLayouts.ENDPOINT.byteSize();
            assertEquals(BLOCKS, q.count());
            assertEquals(size * BLOCKS, q.endpoints().byteSize());
            Set<Long> dst = new HashSet<>();
            Set<Long> src = new HashSet<>();
            Set<Long> qps = new HashSet<>();
            for (int b = 0; b < BLOCKS; b++) {
                MemorySegment ep = q.endpoints().asSlice(b * size, size);
                assertTrue(getLong(ep, GdaLayouts.ENDPOINT, "remote_len") >= 7168);
                dst.add(getLong(ep, GdaLayouts.ENDPOINT, "remote_addr"));
                src.add(getLong(ep, GdaLayouts.ENDPOINT, "local_addr"));
                qps.add(CStruct.getAddress(ep, GdaLayouts.ENDPOINT, "qp").address());
            }
            assertEquals(BLOCKS, dst.size(), "distinct destination slices");
            assertEquals(BLOCKS, src.size(), "distinct source slices");
            assertEquals(BLOCKS, qps.size(), "one QP per block");
        }
    }

    @Test
    void endpointsCarryWritesOfBothSizes() throws Throwable {
        try (KernelCostQueues q = KernelCostQueues.open(BLOCKS, 7168, 1, -1); Arena a = Arena.ofConfined()) {
            long size = GdaLayouts.ENDPOINT.byteSize();
            for (int b : new int[] {0, BLOCKS / 2, BLOCKS - 1}) {
                for (int[] form : new int[][] {{Payload.INLINE.code(), 8}, {Payload.POINTER.code(), 7168}}) {
                    MemorySegment cfg = CStruct.allocate(a, GdaLayouts.CONFIG);
                    setInt(cfg, GdaLayouts.CONFIG, "experiment", Experiment.PUT_COMPLETION.code());
                    setInt(cfg, GdaLayouts.CONFIG, "ordering", Ordering.RELEASE_SYS.code());
                    setInt(cfg, GdaLayouts.CONFIG, "payload", form[0]);
                    setInt(cfg, GdaLayouts.CONFIG, "msg_size", form[1]);
                    setLong(cfg, GdaLayouts.CONFIG, "iters", 40);
                    setLong(cfg, GdaLayouts.CONFIG, "warmup", 4);
                    setLong(cfg, GdaLayouts.CONFIG, "timeout_ns", 5_000_000_000L);
                    MemorySegment res = CStruct.allocate(a, GdaLayouts.RESULT);
                    MemorySegment ns = a.allocate(JAVA_LONG, 40);
                    int rc = (int) GdaFfi.Host.CPU_RUN.invokeExact(cfg, q.endpoints().asSlice(b * size, size),
                            MemorySegment.NULL, ns, res);
                    assertEquals(0, rc, "block " + b + ", " + form[1] + " B: " + GdaFfi.Host.LIB.lastError());
                    assertEquals(44, getLong(res, GdaLayouts.RESULT, "cqes"), "block " + b);
                    assertEquals(0, getLong(res, GdaLayouts.RESULT, "payload_errors"), "block " + b);
                }
            }
        }
    }

    @Test
    void badShapesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> KernelCostQueues.open(0, 8, 1, -1));
        assertThrows(IllegalArgumentException.class, () -> KernelCostQueues.open(4, 0, 1, -1));
    }
}
