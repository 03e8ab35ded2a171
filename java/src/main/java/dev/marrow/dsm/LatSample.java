// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

/** struct marrow_dsm_lat_sample: one (src, dst) chase of one launch. */
public record LatSample(int rep, int src, int dst, int smidSrc, int smidDst, int flags, long cycles,
                        long finalIndex, long expectIndex) {
    public boolean ok() {
        return flags == 0 && finalIndex == expectIndex && cycles > 0;
    }
}
