// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;
import dev.marrow.internal.loader.NativeLoader;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One loaded libmarrow_*.so: its symbol lookup plus the four functions every
 * Marrow library exports (ABI version, last error, layout query, status name).
 * Creating one performs the version half of the ABI handshake.
 */
public final class NativeLib {
    /** The ABI version this Java code was written against (marrow_abi.h). */
    public static final int ABI_VERSION = 1;

    static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfLong C_INT64 = JAVA_LONG;

    private final String component;
    private final SymbolLookup lookup;
    private final MethodHandle abiVersion;
    private final MethodHandle lastError;
    private final MethodHandle abiQuery;
    private final MethodHandle statusName;

    private NativeLib(String component, SymbolLookup lookup) {
        this.component = component;
        this.lookup = lookup;
        // Each library's own exports under its own names (marrow_abi.h: MARROW_ABI_EXPORTS): a process
        // holding several libraries reads each one's version, table and messages.
        this.abiVersion = handle("marrow_" + component + "_abi_version", FunctionDescriptor.of(JAVA_INT));
        this.lastError = handle("marrow_" + component + "_last_error", FunctionDescriptor.of(ADDRESS));
        this.abiQuery = handle("marrow_" + component + "_abi_query", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        this.statusName = handle("marrow_" + component + "_status_name", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    private static final java.util.concurrent.ConcurrentMap<String, NativeLib> SHARED =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.concurrent.ConcurrentMap<String, Long> constants = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The one loaded instance of libmarrow_{component}.so (version handshake
     * done), shared by the layouts and constants that come from it.
     */
    public static NativeLib shared(String component) {
        NativeLib lib = SHARED.get(component);
        if (lib == null) {
            lib = SHARED.computeIfAbsent(component, NativeLib::load);
        }
        return lib;
    }

    /** Loads libmarrow_{component}.so and refuses an ABI version mismatch. */
    public static NativeLib load(String component) {
        NativeLib lib = new NativeLib(component, NativeLoader.lookup(component));
        int v = lib.abiVersion();
        if (v != ABI_VERSION) {
            throw new MarrowException("ABI mismatch: libmarrow_" + component + ".so reports ABI version " + v
                    + " but this Java code expects " + ABI_VERSION + "; rebuild the jar and the native libraries together");
        }
        return lib;
    }

    public String component() {
        return component;
    }

    public MethodHandle handle(String name, FunctionDescriptor fd, Linker.Option... options) {
        MemorySegment sym = lookup.find(name).orElseThrow(() -> new MarrowException(
                "symbol " + name + " missing from libmarrow_" + component + ".so (stale build?)"));
        return LINKER.downcallHandle(sym, fd, options);
    }

    public int abiVersion() {
        try {
            return (int) abiVersion.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public String lastError() {
        try {
            MemorySegment s = (MemorySegment) lastError.invokeExact();
            return s.equals(MemorySegment.NULL) ? "" : s.reinterpret(4096).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public String statusName(int status) {
        try {
            MemorySegment s = (MemorySegment) statusName.invokeExact(status);
            return s.reinterpret(64).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Throws {@link NativeException} with the C side's message when rc != 0. */
    public void check(int rc, String function) {
        if (rc != 0) {
            throw exception(rc, function);
        }
    }

    /** The exception for a failed call: status, its C name and this thread's C message. */
    public NativeException exception(int rc, String function) {
        return new NativeException(rc, statusName(rc), function, lastError());
    }

    /** Value of an ABI key ("sizeof:x", "offsetof:x.y"), or -1 when unknown to the library. */
    public long abiQuery(String key) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(C_INT64);
            int rc = (int) abiQuery.invokeExact(a.allocateFrom(key), out);
            return rc == 0 ? out.get(C_INT64, 0) : -1;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Value of a C constant (enum value or #define) by its C name, as the
     * library exports it ("const:NAME"). A name the library does not export
     * fails the handshake: Java never guesses a C number.
     */
    public long constant(String cName) {
        Long v = constants.get(cName);
        if (v == null) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment out = a.allocate(C_INT64);
                int rc = (int) abiQuery.invokeExact(a.allocateFrom("const:" + cName), out);
                if (rc != 0) {
                    throw new MarrowException("ABI constant mismatch: libmarrow_" + component + ".so does not export "
                            + cName + ", which this Java code uses; rebuild the jar and the native libraries together");
                }
                v = out.get(C_INT64, 0);
            } catch (Throwable t) {
                throw rethrow(t);
            }
            constants.put(cName, v);
        }
        return v;
    }

    /** {@link #constant} for a C int (every Marrow enum and flag). */
    public int intConstant(String cName) {
        return Math.toIntExact(constant(cName));
    }

    /**
     * For the few values Java must know without a library (see their
     * comments): refuses a library whose value differs.
     */
    public void verifyConstant(String cName, long javaValue) {
        long c = constant(cName);
        if (c != javaValue) {
            throw new MarrowException("ABI constant mismatch: libmarrow_" + component + ".so has " + cName + " = " + c
                    + ", this Java code " + javaValue + "; rebuild the jar and the native libraries together");
        }
    }

    /**
     * For enums whose values come from another library (the same header
     * compiled twice): this library must export each with the same value.
     */
    public void verifySameConstants(CEnum[]... enums) {
        for (CEnum[] values : enums) {
            for (CEnum e : values) {
                verifyConstant(e.cName(), e.code());
            }
        }
    }

    /**
     * The constant half of the handshake: every value of each enum must be
     * exported by the library. Throws naming the first one that is not.
     */
    public final void verifyConstants(CEnum[]... enums) {
        for (CEnum[] values : enums) {
            for (CEnum e : values) {
                constant(e.cName());
            }
        }
    }

    /**
     * The layout half of the handshake: every named member of every layout must
     * sit at the offset the C compiler chose, and every struct must have the
     * C size. Returns the mismatches (empty when all agree).
     */
    public List<String> layoutMismatches(List<? extends MemoryLayout> structs) {
        List<String> bad = new ArrayList<>();
        for (MemoryLayout s : structs) {
            String name = s.name().orElseThrow();
            long cSize = abiQuery("sizeof:" + name);
            if (cSize != s.byteSize()) {
                bad.add("sizeof(" + name + "): C " + cSize + ", Java " + s.byteSize());
            }
            if (!(s instanceof java.lang.foreign.StructLayout st)) {
                continue;
            }
            for (MemoryLayout m : st.memberLayouts()) {
                if (m.name().isEmpty()) {
                    continue; // padding
                }
                String f = m.name().get();
                long cOff = abiQuery("offsetof:" + name + "." + f);
                long jOff = st.byteOffset(MemoryLayout.PathElement.groupElement(f));
                if (cOff != jOff) {
                    bad.add("offsetof(" + name + "." + f + "): C " + cOff + ", Java " + jOff);
                }
            }
        }
        return bad;
    }

    /** Throws when {@link #layoutMismatches} finds any: Java refuses to run on a mismatch. */
    public void verifyLayouts(List<? extends MemoryLayout> structs) {
        List<String> bad = layoutMismatches(structs);
        if (!bad.isEmpty()) {
            throw new MarrowException("ABI layout mismatch with libmarrow_" + component + ".so: "
                    + String.join("; ", bad) + ". Rebuild the jar and the native libraries together.");
        }
    }

    /** What {@code MethodHandle.invokeExact} may throw, as an unchecked exception (Errors propagate). */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new MarrowException("native call failed: " + t, t);
    }
}
