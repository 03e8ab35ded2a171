// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.Stats;

import java.util.ArrayList;
import java.util.List;

/**
 * Median cycles per hop for every (src, dst) of one cluster size, and the
 * additive model lat(i, j) = d_i + d_j fitted over the remote pairs.
 */
public record LatencyMatrix(int n, double[][] cyclesPerHop, int[] smid, int accepted, int rejected) {

    public static LatencyMatrix of(int n, List<LatSample> samples, int hops) {
        List<List<Double>> cells = new ArrayList<>();
        for (int k = 0; k < n * n; k++) {
            cells.add(new ArrayList<>());
        }
        int[] smid = new int[n];
        int ok = 0;
        int bad = 0;
        for (LatSample s : samples) {
            if (!s.ok()) {
                bad++;
                continue;
            }
            ok++;
            cells.get(s.src() * n + s.dst()).add((double) s.cycles() / hops);
            smid[s.src()] = s.smidSrc();
        }
        double[][] m = new double[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                List<Double> c = cells.get(i * n + j);
                m[i][j] = c.isEmpty() ? Double.NaN : Stats.median(c.stream().mapToDouble(Double::doubleValue).toArray());
            }
        }
        return new LatencyMatrix(n, m, smid, ok, bad);
    }

    /** Median of the diagonal (a rank reading itself through the cluster window). */
    public double self() {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = cyclesPerHop[i][i];
        }
        return Stats.median(d);
    }

    public double[] remote() {
        double[] r = new double[n * (n - 1)];
        int k = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (i != j) {
                    r[k++] = cyclesPerHop[i][j];
                }
            }
        }
        return r;
    }

    /** Largest |lat(i,j) - lat(j,i)|. */
    public double maxAsymmetry() {
        double m = 0;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                m = Math.max(m, Math.abs(cyclesPerHop[i][j] - cyclesPerHop[j][i]));
            }
        }
        return m;
    }

    /**
     * Least squares of lat(i, j) = d_i + d_j over i != j (n >= 3). The
     * normal equations have a closed form: with R_i = sum_j (L_ij + L_ji) and
     * S = sum d, (2n - 4) d_i + 2 S = R_i and S = sum R / (4n - 4).
     */
    public double[] additiveTerms() {
        if (n < 3) {
            throw new IllegalArgumentException("the additive model needs at least 3 ranks");
        }
        double[] rsum = new double[n];
        double total = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (i != j) {
                    rsum[i] += cyclesPerHop[i][j] + cyclesPerHop[j][i];
                }
            }
            total += rsum[i];
        }
        double s = total / (4.0 * n - 4.0);
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = (rsum[i] - 2 * s) / (2.0 * n - 4.0);
        }
        return d;
    }

    public double additiveRmse() {
        double[] d = additiveTerms();
        double sse = 0;
        int k = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (i != j) {
                    double e = cyclesPerHop[i][j] - d[i] - d[j];
                    sse += e * e;
                    k++;
                }
            }
        }
        return Math.sqrt(sse / k);
    }

    /** Ranks whose SM's TPC partner (smid ^ 1) is also in the cluster. */
    public int ranksWithTpcPartner() {
        int c = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (i != j && smid[j] == (smid[i] ^ 1)) {
                    c++;
                    break;
                }
            }
        }
        return c;
    }
}
