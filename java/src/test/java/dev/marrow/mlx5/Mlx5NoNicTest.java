// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.api.Backend;
import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.internal.loader.NativeLoader;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** What the mlx5 bindings do on any machine: layout handshake, defaults, and the "no NIC / no GPU" answers. */
class Mlx5NoNicTest {

    private static void assumeBuilt(String component) {
        assumeTrue(NativeLoader.manifest().has(component),
                "libmarrow_" + component + ".so not built here: " + NativeLoader.manifest().buildNote(component));
    }

    @Test
    void layoutsMatchTheCompiledVerbsLibrary() {
        assumeBuilt("verbs");
        NativeLib lib = Mlx5Ffi.verbsLib();
        assertEquals(List.of(), lib.layoutMismatches(Mlx5Ffi.ALL));
        for (StructLayout s : Mlx5Ffi.ALL) {
            for (MemoryLayout m : s.memberLayouts()) {
                m.name().ifPresent(n -> assertTrue(lib.abiQuery("offsetof:" + s.name().get() + "." + n) >= 0,
                        "C table lacks " + s.name().get() + "." + n));
            }
        }
        StructLayout wrong = MemoryLayout.structLayout(JAVA_INT.withName("size"), JAVA_INT.withName("qpn"),
                JAVA_INT.withName("comp_mask")).withName("marrow_mlx5_peer_info");
        MarrowException e = assertThrows(MarrowException.class, () -> lib.verifyLayouts(List.of(wrong)));
        assertTrue(e.getMessage().contains("marrow_mlx5_peer_info"), e.getMessage());
    }

    @Test
    void defaultsComeFromC() {
        assumeBuilt("verbs");
        ConnParams p = ConnParams.defaults();
        assertEquals(14, p.timeout());
        assertEquals(7, p.retryCnt());
        assertEquals(6, p.rnrRetry());
        assertEquals(0, p.pathMtu());
        assertFalse(p.forceGrh());
    }

    @Test
    void noDeviceGivesEnodevWithTheProbesReason() {
        assumeBuilt("verbs");
        assumeFalse(Backend.VERBS.isAvailable(), "an mlx5 NIC is present: see Mlx5HardwareTest");
        NativeException e = assertThrows(NativeException.class, Mlx5Device::open);
        assertTrue(e.is(dev.marrow.api.Status.ENODEV), e.getMessage());
        String m = e.getMessage();
        System.out.println("no NIC: " + m);
        assertTrue(m.contains("ENODEV") && m.contains("marrow_mlx5_device_open"), m);
        // the same reason Backend.VERBS gives
        String probe = Backend.VERBS.unavailabilityCause().getMessage();
        assertTrue(m.contains(probe) || probe.contains("none is driven by mlx5"), m + " vs " + probe);
        assertThrows(IllegalArgumentException.class, () -> Mlx5Device.open("x".repeat(64), 1, -1));
    }

    @Test
    void gpuMappingWithoutAGpuSaysWhy() {
        assumeBuilt("cuda");
        assumeFalse(Backend.CUDA.isAvailable(), "a GPU is present: see Mlx5HardwareTest");
        try (Arena a = Arena.ofConfined()) {
            NativeException e = assertThrows(NativeException.class, () -> GpuMapping.register(a.allocate(4096, 4096), true));
            System.out.println("no GPU: " + e.getMessage());
            assertTrue(e.getMessage().contains("cudaHostRegister") && e.getMessage().contains("IoMemory"), e.getMessage());
            assertTrue(e.status() == -19 || e.status() == -5, e.getMessage());
        }
    }
}
