// SPDX-License-Identifier: Apache-2.0
package dev.marrow.bench;

import dev.marrow.proxy.Handoff;
import dev.marrow.proxy.MiniProxy;
import dev.marrow.proxy.RateResult;
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

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Question: how many requests per second pass through one mini-proxy descriptor ring, from a CPU
 * producer through the worker that drains it and posts WQEs to the NIC, to the completion counter?
 *
 * <p>Method: one invocation = one downcall (marrow_proxy_cpu_rate, one producer thread in C) that streams
 * {@link #MESSAGES} 8-byte WRITE descriptors through ring 0 (2^10 slots) of a proxy with one worker, up
 * to {@code batch} requests chained per post, and waits for the last completion; ops/s = descriptors/s.
 * A run with a destination byte that differs from its source fails. Timed: the whole stream. Excluded:
 * set-up (trial level). handoff and idle as in {@link ProxyEnqueueBenchmark}. Warm-up 3 x 1 s,
 * measurement 5 x 1 s, 3 forks; statistic: mean throughput with JMH's 99.9% confidence interval.
 * Results are of the EMULATED NIC. The CLI gives the same figure: {@code scripts/marrow proxy rate}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--illegal-native-access=deny"})
@State(Scope.Thread)
@EmulatedNic
public class DescriptorRingBenchmark {
    static final int MESSAGES = 65536;
    static final long TIMEOUT_NS = 10_000_000_000L;

    @Param({"tuned", "baseline"})
    String handoff;

    @Param({"16"})
    int batch;

    @Param({"spin"})
    String idle;

    MiniProxy px;

    @Setup(Level.Trial)
    public void setUp() {
        px = ProxyEnqueueBenchmark.open(Handoff.valueOf(handoff.toUpperCase(Locale.ROOT)), "yield".equals(idle), 1,
                batch);
        px.start();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        px.close();
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public long stream() {
        RateResult r = px.cpuRate(1, MESSAGES, 0, 8, TIMEOUT_NS);
        if (r.verifyErrors() != 0 || r.messages() != MESSAGES) {
            throw new IllegalStateException("descriptor ring: " + r.messages() + " of " + MESSAGES
                    + " messages, " + r.verifyErrors() + " destination bytes wrong");
        }
        return r.elapsedNs();
    }
}
