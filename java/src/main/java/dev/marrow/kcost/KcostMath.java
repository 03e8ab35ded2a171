// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;


/**
 * The arithmetic of the kernel-cost study (docs/design/methods.md §7), kept
 * apart so that it is tested without a GPU.
 */
public final class KcostMath {
    private KcostMath() {
    }

    /** Nearest-rank median (the smallest value with at least half the values at or below it). */
    public static double median(double[] v) {
        if (v.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        return dev.marrow.results.RunMerge.median(v);
    }

    /** Time of the arm over time of the baseline, minus 1: 0.25 = the kernel ran 25 % longer. */
    public static double slowdown(double baselineMs, double armMs) {
        requirePositive(baselineMs, armMs);
        return armMs / baselineMs - 1.0;
    }

    /**
     * Useful-work throughput lost against the baseline (the quantity the
     * study plots): 1 - baseline / arm; 0.2 = a fifth of the throughput lost.
     */
    public static double throughputLoss(double baselineMs, double armMs) {
        requirePositive(baselineMs, armMs);
        return 1.0 - baselineMs / armMs;
    }

    /**
     * Waiting loss: the throughput send-wait-compute loses against
     * send-then-compute at the same messages and size (Table 14's waiting loss).
     */
    public static double waitingLoss(double sendMs, double sendWaitMs) {
        return throughputLoss(sendMs, sendWaitMs);
    }

    /** Spread of the launches: (max - min) / median. */
    public static double spread(double[] v) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double x : v) {
            lo = Math.min(lo, x);
            hi = Math.max(hi, x);
        }
        return (hi - lo) / median(v);
    }

    /** Work per thread rounded down to whole steps of every segment (the kernel's own rounding). */
    public static long effectiveWork(long work, int live, int segments) {
        long step = (long) live * segments;
        return work / step * step;
    }

    private static void requirePositive(double a, double b) {
        if (!(a > 0) || !(b > 0)) {
            throw new IllegalArgumentException("kernel times must be > 0 ms, not " + a + " and " + b);
        }
    }
}
