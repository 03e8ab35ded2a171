// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.api.MarrowException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/** The real-exercise probes behind {@code Backend.isAvailable()}. Null = available. */
public final class Probes {
    private Probes() {
    }

    /** Opens and closes a quiet, idle-mode emulated device. */
    public static Throwable softnic() {
        NativeLib lib = EmuFfi.LIB;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = NativeLib.allocateSized(a, EmuLayouts.DEVICE_ATTR);
            attr.set(JAVA_INT, 8, 0);   // idle poll mode
            attr.set(JAVA_INT, 12, 1);  // one engine thread
            attr.set(JAVA_INT, 24, -1); // no pinning
            attr.set(JAVA_INT, 28, 1);  // quiet: a probe prints nothing
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
        return VerbsFfi.probe();
    }

    public static Throwable cuda() {
        return CudaFfi.probe();
    }

    static MarrowException unavailable(String what) {
        return new MarrowException(what);
    }
}
