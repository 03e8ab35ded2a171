// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.api.softnic.SoftNic;

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
            MemorySegment attr = SoftNic.deviceAttr(a, SoftNic.Options.defaults().withQuiet(true));
            MemorySegment out = a.allocate(ADDRESS);
            lib.check((int) EmuFfi.DEVICE_OPEN.invokeExact(attr, out), "marrow_emu_device_open");
            MemorySegment dev = out.get(ADDRESS, 0);
            lib.check((int) EmuFfi.DEVICE_CLOSE.invokeExact(dev), "marrow_emu_device_close");
            return null;
        } catch (Throwable t) {
            return t;
        }
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
