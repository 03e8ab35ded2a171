// SPDX-License-Identifier: Apache-2.0
// "The study" below: "How does Hopper distributed shared memory actually move data?"
package dev.marrow.dsm;

/**
 * How much a set of per-configuration medians moves: the probes' invariance
 * figures (E11's offset scan, E12's pressure levels). The study states its
 * as "changes cycles by only 0.39 %" and "3,628-3,633 cycles"; we report the
 * full range relative to the mean, and the largest deviation from a baseline.
 */
public final class Spread {
    private Spread() {
    }

    /** 100 * (max - min) / mean of the values. */
    public static double rangePct(double[] v) {
        if (v.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        for (double x : v) {
            min = Math.min(min, x);
            max = Math.max(max, x);
            sum += x;
        }
        return 100.0 * (max - min) / (sum / v.length);
    }

    /** 100 * max |v - baseline| / baseline. */
    public static double maxDeviationPct(double[] v, double baseline) {
        if (!(baseline > 0)) {
            throw new IllegalArgumentException("baseline must be positive, not " + baseline);
        }
        double m = 0;
        for (double x : v) {
            m = Math.max(m, Math.abs(x - baseline));
        }
        return 100.0 * m / baseline;
    }

    public static double min(double[] v) {
        double m = Double.POSITIVE_INFINITY;
        for (double x : v) {
            m = Math.min(m, x);
        }
        return m;
    }

    public static double max(double[] v) {
        double m = Double.NEGATIVE_INFINITY;
        for (double x : v) {
            m = Math.max(m, x);
        }
        return m;
    }

    /** Index of the largest value. */
    public static int argMax(double[] v) {
        int k = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[k]) {
                k = i;
            }
        }
        return k;
    }
}
