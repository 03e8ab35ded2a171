// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import java.util.Arrays;

/**
 * Summary of a latency sample. Percentiles use the nearest-rank definition
 * (the smallest sample with at least p% of samples at or below it), so every
 * reported value is a real observation.
 */
public record Stats(long n, long min, long p50, long p90, long p99, long p999, long max, double mean, double stdev) {
    public static final String PERCENTILE_DEFINITION = "nearest-rank";

    public static Stats of(long[] samples) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        long[] s = samples.clone();
        Arrays.sort(s);
        double sum = 0;
        for (long v : s) {
            sum += v;
        }
        double mean = sum / s.length;
        double sq = 0;
        for (long v : s) {
            sq += (v - mean) * (v - mean);
        }
        double stdev = s.length > 1 ? Math.sqrt(sq / (s.length - 1)) : 0;
        return new Stats(s.length, s[0], rank(s, 50), rank(s, 90), rank(s, 99), rank(s, 99.9), s[s.length - 1], mean, stdev);
    }

    /** Nearest-rank percentile of sorted data. */
    public static long rank(long[] sorted, double p) {
        if (p <= 0) {
            return sorted[0];
        }
        int idx = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.min(Math.max(idx, 0), sorted.length - 1)];
    }

    /** Median of doubles (mean of the middle two for even n). */
    public static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        if (n == 0) {
            throw new IllegalArgumentException("no values");
        }
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    }
}
