// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal;

import dev.marrow.api.Backend;
import dev.marrow.internal.ffi.CudaFfi;
import dev.marrow.internal.ffi.VerbsFfi;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real-device probes; skipped with the reason where the hardware is absent. */
class HardwareProbeTest {
    @Test
    @Tag("gpu")
    @RequiresBackend(Backend.CUDA)
    void cudaListsItsGpusWithSaneProperties() {
        List<CudaFfi.Gpu> gpus = CudaFfi.gpus();
        assertFalse(gpus.isEmpty());
        for (CudaFfi.Gpu g : gpus) {
            assertFalse(g.name().isBlank());
            assertTrue(g.smCount() > 0 && g.clockKhz() > 0 && g.totalMemBytes() > 0, g.toString());
            assertTrue(g.pciBusId().contains(":"), g.pciBusId());
        }
        Map<String, Object> v = CudaFfi.versions();
        assertEquals(gpus.size(), v.get("gpu_count"));
    }

    @Test
    @Tag("rdma")
    @RequiresBackend(Backend.VERBS)
    void verbsListsAtLeastOneMlx5Device() {
        Map<String, Object> info = VerbsFfi.probeInfo();
        assertEquals("ok", info.get("status"));
        assertTrue((Integer) info.get("mlx5_device_count") > 0, info.toString());
        assertTrue(info.containsKey("nic0"), info.toString());
    }
}
