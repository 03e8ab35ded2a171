// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

/**
 * Affine fits over sliding windows of consecutive sizes: a token bucket
 * holding K bytes of credit makes transfers up to K faster than the steady
 * rate, so some window below K fits a steeper 1/beta than the whole range.
 * E13 reports the largest windowed rate ("burst maximum").
 */
public final class WindowedSlopes {
    private WindowedSlopes() {
    }

    /** The fastest window: its 1/beta and its first and last size. */
    public record Max(double rate, double fromBytes, double toBytes) {
    }

    /** 1/beta of y = alpha + beta * x over each run of `window` consecutive points. */
    public static double[] rates(double[] x, double[] y, int window) {
        if (window < 2 || window > x.length) {
            throw new IllegalArgumentException("window " + window + " must be 2.." + x.length);
        }
        double[] r = new double[x.length - window + 1];
        for (int i = 0; i < r.length; i++) {
            double[] wx = java.util.Arrays.copyOfRange(x, i, i + window);
            double[] wy = java.util.Arrays.copyOfRange(y, i, i + window);
            r[i] = AffineFit.of(wx, wy).rate();
        }
        return r;
    }

    public static Max max(double[] x, double[] y, int window) {
        double[] r = rates(x, y, window);
        int k = Spread.argMax(r);
        return new Max(r[k], x[k], x[k + window - 1]);
    }
}
