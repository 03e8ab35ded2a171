// SPDX-License-Identifier: Apache-2.0
package dev.marrow.bench;

import dev.marrow.proxy.Handoff;
import dev.marrow.proxy.MiniProxy;
import dev.marrow.proxy.ProxyConfig;
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
 * Question: what does a CPU producer pay to hand one request to the mini-proxy (reserve a slot of the
 * descriptor ring, write the 16-byte descriptor, publish it), with the worker draining the ring?
 *
 * <p>Method: one invocation = {@link #ENQUEUES} calls of {@link MiniProxy#enqueue} (one FFM downcall each,
 * marrow_proxy_enqueue: 8-byte WRITE descriptors) on ring 0 of a proxy with one worker on the software
 * NIC; after each invocation, untimed, the producer waits until the worker has completed everything, so
 * every invocation starts with an empty ring of 2^10 slots and never finds it full. Timed: the enqueue
 * calls, each with its Java wrapper (a confined arena for the ticket). Excluded: the worker's posting and
 * the NIC (on their own threads), the drain wait, set-up. handoff: baseline (atomic reservation,
 * system-scope publish) or tuned (one producer per ring, cached progress). idle=yield lets the worker and
 * the engine yield the core when idle (for machines with fewer than 4 cores; not for publishing).
 * Warm-up 5 x 1 s, measurement 5 x 1 s, 3 forks; statistic: mean ns per enqueue with JMH's 99.9%
 * confidence interval. The worker feeds the EMULATED NIC; the cost timed is the producer's.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--illegal-native-access=deny"})
@State(Scope.Thread)
@EmulatedNic
public class ProxyEnqueueBenchmark {
    static final int ENQUEUES = 256;
    static final long TIMEOUT_NS = 10_000_000_000L;

    @Param({"tuned", "baseline"})
    String handoff;

    @Param({"spin"})
    String idle;

    MiniProxy px;
    int remote;
    long enqueued;

    @Setup(Level.Trial)
    public void setUp() {
        px = open(Handoff.valueOf(handoff.toUpperCase(Locale.ROOT)), "yield".equals(idle), 1, 16);
        px.start();
        remote = (int) (px.buffer().byteSize() / 2);
    }

    /** One worker, one ring of 2^10 slots, on the software NIC; yieldIdle for fewer cores than spinners. */
    static MiniProxy open(Handoff h, boolean yieldIdle, int rings, int batch) {
        ProxyConfig c = ProxyConfig.softnic(1, rings, batch, h).withLogSlots(10)
                .withMinBufferBytes(Math.max(1 << 20, MiniProxy.bufferBytes(rings, 10, 8)))
                .withEngine(!yieldIdle, 1, -1).withYieldIdle(yieldIdle);
        return MiniProxy.open(c);
    }

    @TearDown(Level.Invocation)
    public void drain() {
        px.await(0, enqueued, TIMEOUT_NS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        px.close();
    }

    @Benchmark
    @OperationsPerInvocation(ENQUEUES)
    public long enqueue() {
        long t = 0;
        for (int i = 0; i < ENQUEUES; i++) {
            t = px.enqueue(0, 0, remote, 8, TIMEOUT_NS);
        }
        enqueued += ENQUEUES;
        return t;
    }
}
