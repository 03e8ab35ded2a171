// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;

/** The real-exercise probes behind {@code Backend.isAvailable()}. Null = available. */
public final class Probes {
    private Probes() {
    }

    /** Opens and closes a quiet, idle-mode emulated device. */
    public static Throwable softnic() {
        NativeLib lib = EmuFfi.LIB;
        try (Arena a = Arena.ofConfined()) {
            // idle poll mode, one engine thread, no pinning, quiet: a probe prints nothing
            MemorySegment attr = probeAttr(a, lib);
            MemorySegment out = a.allocate(ADDRESS);
            lib.check((int) EmuFfi.DEVICE_OPEN.invokeExact(attr, out), "marrow_emu_device_open");
            MemorySegment dev = out.get(ADDRESS, 0);
            lib.check((int) EmuFfi.DEVICE_CLOSE.invokeExact(dev), "marrow_emu_device_close");
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /**
     * The device attributes of the probe, filled here rather than by SoftNic.deviceAttr so that this
     * layer does not depend on the api above it (SoftNic.Options.defaults() with quiet on).
     */
    private static MemorySegment probeAttr(Arena a, NativeLib lib) {
        java.lang.foreign.StructLayout l = EmuLayouts.DEVICE_ATTR;
        MemorySegment attr = CStruct.allocate(a, l);
        CStruct.setInt(attr, l, "poll_mode", lib.intConstant("MARROW_EMU_POLL_IDLE"));
        CStruct.setInt(attr, l, "engine_threads", 1);
        CStruct.setInt(attr, l, "engine_cpu", -1);
        CStruct.setInt(attr, l, "quiet", 1);
        return attr;
    }

    public static Throwable verbs() {
        try {
            return VerbsFfi.probe();
        } catch (ExceptionInInitializerError e) { // the library or its layouts failed to load
            return e.getCause() != null ? e.getCause() : e;
        } catch (NoClassDefFoundError e) {
            return e;
        }
    }

    public static Throwable cuda() {
        try {
            return CudaFfi.probe();
        } catch (ExceptionInInitializerError e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (NoClassDefFoundError e) {
            return e;
        }
    }
}
