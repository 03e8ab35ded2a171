// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.internal.ffi.EmuFfi;
import dev.marrow.internal.ffi.EmuLayouts;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import java.lang.foreign.StructLayout;

import static dev.marrow.internal.ffi.CStruct.getLong;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * CPU-producer measurements on the software NIC. The timed loops run in C
 * (marrow_emu_bench_*); Java only sets up and reads the results.
 */
public final class SoftNicBench {
    private SoftNicBench() {
    }

    /**
     * What a rate run did, as counted by the C producer. cutShort: the time
     * budget ({@link #withBudget}) ended it before all its messages were
     * posted; messages counts what completed.
     */
    public record RateResult(long messages, long doorbells, long cqes, long elapsedNs, boolean cutShort) {
        public double rateMmsgPerSec() {
            return messages * 1e3 / elapsedNs;
        }
    }

    /**
     * Streams {@code messages} RDMA WRITEs of {@code size} bytes, {@code batch}
     * WQEs per doorbell (last one signaled). Inline when size fits the QP's
     * inline limit, else gathered from {@code local}.
     */
    public static RateResult rate(QueuePair qp, int size, int batch, long messages, long warmup,
                                  MemoryRegion local, MemoryRegion remote, long timeoutNs) {
        try (Arena a = Arena.ofConfined()) {
            StructLayout l = EmuLayouts.BENCH_RESULT;
            MemorySegment out = CStruct.allocate(a, l);
            int rc = (int) EmuFfi.BENCH_RATE.invokeExact(qp.handle(), qp.sendCq().handle(), size, batch, messages,
                    warmup, local.address(), local.lkey(), remote.address(), remote.rkey(), timeoutNs, out);
            EmuFfi.LIB.check(rc, "marrow_emu_bench_rate");
            return new RateResult(getLong(out, l, "messages"), getLong(out, l, "doorbells"), getLong(out, l, "cqes"),
                    getLong(out, l, "elapsed_ns"), CStruct.getInt(out, l, "cut_short") != 0);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /**
     * Encodes {@code wqes} RC RDMA WRITE WQEs of {@code size} bytes (inline when size &lt;= maxInline) into
     * the ring {@code sq} of 2^logSq WQEBBs with the producer code the rate benchmark times, and nothing
     * else: no doorbell, no engine (marrow_emu_bench_encode in marrow_softnic.h says what goes in them).
     */
    public static void encode(MemorySegment sq, int logSq, int qpn, int size, int maxInline, long wqes) {
        try {
            int rc = (int) EmuFfi.BENCH_ENCODE.invokeExact(sq, sq.byteSize(), logSq, qpn, size, maxInline, wqes);
            EmuFfi.LIB.check(rc, "marrow_emu_bench_encode");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /**
     * Runs body with the rate benchmarks it calls on this thread bounded by
     * budgetNs (a run past it stops posting and comes back cutShort);
     * {@code budgetNs < 0}: no bound. The bound is removed afterwards.
     */
    public static <T> T withBudget(long budgetNs, java.util.function.Supplier<T> body) {
        setBudget(budgetNs < 0 ? 0 : Math.max(1, budgetNs)); // 0 means "no bound" to C
        try {
            return body.get();
        } finally {
            setBudget(0);
        }
    }

    private static void setBudget(long ns) {
        try {
            EmuFfi.LIB.check((int) EmuFfi.BENCH_SET_BUDGET.invokeExact(ns), "marrow_emu_bench_set_budget");
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    private static final class Parallel {
        static final MethodHandle RATE = EmuFfi.LIB.handle("marrow_emu_bench_rate_parallel",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                        JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS));
        static final MethodHandle RATE_PINNED = EmuFfi.LIB.handle("marrow_emu_bench_rate_parallel_pinned",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                        JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
    }

    /**
     * {@code producers} CPU threads, each streaming {@code messages} RDMA WRITEs
     * to its own loopback QP (2^logSq WQEBBs, maxInline) created on {@code nic}
     * for this run; the QPs spread over the engine threads by QPN. The result
     * counts all producers; elapsed runs from the common start to the last CQE.
     */
    public static RateResult rateParallel(SoftNic nic, int producers, int size, int batch, int logSq, int maxInline,
                                          long messages, long warmup, long timeoutNs) {
        try (Arena a = Arena.ofConfined()) {
            StructLayout l = EmuLayouts.BENCH_RESULT;
            MemorySegment out = CStruct.allocate(a, l);
            int rc = (int) Parallel.RATE.invokeExact(nic.deviceHandle(), producers, size, batch, logSq, maxInline,
                    messages, warmup, timeoutNs, out);
            EmuFfi.LIB.check(rc, "marrow_emu_bench_rate_parallel");
            return new RateResult(getLong(out, l, "messages"), getLong(out, l, "doorbells"), getLong(out, l, "cqes"),
                    getLong(out, l, "elapsed_ns"), CStruct.getInt(out, l, "cut_short") != 0);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /**
     * As {@link #rateParallel}, with producer {@code i} pinned to CPU
     * {@code producerCpus[i]} (-1: not pinned); {@code producerCpus} has one
     * entry per producer.
     */
    public static RateResult rateParallel(SoftNic nic, int producers, int size, int batch, int logSq, int maxInline,
                                          long messages, long warmup, long timeoutNs, int[] producerCpus) {
        if (producerCpus.length != producers) {
            throw new IllegalArgumentException(producerCpus.length + " producer CPU(s) given for " + producers
                    + " producer(s)");
        }
        try (Arena a = Arena.ofConfined()) {
            StructLayout l = EmuLayouts.BENCH_RESULT;
            MemorySegment out = CStruct.allocate(a, l);
            MemorySegment cpus = a.allocateFrom(JAVA_INT, producerCpus);
            int rc = (int) Parallel.RATE_PINNED.invokeExact(nic.deviceHandle(), producers, size, batch, logSq,
                    maxInline, messages, warmup, timeoutNs, cpus, out);
            EmuFfi.LIB.check(rc, "marrow_emu_bench_rate_parallel_pinned");
            return new RateResult(getLong(out, l, "messages"), getLong(out, l, "doorbells"), getLong(out, l, "cqes"),
                    getLong(out, l, "elapsed_ns"), CStruct.getInt(out, l, "cut_short") != 0);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }

    /** Put+completion samples (ns) of one signaled write at a time. */
    public static long[] latency(QueuePair qp, int size, int iters, int warmup,
                                 MemoryRegion local, MemoryRegion remote, long timeoutNs) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment samples = a.allocate(JAVA_LONG, iters);
            int rc = (int) EmuFfi.BENCH_LATENCY.invokeExact(qp.handle(), qp.sendCq().handle(), size, (long) iters,
                    (long) warmup, local.address(), local.lkey(), remote.address(), remote.rkey(), timeoutNs, samples);
            EmuFfi.LIB.check(rc, "marrow_emu_bench_latency");
            return samples.toArray(JAVA_LONG);
        } catch (Throwable t) {
            throw NativeLib.rethrow(t);
        }
    }
}
