// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.api.NativeException;
import dev.marrow.internal.loader.NativeLoader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.function.Consumer;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The probe knobs without a GPU: Java writes them at the C offsets, and
 * marrow_dsm_run refuses impossible ones before it looks for a GPU.
 */
class ProbeParamsTest {
    /** The params layout comes from libmarrow_cuda.so: read only once the library is known to be built. */
    private static StructLayout P;

    @BeforeAll
    static void needsTheCudaLibrary() {
        assumeCudaLibrary();
        P = DsmLayouts.PARAMS;
    }

    @Test
    void probeKnobsReachTheParamsStruct() {
        Probe q = Probe.BASELINE.withRemoteOffset(4064).withPressure(16, 3, true).withGroupThreads(224);
        Spec spec = OneWay.LOAD.add(Spec.idle("load 1->0", 2), 1, 0).withProbe(q);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(P);
            NativeDsmDevice.writeParams(p, 0, KernelConfig.DEFAULT, spec, 64 * 1024, 30, 3, 7);
            assertEquals(4064, p.get(JAVA_INT, 112));
            assertEquals(16, p.get(JAVA_INT, 116));
            assertEquals(3, p.get(JAVA_INT, 120));
            assertEquals(1, p.get(JAVA_INT, 124));
            assertEquals(1, p.get(JAVA_INT, 128)); // bursts
            assertEquals(Probe.PRESSURE_CYCLES, p.get(JAVA_LONG, 144));
            assertEquals(1, p.get(JAVA_INT, 160)); // probe_build
            assertEquals(224, p.get(JAVA_INT, DsmLayouts.offset(P, "group_threads")));
        }
        Spec st = OneWay.STORE.add(Spec.idle("store 1->0", 2), 1, 0)
                .withProbe(Probe.BASELINE.withStore(true, 1, true, 4));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(P);
            NativeDsmDevice.writeParams(p, 0, KernelConfig.DEFAULT, st, 64 * 1024, 30, 3, 7);
            assertEquals(4, p.get(JAVA_INT, DsmLayouts.offset(P, "store_width")));
            assertEquals(1, p.get(JAVA_INT, 132)); // store_kernel generic
            assertEquals(1, p.get(JAVA_INT, 152)); // store_unroll
            assertEquals(1, p.get(JAVA_INT, 156)); // store_end rendezvous
        }
        Spec plain = OneWay.LOAD.add(Spec.idle("load 1->0", 2), 1, 0);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(P);
            NativeDsmDevice.writeParams(p, 0, KernelConfig.DEFAULT, plain, 64 * 1024, 30, 3, 7);
            for (long off = 112; off < 168; off += 4) {
                if (off != 128) { // bursts = 1
                    assertEquals(0, p.get(JAVA_INT, off), "offset " + off);
                }
            }
        }
    }

    private static void assumeCudaLibrary() {
        boolean built;
        try {
            built = NativeLoader.manifest().has("cuda");
        } catch (RuntimeException e) {
            built = false;
        }
        assumeTrue(built, "libmarrow_cuda.so was not built (no nvcc, or no GPU and MARROW_WITH_CUDA not ON)");
    }

    /** marrow_dsm_run on spec with the struct edited by edit; the status and last error. */
    private static NativeException call(Spec spec, int tile, Consumer<MemorySegment> edit) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(P);
            NativeDsmDevice.writeParams(p, 0, KernelConfig.DEFAULT, spec, tile, 1, 0, 1);
            edit.accept(p);
            MemorySegment out = a.allocate(DsmLayouts.SAMPLE, spec.clusterSize());
            int rc = (int) DsmFfi.RUN.invokeExact(p, out, spec.clusterSize());
            return assertThrows(NativeException.class, () -> DsmFfi.LIB.check(rc, "marrow_dsm_run"));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static void refused(Spec spec, int tile, Consumer<MemorySegment> edit, String message) {
        NativeException e = call(spec, tile, edit);
        assertEquals(-22, e.status(), DsmFfi.LIB.lastError()); // MARROW_EINVAL
        assertTrue(DsmFfi.LIB.lastError().contains(message), DsmFfi.LIB.lastError());
    }

    @Test
    void theLibraryRefusesImpossibleProbes() {
        assumeCudaLibrary();
        Spec load = OneWay.LOAD.add(Spec.idle("load 1->0", 2), 1, 0);
        Spec tma = OneWay.TMA.add(Spec.idle("tma 1->0", 2), 1, 0);
        refused(load, 64 * 1024, p -> p.set(JAVA_INT, 112, 40 * 1024), "remote_offset 40960");
        refused(load, 64 * 1024, p -> p.set(JAVA_INT, 112, 8), "remote_offset 8 must be a multiple of 16");
        refused(load, 64 * 1024, p -> {
            p.set(JAVA_INT, 116, 16);
            p.set(JAVA_INT, 120, 1);
        }, "16 pressure warps do not fit beside 2 x 480 group threads");
        refused(load, 64 * 1024, p -> {
            p.set(JAVA_INT, DsmLayouts.offset(P, "group_threads"), 224);
            p.set(JAVA_INT, 116, 2);
        }, "pressure_warps 2 and pressure_ranks 0x0");
        refused(load, 64 * 1024, p -> {
            p.set(JAVA_INT, DsmLayouts.offset(P, "group_threads"), 224);
            p.set(JAVA_INT, 116, 1);
            p.set(JAVA_INT, 120, 4);
        }, "names a rank outside the cluster of 2");
        refused(tma, 64 * 1024, p -> p.set(JAVA_INT, 128, 8), "nobody may TMA");
        refused(load, 64 * 1024, p -> p.set(JAVA_INT, 128, 3), "bursts 3 must be <= 64 and divide");
        refused(load, 64 * 1024, p -> p.set(JAVA_INT, 152, 2), "store_unroll 2 must be 1 or 4");
        refused(load, 64 * 1024, p -> {
            p.set(JAVA_INT, 156, 1);
            p.set(JAVA_INT, 128, 2);
        }, "rendezvous store end cannot be combined");
        refused(load, 64 * 1024, p -> {
            p.set(JAVA_INT, DsmLayouts.offset(P, "load_kernel"), 2);
            p.set(JAVA_INT, DsmLayouts.offset(P, "group_threads"), 256);
        }, "INFLIGHT_BYTES load kernel is built for 480 group threads, not 256");
        refused(load, 64 * 1024, p -> p.set(JAVA_INT, DsmLayouts.offset(P, "load_kernel"), 3), "load_kernel 3 unknown");
    }

    @Test
    void validProbesPassTheParameterCheck() {
        assumeCudaLibrary();
        assumeFalse(dev.marrow.api.Backend.CUDA.isAvailable() && DsmAbiTest.NativeDsmDeviceProbe.isHopper(),
                "this host has a Hopper GPU (the call would run)");
        Spec load = OneWay.LOAD.add(Spec.idle("load 1->0", 2), 1, 0)
                .withProbe(Probe.BASELINE.withRemoteOffset(4064).withPressure(16, 3, true).withGroupThreads(224));
        assertEquals(-19, call(load, 64 * 1024, p -> { }).status(), DsmFfi.LIB.lastError()); // ENODEV: past the checks
        Spec bursts = OneWay.STORE.add(Spec.idle("store 1->0", 2), 1, 0).withProbe(Probe.BASELINE.withBursts(8, 20000));
        assertEquals(-19, call(bursts, 64 * 1024, p -> { }).status(), DsmFfi.LIB.lastError());
        assertEquals(-19, call(OneWay.LOAD.add(Spec.idle("l", 2), 1, 0), 64 * 1024,
                p -> p.set(JAVA_INT, DsmLayouts.offset(P, "load_kernel"), 2)).status());
        assertFalse(DsmFfi.LIB.lastError().isEmpty());
    }
}
