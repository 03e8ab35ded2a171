// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.api.NativeException;
import dev.marrow.internal.loader.NativeLoader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Needs libmarrow_cuda.so (built where nvcc and a GPU exist, or MARROW_WITH_CUDA=ON) but no GPU: the layout
 * handshake of every DSM struct, and the ENODEV answer without a Hopper GPU.
 */
class DsmAbiTest {
    private static void assumeCudaLibrary() {
        boolean built;
        try {
            built = NativeLoader.manifest().has("cuda");
        } catch (RuntimeException e) {
            built = false;
        }
        assumeTrue(built, "libmarrow_cuda.so was not built (no nvcc, or no GPU and MARROW_WITH_CUDA not ON)");
    }

    @Test
    void everyDsmStructMatchesTheCompiler() {
        assumeCudaLibrary();
        assertTrue(DsmFfi.LIB.layoutMismatches(DsmLayouts.ALL).isEmpty(), () -> DsmFfi.LIB.layoutMismatches(DsmLayouts.ALL).toString());
        assertEquals(168, DsmLayouts.PARAMS.byteSize());
        assertEquals(112, DsmLayouts.offset(DsmLayouts.PARAMS, "remote_offset"));
        assertEquals(160, DsmLayouts.offset(DsmLayouts.PARAMS, "probe_build"));
        assertEquals(104, DsmLayouts.offset(DsmLayouts.PARAMS, "store_width"));
        assertEquals(108, DsmLayouts.offset(DsmLayouts.PARAMS, "load_width"));
        assertEquals(176, DsmLayouts.SAMPLE.byteSize());
        assertEquals(144, DsmLayouts.offset(DsmLayouts.SAMPLE, "pressure_ops"));
    }

    @Test
    void withoutAHopperGpuTheLibrarySaysSo() {
        assumeCudaLibrary();
        assumeFalse(dev.marrow.api.Backend.CUDA.isAvailable()
                && NativeDsmDeviceProbe.isHopper(), "this host has a Hopper GPU");
        NativeException e = assertThrows(NativeException.class, () -> NativeDsmDevice.describe(0));
        assertTrue(e.is(dev.marrow.api.Status.ENODEV), e.getMessage());
        assertTrue(e.getMessage().contains("needs a Hopper-class GPU (sm_90+), found"), e.getMessage());
    }

    /** Whether device 0 is sm_90+, asked without throwing. */
    static final class NativeDsmDeviceProbe {
        static boolean isHopper() {
            try {
                NativeDsmDevice.describe(0);
                return true;
            } catch (RuntimeException e) {
                return false;
            }
        }
    }
}
