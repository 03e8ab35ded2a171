// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.results.Stats;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.layout;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static dev.marrow.internal.ffi.CStruct.setLong;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * mini-proxy round trip under load with CPU producers (marrow_proxy_loaded.h):
 * the probe on ring 0, PE 1's replies on ring 1, background streams on
 * ring 0 (shared) or rings 2..R-1 (reserved). The loop runs in C.
 */
public final class ProxyLoaded {
    private ProxyLoaded() {
    }

    private static final NativeLib LIB = ProxyFfi.LIB;

    static final StructLayout PARAMS = layout(LIB, "marrow_proxy_loaded_params",
            i32("queue"), i32("bg_streams"), i64("pace_msgs_per_s"), i64("iters"), i64("warmup"), i64("timeout_ns"));
    static final StructLayout RESULT = layout(LIB, "marrow_proxy_loaded_result",
            i64("probes_done"), i64("timed_ns"), i64("bg_in_window"), i64("bg_posted"), i64("bg_slot_errors"));

    public static final int SHARED = (int) LIB.constant("MARROW_PROXY_LOADED_SHARED");
    public static final int RESERVED = (int) LIB.constant("MARROW_PROXY_LOADED_RESERVED");
    public static final int MAX_STREAMS = (int) LIB.constant("MARROW_PROXY_LOADED_MAX_STREAMS");

    private static final MethodHandle RUN = LIB.handle("marrow_proxy_cpu_loaded",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle BUFFER = LIB.handle("marrow_proxy_loaded_buffer_bytes",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT));

    /** Probe samples and what the background carried while they were taken. */
    public record Run(long[] rttNs, long timedNs, long bgInWindow, long bgPosted, long bgSlotErrors) {
        public Stats stats() {
            return Stats.of(rttNs);
        }

        public double bgRateMmsgPerS() {
            return timedNs == 0 ? 0 : bgInWindow * 1e3 / timedNs;
        }
    }

    /** Proxy buffer bytes the experiment needs for this many streams. */
    public static long bufferBytes(int streams) {
        try {
            return (long) BUFFER.invokeExact(streams);
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }

    /** Runs on a started proxy (workers running). */
    public static Run run(MiniProxy px, boolean shared, int streams, long paceMsgsPerS, int iters, int warmup,
                          long timeoutNs) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = CStruct.allocate(a, PARAMS);
            setInt(p, PARAMS, "queue", shared ? SHARED : RESERVED);
            setInt(p, PARAMS, "bg_streams", streams);
            setLong(p, PARAMS, "pace_msgs_per_s", paceMsgsPerS);
            setLong(p, PARAMS, "iters", iters);
            setLong(p, PARAMS, "warmup", warmup);
            setLong(p, PARAMS, "timeout_ns", timeoutNs);
            MemorySegment r = CStruct.allocate(a, RESULT);
            MemorySegment rtt = a.allocate(JAVA_LONG, iters);
            ProxyFfi.check((int) RUN.invokeExact(px.handle(), p, rtt, r), "marrow_proxy_cpu_loaded");
            return new Run(rtt.toArray(JAVA_LONG), getLong(r, RESULT, "timed_ns"), getLong(r, RESULT, "bg_in_window"),
                    getLong(r, RESULT, "bg_posted"), getLong(r, RESULT, "bg_slot_errors"));
        } catch (Throwable t) {
            throw ProxyFfi.rethrow(t);
        }
    }
}
