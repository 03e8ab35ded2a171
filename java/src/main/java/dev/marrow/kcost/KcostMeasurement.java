// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

/**
 * What one point's native run reported: the build's resources
 * (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor)
 * and the cudaEvent time of each timed launch.
 */
public record KcostMeasurement(KcostPoint point, int regsPerThread, int localBytes, int blocksPerSm, int smCount,
                               double[] launchMs, long messages, long completions) {
    public double medianMs() {
        return KcostMath.median(launchMs);
    }
}
