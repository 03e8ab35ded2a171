// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

/**
 * Ordinary least squares of y = alpha + beta * x. alpha absorbs the
 * payload-independent cost (fill, drain, completion); 1/beta is the marginal
 * rate. rmseShareOfRise puts the residual scatter in proportion to what the
 * fit explains over the measured range.
 */
public record AffineFit(double alpha, double beta, double rmse, double r2, int n, double xMin, double xMax,
                        double[] residuals) {

    public static AffineFit of(double[] x, double[] y) {
        if (x.length != y.length) {
            throw new IllegalArgumentException("x and y differ in length: " + x.length + " vs " + y.length);
        }
        int n = x.length;
        if (n < 2) {
            throw new IllegalArgumentException("a line needs at least 2 points, got " + n);
        }
        double mx = 0;
        double my = 0;
        double xMin = Double.POSITIVE_INFINITY;
        double xMax = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            mx += x[i];
            my += y[i];
            xMin = Math.min(xMin, x[i]);
            xMax = Math.max(xMax, x[i]);
        }
        mx /= n;
        my /= n;
        double sxx = 0;
        double sxy = 0;
        double syy = 0;
        for (int i = 0; i < n; i++) {
            sxx += (x[i] - mx) * (x[i] - mx);
            sxy += (x[i] - mx) * (y[i] - my);
            syy += (y[i] - my) * (y[i] - my);
        }
        if (sxx == 0) {
            throw new IllegalArgumentException("all x are equal: the slope is undefined");
        }
        double beta = sxy / sxx;
        double alpha = my - beta * mx;
        double[] res = new double[n];
        double sse = 0;
        for (int i = 0; i < n; i++) {
            res[i] = y[i] - (alpha + beta * x[i]);
            sse += res[i] * res[i];
        }
        double rmse = Math.sqrt(sse / n);
        double r2 = syy == 0 ? 1.0 : 1.0 - sse / syy;
        return new AffineFit(alpha, beta, rmse, r2, n, xMin, xMax, res);
    }

    public double predict(double x) {
        return alpha + beta * x;
    }

    /** 1/beta: units of x per unit of y (bytes per cycle, or bytes per ns = GB/s). */
    public double rate() {
        return 1.0 / beta;
    }

    /** RMSE as a fraction of the fitted rise beta * (xMax - xMin). */
    public double rmseShareOfRise() {
        double rise = beta * (xMax - xMin);
        return rise == 0 ? Double.NaN : rmse / Math.abs(rise);
    }
}
