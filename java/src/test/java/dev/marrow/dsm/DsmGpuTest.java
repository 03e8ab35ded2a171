// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.api.Backend;
import dev.marrow.results.ResultRecord;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * On a Hopper GPU: every experiment runs with few repetitions, and every
 * launch it used passed the checksum and one-CTA-per-SM checks (collect()
 * aborts a series with too many rejections; here we demand none at all).
 */
@Tag("gpu")
class DsmGpuTest {
    static List<String> experiments() {
        return Experiments.all().stream().map(Experiment::id).toList();
    }

    @ParameterizedTest
    @MethodSource("experiments")
    void experimentValidatesChecksumsAndPlacement(String id) {
        Assumptions.assumeTrue(Backend.CUDA.isAvailable(),
                () -> "needs a GPU: " + Backend.CUDA.unavailabilityCause().getMessage());
        NativeDsmDevice dev = NativeDsmDevice.open(0, 480, 16384);
        DsmContext ctx = new DsmContext(dev, 3, 1, new int[] {16 * 1024, 48 * 1024, 96 * 1024}, null);
        List<ResultRecord> rows = Experiments.select(id).getFirst().run(ctx);
        assertFalse(rows.isEmpty());
        assertTrue(ctx.rejections().isEmpty(), () -> "rejected launches: " + ctx.rejections());
        for (ResultRecord r : rows) {
            assertEquals("cuda", r.backend());
            assertTrue(r.hardware());
        }
    }

    @ParameterizedTest
    @MethodSource("kinds")
    void everyRankOnItsOwnSmAndChecksumsMatch(OneWay kind) {
        Assumptions.assumeTrue(Backend.CUDA.isAvailable(),
                () -> "needs a GPU: " + Backend.CUDA.unavailabilityCause().getMessage());
        NativeDsmDevice dev = NativeDsmDevice.open(0, 480, 16384);
        Spec spec = kind.add(kind.add(Spec.idle("both ways", 16), 3, 12), 12, 3);
        for (Launch l : dev.run(spec, 64 * 1024, 5, 1, 77)) {
            assertTrue(l.accepted(), () -> "flags " + Sample.flagNames(l.flagsUnion()) + " placement " + l.placement());
            assertEquals(16, l.ranks().stream().map(Sample::smidStart).distinct().count());
        }
    }

    static List<OneWay> kinds() {
        return List.of(OneWay.values());
    }
}
