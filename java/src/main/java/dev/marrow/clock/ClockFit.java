// SPDX-License-Identifier: Apache-2.0
package dev.marrow.clock;

/**
 * Least-squares fit of T(f) = C / f + B over x = 1 / f (docs/design/methods.md §5).
 * With T in microseconds and f in MHz, C comes out in cycles (us x MHz) and
 * B in microseconds: C is the part of the latency that scales with the SM
 * clock, B the part that does not. sensitiveShareAtTop is (C / f_top) /
 * T(f_top), using the fitted T at the highest clock of the data.
 *
 * @param cCycles              the clock-sensitive coefficient
 * @param bUs                  the clock-insensitive intercept
 * @param r2                   coefficient of determination of the fit
 * @param n                    points fitted
 * @param topClockMhz          the highest clock among the points
 * @param bottomClockMhz       the lowest clock among the points
 * @param sensitiveShareAtTop  C / f_top over the fitted T(f_top)
 * @param rmseUs               root-mean-square residual
 */
public record ClockFit(double cCycles, double bUs, double r2, int n, double topClockMhz, double bottomClockMhz,
                       double sensitiveShareAtTop, double rmseUs) {

    /** A fit needs this many points at distinct clocks. */
    public static final int MIN_POINTS = 3;
    /** ... spanning at least this ratio of top to bottom clock, else the slope is noise. */
    public static final double MIN_SPAN = 1.10;

    /** Fits the points (clock in MHz, latency in us); IllegalArgumentException if they cannot carry a fit. */
    public static ClockFit of(double[] clockMhz, double[] latencyUs) {
        if (clockMhz.length != latencyUs.length) {
            throw new IllegalArgumentException("clocks and latencies differ in length: " + clockMhz.length + " vs "
                    + latencyUs.length);
        }
        int n = clockMhz.length;
        double top = Double.NEGATIVE_INFINITY;
        double bottom = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            if (!(clockMhz[i] > 0) || !Double.isFinite(clockMhz[i]) || !Double.isFinite(latencyUs[i])) {
                throw new IllegalArgumentException("point " + i + " is not a positive clock and a finite latency: "
                        + clockMhz[i] + " MHz, " + latencyUs[i] + " us");
            }
            top = Math.max(top, clockMhz[i]);
            bottom = Math.min(bottom, clockMhz[i]);
        }
        long distinct = java.util.Arrays.stream(clockMhz).map(Math::rint).distinct().count();
        if (n < MIN_POINTS || distinct < MIN_POINTS) {
            throw new IllegalArgumentException("a clock fit needs at least " + MIN_POINTS + " points at distinct clocks, got "
                    + n + " point(s) at " + distinct + " clock(s)");
        }
        if (top / bottom < MIN_SPAN) {
            throw new IllegalArgumentException(String.format(
                    "the clocks span only %.0f..%.0f MHz (x%.3f); a clock fit needs a span of at least x%.2f",
                    bottom, top, top / bottom, MIN_SPAN));
        }
        double mx = 0;
        double my = 0;
        for (int i = 0; i < n; i++) {
            mx += 1.0 / clockMhz[i];
            my += latencyUs[i];
        }
        mx /= n;
        my /= n;
        double sxx = 0;
        double sxy = 0;
        double syy = 0;
        for (int i = 0; i < n; i++) {
            double dx = 1.0 / clockMhz[i] - mx;
            double dy = latencyUs[i] - my;
            sxx += dx * dx;
            sxy += dx * dy;
            syy += dy * dy;
        }
        double c = sxy / sxx;
        double b = my - c * mx;
        double sse = 0;
        for (int i = 0; i < n; i++) {
            double r = latencyUs[i] - (c / clockMhz[i] + b);
            sse += r * r;
        }
        double r2 = syy == 0 ? 1.0 : 1.0 - sse / syy;
        double tTop = c / top + b;
        return new ClockFit(c, b, r2, n, top, bottom, (c / top) / tTop, Math.sqrt(sse / n));
    }

    /** The fitted latency (us) at clock f (MHz). */
    public double predictUs(double clockMhz) {
        return cCycles / clockMhz + bUs;
    }
}
