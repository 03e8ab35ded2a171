// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.List;

/** All ranks of one cluster launch (one sample of one size). */
public record Launch(int tileBytes, List<Sample> ranks) {
    public Sample rank(int r) {
        return ranks.get(r);
    }

    /** A launch counts only if every rank passed placement, checksums and stamp order. */
    public boolean accepted() {
        for (Sample s : ranks) {
            if (!s.ok()) {
                return false;
            }
        }
        // Double-check placement on the Java side too: one CTA per SM.
        return ranks.stream().map(Sample::smidStart).distinct().count() == ranks.size();
    }

    public int flagsUnion() {
        int f = 0;
        for (Sample s : ranks) {
            f |= s.flags();
        }
        return f;
    }

    /** rank to %smid, e.g. "0:2 1:3 2:16". */
    public String placement() {
        StringBuilder sb = new StringBuilder();
        for (Sample s : ranks) {
            sb.append(sb.isEmpty() ? "" : " ").append(s.rank()).append(':').append(s.smidStart());
        }
        return sb.toString();
    }
}
