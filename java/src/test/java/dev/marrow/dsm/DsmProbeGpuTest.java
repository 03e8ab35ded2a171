// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.api.Backend;
import dev.marrow.results.ResultRecord;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On a Hopper GPU: every probe's kernel build moves the right bytes (checksums
 * after the end stamps) with one CTA per SM, and its probe fields say what
 * ran (pressure accesses only where asked, burst durations consistent).
 */
@Tag("gpu")
class DsmProbeGpuTest {
    private static NativeDsmDevice open(KernelConfig c) {
        Assumptions.assumeTrue(Backend.CUDA.isAvailable(),
                () -> "needs a GPU: " + Backend.CUDA.unavailabilityCause().getMessage());
        return NativeDsmDevice.open(0, c);
    }

    private static void assertAllAccepted(List<Launch> ls) {
        for (Launch l : ls) {
            assertTrue(l.accepted(), () -> "flags " + Sample.flagNames(l.flagsUnion()) + " placement " + l.placement());
        }
    }

    static List<String> probes() {
        return Experiments.probes().stream().map(Experiment::id).toList();
    }

    @ParameterizedTest
    @MethodSource("probes")
    void probeRunsWithoutRejections(String id) {
        NativeDsmDevice dev = open(KernelConfig.DEFAULT);
        DsmContext ctx = new DsmContext(dev, 3, 1, new int[] {16 * 1024, 48 * 1024, 96 * 1024}, null);
        List<ResultRecord> rows = Experiments.select(id).getFirst().run(ctx);
        assertFalse(rows.isEmpty());
        assertTrue(ctx.rejections().isEmpty(), () -> "rejected launches: " + ctx.rejections());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 16, 32, 2048, 4064})
    void offsetTilesArriveIntactForEveryKind(int offset) {
        NativeDsmDevice dev = open(KernelConfig.DEFAULT);
        for (OneWay k : OneWay.values()) {
            Spec s = k.add(k.add(Spec.idle("both ways", 4), 3, 1), 0, 2).withProbe(Probe.BASELINE.withRemoteOffset(offset));
            assertAllAccepted(dev.run(s, 64 * 1024, 3, 1, 11));
        }
    }

    @Test
    void pressureWarpsRunOnlyWhereAsked() {
        NativeDsmDevice dev = open(KernelConfig.DEFAULT);
        for (boolean conflict : new boolean[] {false, true}) {
            Spec s = OneWay.LOAD.add(Spec.idle("load 1->0", 2), 1, 0)
                    .withProbe(Probe.BASELINE.withGroupThreads(224).withPressure(16, 2, conflict));
            List<Launch> ls = dev.run(s, 64 * 1024, 3, 1, 21);
            assertAllAccepted(ls);
            for (Launch l : ls) {
                assertEquals(0, l.rank(0).pressureOps());
                assertTrue(l.rank(1).pressureOps() > 0, "pressure warps on rank 1 made no accesses");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"LOAD", "STORE"})
    void burstsAreTimedAndDeliverEveryByte(OneWay kind) {
        NativeDsmDevice dev = open(KernelConfig.DEFAULT);
        Spec s = kind.add(Spec.idle("bursts", 2), 1, 0).withProbe(Probe.BASELINE.withBursts(8, 2000));
        for (Launch l : dev.run(s, 32 * 1024, 3, 1, 31)) {
            assertTrue(l.accepted(), () -> Sample.flagNames(l.flagsUnion()));
            Sample g = l.rank(kind == OneWay.LOAD ? 0 : 1);
            long total = (kind == OneWay.LOAD ? g.clkLoadEnd() : g.clkStoreEnd()) - g.clkStart();
            assertTrue(g.burstBusyCycles() > 0 && g.burstBusyCycles() < total, () -> g.toString());
            assertTrue(g.burstMinCycles() <= g.burstFirstCycles() && 8 * g.burstMinCycles() <= g.burstBusyCycles());
            assertTrue(total >= 7 * 2000L, "the gaps are part of the interval");
        }
    }

    @Test
    void everyStoreVariantDeliversEveryByte() {
        NativeDsmDevice dev = open(KernelConfig.DEFAULT);
        for (E14StoreVariants.Variant v : E14StoreVariants.VARIANTS) {
            Spec s = OneWay.STORE.add(OneWay.STORE.add(Spec.idle(v.name(), 2), 1, 0), 0, 1).withProbe(v.probe());
            assertAllAccepted(dev.run(s, 96 * 1024, 3, 1, 41));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 8, 16})
    void theBytesLoadKernelDeliversEveryByte(int width) {
        NativeDsmDevice dev = open(new KernelConfig(480, 16384, DsmDevice.LoadKernel.INFLIGHT_BYTES, 16, width));
        Spec s = OneWay.LOAD.add(OneWay.LOAD.add(Spec.idle("both ways", 16), 3, 12), 12, 3);
        for (int tile : new int[] {16 * 1024, 96 * 1024}) {
            assertAllAccepted(dev.run(s, tile, 3, 1, 51));
        }
    }
}
