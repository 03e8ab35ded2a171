// SPDX-License-Identifier: Apache-2.0
package dev.marrow.bench;

import dev.marrow.internal.ffi.EmuFfi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Question: what does one FFM downcall cost, default vs critical linkage?
 *
 * <p>Method: each benchmark calls an empty function returning int
 * (marrow_emu_noop) through a static final handle with invokeExact; the
 * baseline calls an empty, non-inlined Java method. Timed: the call only.
 * Excluded: library loading and handle creation (class initialisation).
 * Warm-up 5 x 1 s, measurement 5 x 1 s, 3 forks; statistic: mean ns/op with
 * JMH's 99.9% confidence interval.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--illegal-native-access=deny"})
@State(Scope.Thread)
public class DowncallOverheadBenchmark {

    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    static int javaNoop() {
        return 0;
    }

    @Benchmark
    public int plainJava() {
        return javaNoop();
    }

    @Benchmark
    public int ffmDefault() throws Throwable {
        return (int) EmuFfi.NOOP.invokeExact();
    }

    @Benchmark
    public int ffmCritical() throws Throwable {
        return (int) EmuFfi.NOOP_CRITICAL.invokeExact();
    }
}
