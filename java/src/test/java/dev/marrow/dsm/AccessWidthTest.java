// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.api.NativeException;
import dev.marrow.cli.DsmCommand;
import dev.marrow.internal.loader.NativeLoader;
import dev.marrow.results.ResultRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * --store-width / --load-width without a GPU: option validation (usage
 * error 2 naming the flag, before any device is opened), the widths reaching
 * marrow_dsm_params, the native side reading them at the handshaken offsets,
 * and the widths recorded with every fit.
 */
class AccessWidthTest {
    private record Result(int code, String out, String err) {
    }

    private static Result exec(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new DsmCommand());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "2", "3", "12", "32", "-4"})
    void aBadStoreWidthIsAUsageErrorNamingTheFlag(String w) {
        // Validation precedes opening the device: without it this host would answer 77 (no GPU) or run.
        Result r = exec("run", "--experiment", "E3", "--store-width", w);
        assertEquals(CommandLine.ExitCode.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("--store-width " + w), r.err());
        assertTrue(r.err().contains("4, 8 or 16"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aNonNumericStoreWidthIsAUsageErrorNamingTheFlag() {
        Result r = exec("run", "--experiment", "E3", "--store-width", "wide");
        assertEquals(CommandLine.ExitCode.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("--store-width"), r.err());
    }

    @Test
    void aBadLoadWidthIsAUsageErrorNamingTheFlag() {
        Result r = exec("run", "--experiment", "E2", "--load-width", "6");
        assertEquals(CommandLine.ExitCode.USAGE, r.code(), r.err());
        assertTrue(r.err().contains("--load-width 6"), r.err());
        Result b = exec("run", "--experiment", "E2", "--load-width", "4", "--load-kernel", "BATCHED");
        assertEquals(CommandLine.ExitCode.USAGE, b.code(), b.err());
        assertTrue(b.err().contains("--load-width 4 needs --load-kernel INFLIGHT"), b.err());
    }

    private static DsmCommand.Run parse(String... args) {
        DsmCommand.Run run = new DsmCommand.Run();
        new CommandLine(run).parseArgs(args);
        return run;
    }

    @Test
    void theDefaultIsTodaysWidth() {
        assertEquals(KernelConfig.DEFAULT, parse("--experiment", "E3").config());
        assertEquals(16, KernelConfig.DEFAULT.storeWidth());
        assertEquals(16, KernelConfig.DEFAULT.loadWidth());
    }

    @Test
    void theOptionsReachTheParamsStruct() {
        assumeCudaLibrary(); // the params layout is libmarrow_cuda.so's
        KernelConfig c = parse("--experiment", "E3", "--store-width", "8", "--load-width", "4", "--group-threads",
                "256").config();
        assertEquals(new KernelConfig(256, 16384, DsmDevice.LoadKernel.INFLIGHT, 8, 4), c);
        StructLayout P = DsmLayouts.PARAMS;
        Spec spec = OneWay.STORE.add(Spec.idle("store 1->0", 2), 1, 0);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(P);
            NativeDsmDevice.writeParams(p, 0, c, spec, 24 * 1024, 30, 3, 7);
            assertEquals(168, p.get(JAVA_INT, 0)); // size = sizeof(struct marrow_dsm_params)
            assertEquals(0, p.get(JAVA_INT, 4)); // comp_mask
            assertEquals(8, p.get(JAVA_INT, DsmLayouts.offset(P, "store_width")));
            assertEquals(4, p.get(JAVA_INT, DsmLayouts.offset(P, "load_width")));
            assertEquals(8, p.get(JAVA_INT, 104)); // the C offsets, as frozen in marrow_dsm.h
            assertEquals(4, p.get(JAVA_INT, 108));
            assertEquals(256, p.get(JAVA_INT, DsmLayouts.offset(P, "group_threads")));
            assertEquals(24 * 1024, p.get(JAVA_INT, DsmLayouts.offset(P, "tile_bytes")));
            assertEquals(0, p.get(JAVA_BYTE, DsmLayouts.offset(P, "store_to") + 1));
            assertEquals(-1, p.get(JAVA_BYTE, DsmLayouts.offset(P, "store_to")));
        }
    }

    @Test
    void theConfigRefusesWidthsTheKernelLacks() {
        assertThrows(IllegalArgumentException.class, () -> KernelConfig.DEFAULT.withStoreWidth(2));
        assertThrows(IllegalArgumentException.class, () -> KernelConfig.DEFAULT.withLoadWidth(32));
        assertThrows(IllegalArgumentException.class, () -> new KernelConfig(480, 16384,
                DsmDevice.LoadKernel.BATCHED, 16, 8));
        assertEquals(4, KernelConfig.DEFAULT.withStoreWidth(4).storeWidth());
    }

    @Test
    void everyFitRecordsItsWidths() {
        SyntheticDsmDevice d = new SyntheticDsmDevice(19, 18, 21, 0, KernelConfig.DEFAULT.withStoreWidth(4));
        List<ResultRecord> rows = new E2E4OneWay(OneWay.STORE).run(new DsmContext(d, 30, 3, DsmContext.DEFAULT_SIZES,
                null));
        List<ResultRecord> fits = rows.stream().filter(r -> "fit".equals(r.params().get("row"))).toList();
        assertFalse(fits.isEmpty());
        for (ResultRecord f : fits) {
            assertEquals(4, f.params().get("store_width"));
            assertEquals(16, f.params().get("load_width"));
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

    /** marrow_dsm_run's answer to one call with these widths (no GPU is touched if the params are refused). */
    private static NativeException runNative(int storeWidth, int loadWidth) {
        StructLayout P = DsmLayouts.PARAMS;
        Spec spec = OneWay.STORE.add(Spec.idle("store 1->0", 2), 1, 0);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(P);
            NativeDsmDevice.writeParams(p, 0, KernelConfig.DEFAULT, spec, 16 * 1024, 1, 0, 1);
            p.set(JAVA_INT, DsmLayouts.offset(P, "store_width"), storeWidth);
            p.set(JAVA_INT, DsmLayouts.offset(P, "load_width"), loadWidth);
            MemorySegment out = a.allocate(DsmLayouts.SAMPLE, 2);
            int rc = (int) DsmFfi.RUN.invokeExact(p, out, 2);
            return assertThrows(NativeException.class, () -> DsmFfi.LIB.check(rc, "marrow_dsm_run"));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    @Test
    void theLibraryReadsTheWidthsWhereJavaWritesThem() {
        assumeCudaLibrary();
        // Parameter checks precede the GPU check, so this needs no GPU.
        NativeException s = runNative(3, 16);
        assertEquals(-22, s.status(), s.getMessage()); // MARROW_EINVAL
        assertTrue(DsmFfi.LIB.lastError().contains("store_width 3 must be 4, 8 or 16"), DsmFfi.LIB.lastError());
        NativeException l = runNative(16, 12);
        assertEquals(-22, l.status());
        assertTrue(DsmFfi.LIB.lastError().contains("load_width 12 must be 4, 8 or 16"), DsmFfi.LIB.lastError());
    }

    @Test
    void validWidthsPassTheParameterCheck() {
        assumeCudaLibrary();
        assumeFalse(dev.marrow.api.Backend.CUDA.isAvailable() && DsmAbiTest.NativeDsmDeviceProbe.isHopper(),
                "this host has a Hopper GPU (the call would run)");
        for (int w : KernelConfig.WIDTHS) {
            NativeException e = runNative(w, w);
            assertTrue(e.is(dev.marrow.api.Status.ENODEV), DsmFfi.LIB.lastError()); // past the parameter check
        }
        assertEquals(-19, runNative(0, 0).status()); // 0 = the default width
    }
}
