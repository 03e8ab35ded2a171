// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.peer.PeerInfo;
import dev.marrow.api.Backend;
import dev.marrow.api.NativeException;
import dev.marrow.api.softnic.Access;
import dev.marrow.api.softnic.QpState;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Real ConnectX NIC: QP creation, views, loopback connect; skipped with the reason elsewhere. */
@Tag("rdma")
@RequiresBackend(Backend.VERBS)
class Mlx5HardwareTest {

    @Test
    void createsAQpWithMlx5ViewsAndConnectsItToItself() {
        try (Arena arena = Arena.ofShared(); Mlx5Device dev = Mlx5Device.open()) {
            MemorySegment buf = arena.allocate(4096, 4096);
            try (Mlx5MemoryRegion mr = dev.register(buf, Access.ALL);
                 Mlx5QueuePair qp = dev.createQueuePair(Mlx5QueuePair.Config.defaults().withMaxInlineData(60))) {
                assertTrue(qp.qpn() > 1 && qp.sqWqebbs() >= 256, "qpn/sq");
                assertEquals(64L * qp.sqWqebbs(), qp.sendQueue().byteSize());
                assertTrue(qp.maxInlineData() >= 60, "granted inline " + qp.maxInlineData());
                assertTrue(qp.cqEntries() >= 256 && qp.cqBuffer().byteSize() == 64L * qp.cqEntries());
                assertEquals(QpState.RESET, qp.state());

                PeerInfo me = qp.localInfo(mr);
                assertEquals(qp.qpn(), me.qpn());
                assertEquals(mr.rkey(), me.rkey());
                assertEquals(buf.address(), me.addr());
                qp.connect(me, null); // loopback: RC to itself
                assertEquals(QpState.RTS, qp.state());
                NativeException again = assertThrows(NativeException.class, () -> qp.connect(me, null));
                assertTrue(again.getMessage().contains("RESET"), again.getMessage());
            }
        }
    }

    @Test
    void gpuPlacementIsNotImplementedYet() {
        try (Mlx5Device dev = Mlx5Device.open()) {
            NativeException e = assertThrows(NativeException.class,
                    () -> dev.createQueuePair(Mlx5QueuePair.Config.defaults().withPlacement(QueuePlacement.GPU)));
            assertEquals(-38, e.status());
        }
    }

    @Test
    @Tag("gpu")
    void queuesMapIntoTheGpuOrTheErrorNamesPeerMappingOverride() {
        assumeTrue(Backend.CUDA.isAvailable(), () -> "needs a GPU too: " + Backend.CUDA.unavailabilityCause());
        try (Mlx5Device dev = Mlx5Device.open();
             Mlx5QueuePair qp = dev.createQueuePair(Mlx5QueuePair.Config.defaults())) {
            try (GpuQueueMappings m = qp.mapIntoGpu()) {
                assertTrue(m.uar().deviceAddress() != 0 && m.sq().deviceAddress() != 0);
            } catch (NativeException e) {
                assertTrue(e.getMessage().contains("PeerMappingOverride=1"), e.getMessage());
            }
        }
    }
}
