// SPDX-License-Identifier: Apache-2.0
package dev.marrow.bench;

import dev.marrow.api.softnic.LoopbackRig;
import dev.marrow.api.softnic.SoftNic;
import dev.marrow.api.softnic.SoftNicBench;
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

import java.util.concurrent.TimeUnit;

/**
 * Question: how many 8-byte inline RDMA WRITEs per second does the software
 * NIC absorb from one CPU producer thread, at 1, 16 and 32 WQEs per doorbell?
 *
 * <p>Method: one invocation = one downcall that streams {@link #MESSAGES}
 * writes in C (WQE build, release fence, dbrec, 8-byte doorbell; last WQE of
 * each batch signaled; CQ polled), so ops/s = messages/s. Timed: the whole
 * stream including the final CQE. Excluded: device/QP set-up (trial level).
 * The engine spins (hot mode). Warm-up 3 x 1 s, measurement 5 x 1 s, 3 forks;
 * statistic: mean throughput with JMH's 99.9% confidence interval. Results are
 * of the EMULATED NIC. The CLI gives the same figure:
 * {@code scripts/marrow softnic rate --size 8 --batch 16}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--illegal-native-access=deny"})
@State(Scope.Thread)
@EmulatedNic
public class SoftNicRateBenchmark {
    static final int MESSAGES = 65536;

    @Param({"1", "16", "32"})
    int batch;

    LoopbackRig rig;

    @Setup(Level.Trial)
    public void setUp() {
        rig = new LoopbackRig(SoftNic.Options.defaults().withPollMode(SoftNic.PollMode.HOT).withQuiet(true),
                10, 16, 64, 4096);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        rig.close();
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public long inline8() {
        return SoftNicBench.rate(rig.qp(), 8, batch, MESSAGES, 0, rig.source(), rig.destination(), 10_000_000_000L)
                .messages();
    }
}
