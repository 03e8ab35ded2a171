// SPDX-License-Identifier: Apache-2.0
package dev.marrow.bench;

import dev.marrow.internal.ffi.EmuFfi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * Question: what does a CPU producer pay to encode one mlx5 RDMA WRITE WQE (control, remote-address and
 * inline or pointer data segments, big-endian, into the SQ ring), before any doorbell?
 *
 * <p>Method: one invocation = one downcall (marrow_emu_bench_encode) that writes {@link #WQES} WQEs with
 * the producer code the software NIC's rate benchmark times (native/src/softnic/emu_producer.h over
 * native/include/marrow/mlx5_wqe.h) into a private ring of 2^{@link #LOG_SQ} WQEBBs, so ns/op = ns per
 * WQE with the downcall amortised over {@link #WQES}. Sizes up to {@link #MAX_INLINE} bytes go inline,
 * larger ones as one pointer segment. Timed: the encoding and its stores. Excluded: dbrec, doorbell,
 * the NIC (none runs: a HOST result, not EMULATED). Warm-up 5 x 1 s, measurement 5 x 1 s, 3 forks;
 * statistic: mean ns per WQE with JMH's 99.9% confidence interval.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--illegal-native-access=deny"})
@State(Scope.Thread)
public class WqeEncodeBenchmark {
    static final int LOG_SQ = 10;
    static final int WQES = 1024;
    /** The largest inline payload of the gda size sweep (README: inline 8..220 B). */
    static final int MAX_INLINE = 220;
    static final int QPN = 0x100;

    @Param({"8", "128", "4096"})
    int size;

    Arena arena;
    MemorySegment sq;

    @Setup(Level.Trial)
    public void setUp() {
        arena = Arena.ofShared();
        // Ample for 2^LOG_SQ WQEBBs; the C side checks that the ring fits (sq_bytes).
        sq = arena.allocate(1L << 20, 4096);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    @OperationsPerInvocation(WQES)
    public int encode() throws Throwable {
        int rc = (int) EmuFfi.BENCH_ENCODE.invokeExact(sq, sq.byteSize(), LOG_SQ, QPN, size, MAX_INLINE, (long) WQES);
        if (rc != 0) {
            EmuFfi.LIB.check(rc, "marrow_emu_bench_encode");
        }
        return rc;
    }
}
