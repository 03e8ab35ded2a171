// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.internal.loader.NativeLoader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * doctor's CUDA cause on a machine without a GPU says so, not "driver version is insufficient". CudaFfi
 * binds libmarrow_cuda.so when it loads, so these need the library built (nvcc and a GPU, or
 * MARROW_WITH_CUDA=ON as in .ci/run).
 */
class CudaProbeCauseTest {
    @BeforeAll
    static void needsTheCudaLibrary() {
        boolean built;
        try {
            built = NativeLoader.manifest().has("cuda");
        } catch (RuntimeException e) {
            built = false;
        }
        assumeTrue(built, "libmarrow_cuda.so was not built (no nvcc, or no GPU and MARROW_WITH_CUDA not ON)");
    }

    static final String INSUFFICIENT = "cudaGetDeviceCount failed: CUDA driver version is insufficient for CUDA "
            + "runtime version (cudaErrorInsufficientDriver = 35; driver 0 = libcuda.so.1 not loadable, runtime 13000)";

    @Test
    void noDriverNoDeviceIsNamedFirst() {
        String s = CudaFfi.describeFailure(INSUFFICIENT, CudaFfi.CUDA_ERROR_INSUFFICIENT_DRIVER, 0, false);
        assertTrue(s.startsWith("no NVIDIA driver/GPU found (libcuda.so.1 not loadable; no /dev/nvidia* device node)"), s);
        s = CudaFfi.describeFailure("cudaGetDeviceCount failed: no CUDA-capable device is detected",
                CudaFfi.CUDA_ERROR_NO_DEVICE, 12080, false);
        assertTrue(s.startsWith("no NVIDIA driver/GPU found (libcuda.so.1 loads; no /dev/nvidia* device node)"), s);
    }

    @Test
    void aRealOldDriverKeepsCudasText() {
        assertEquals(INSUFFICIENT, CudaFfi.describeFailure(INSUFFICIENT, CudaFfi.CUDA_ERROR_INSUFFICIENT_DRIVER, 11040,
                true));
    }

    @Test
    void thisMachinesProbeNeverBlamesTheDriverVersionWithoutAGpu() {
        Throwable t = Probes.cuda();
        if (t != null && !CudaFfi.hasNvidiaDeviceNodes() && t.getMessage().contains("insufficient")) {
            assertTrue(t.getMessage().startsWith("no NVIDIA driver/GPU found"), t.getMessage());
        }
        assertTrue(t == null || !t.getMessage().isBlank());
    }
}
