// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The kernel-cost arithmetic, without a GPU. */
class KcostMathTest {
    @Test
    void medianIsNearestRankAndAnObservedValue() {
        assertEquals(2.0, KcostMath.median(new double[] {3, 1, 2}));
        assertEquals(2.0, KcostMath.median(new double[] {4, 1, 3, 2}), "even count: the lower middle, observed");
        assertEquals(5.0, KcostMath.median(new double[] {5}));
        assertThrows(IllegalArgumentException.class, () -> KcostMath.median(new double[0]));
    }

    @Test
    void slowdownAndThroughputLossAgreeOnOneRun() {
        assertEquals(0.25, KcostMath.slowdown(2.0, 2.5), 1e-12);
        assertEquals(0.2, KcostMath.throughputLoss(2.0, 2.5), 1e-12);
        assertEquals(0.0, KcostMath.slowdown(2.0, 2.0), 0.0);
        // faster than the baseline: a negative loss, not clipped
        assertEquals(-0.25, KcostMath.throughputLoss(2.5, 2.0), 1e-12);
        // a 37 % throughput loss l means the arm takes 1 / (1 - l) of the time
        assertEquals(0.37, KcostMath.throughputLoss(1.0, 1.0 / 0.63), 1e-12);
    }

    @Test
    void waitingLossIsAgainstSendingWithoutWaiting() {
        assertEquals(0.5, KcostMath.waitingLoss(1.0, 2.0), 1e-12);
    }

    @Test
    void nonPositiveTimesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> KcostMath.slowdown(0, 1));
        assertThrows(IllegalArgumentException.class, () -> KcostMath.throughputLoss(1, -1));
        assertThrows(IllegalArgumentException.class, () -> KcostMath.slowdown(Double.NaN, 1));
    }

    @Test
    void spreadIsRangeOverMedian() {
        assertEquals(0.5, KcostMath.spread(new double[] {1.5, 2.0, 2.5}), 1e-12);
        assertEquals(0.0, KcostMath.spread(new double[] {3, 3}), 0.0);
    }

    @Test
    void effectiveWorkRoundsDownToWholeStepsOfEverySegment() {
        assertEquals(524288, KcostMath.effectiveWork(524288, 32, 16));
        assertEquals(16 * 224 * 146, KcostMath.effectiveWork(524288, 224, 16));
        assertEquals(0, KcostMath.effectiveWork(100, 32, 16));
    }
}
