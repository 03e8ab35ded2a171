// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal;

import dev.marrow.api.MarrowException;
import dev.marrow.internal.ffi.CudaFfi;
import dev.marrow.internal.ffi.EmuLayouts;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.internal.ffi.VerbsFfi;
import dev.marrow.internal.loader.NativeLoader;
import dev.marrow.internal.loader.NativeManifest;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** DiSNI-style handshake: Java layouts must equal what the C compiler chose. */
class AbiHandshakeTest {

    @Test
    void emuLayoutsMatchTheCompiledLibrary() {
        NativeLib lib = NativeLib.load("emu");
        assertEquals(NativeLib.ABI_VERSION, lib.abiVersion());
        assertEquals(List.of(), lib.layoutMismatches(EmuLayouts.ALL));
        // every member of every struct was actually known to the C table
        for (StructLayout s : EmuLayouts.ALL) {
            for (MemoryLayout m : s.memberLayouts()) {
                m.name().ifPresent(n -> assertTrue(lib.abiQuery("offsetof:" + s.name().get() + "." + n) >= 0,
                        "C table lacks " + s.name().get() + "." + n));
            }
        }
    }

    @Test
    void aWrongLayoutIsDetectedAndRefused() {
        NativeLib lib = NativeLib.load("emu");
        // the CQ attribute struct with two fields swapped and one missing
        StructLayout wrong = MemoryLayout.structLayout(
                JAVA_INT.withName("size"),
                JAVA_INT.withName("log_cqe_cnt"),
                JAVA_INT.withName("comp_mask")).withName("marrow_emu_cq_attr");
        List<String> bad = lib.layoutMismatches(List.of(wrong));
        assertFalse(bad.isEmpty());
        assertTrue(bad.stream().anyMatch(s -> s.startsWith("sizeof(marrow_emu_cq_attr)")), bad.toString());
        assertTrue(bad.stream().anyMatch(s -> s.contains("log_cqe_cnt")), bad.toString());
        MarrowException e = assertThrows(MarrowException.class, () -> lib.verifyLayouts(List.of(wrong)));
        assertTrue(e.getMessage().contains("ABI layout mismatch"), e.getMessage());
    }

    @Test
    void twoLibrariesLoadedTogetherEachAnswerFromTheirOwnTable() {
        // one exported marrow_abi_query for every library let the first loaded answer for both
        NativeLib emu = NativeLib.shared("emu");
        NativeLib host = NativeLib.shared("host");
        assertTrue(emu.abiQuery("sizeof:marrow_emu_device_attr") > 0);
        assertEquals(-1, host.abiQuery("sizeof:marrow_emu_device_attr"), "host read emu's table");
        assertTrue(host.lastError().contains("marrow_emu_device_attr"), host.lastError());
        assertTrue(host.abiQuery("sizeof:marrow_gda_config") > 0);
        assertEquals(-1, emu.abiQuery("sizeof:marrow_gda_config"), "emu read host's table");
        assertEquals("EINVAL", host.statusName(host.intConstant("MARROW_EINVAL")));
    }

    @Test
    void unknownKeysAreReportedNotInvented() {
        NativeLib lib = NativeLib.load("emu");
        assertEquals(-1, lib.abiQuery("sizeof:no_such_struct"));
        assertTrue(lib.lastError().contains("no_such_struct"), lib.lastError());
    }

    @Test
    void verbsLayoutsMatchTheCompiledLibrary() {
        NativeManifest m = NativeLoader.manifest();
        assumeTrue(m.has("verbs"), "libmarrow_verbs.so was not built: " + m.buildNote("verbs"));
        NativeLib lib = NativeLib.load("verbs");
        assertEquals(NativeLib.ABI_VERSION, lib.abiVersion());
        assertEquals(List.of(), lib.layoutMismatches(List.of(VerbsFfi.PROBE_INFO, VerbsFfi.DEVICE_INFO)));
    }

    @Test
    void cudaLayoutsMatchTheCompiledLibrary() {
        NativeManifest m = NativeLoader.manifest();
        assumeTrue(m.has("cuda"), "libmarrow_cuda.so was not built: " + m.buildNote("cuda"));
        NativeLib lib = NativeLib.load("cuda");
        assertEquals(NativeLib.ABI_VERSION, lib.abiVersion());
        assertEquals(List.of(), lib.layoutMismatches(List.of(CudaFfi.PROBE_INFO, CudaFfi.DEVICE_INFO)));
    }

    @Test
    void everyComponentTheManifestListsLoadsWithTheSameAbiVersion() {
        NativeManifest m = NativeLoader.manifest();
        assertTrue(m.has("emu") && m.has("host"), "emu and host are always built: " + m.summary());
        for (String c : m.components()) {
            assertEquals(NativeLib.ABI_VERSION, NativeLib.load(c).abiVersion(), c);
        }
    }
}
