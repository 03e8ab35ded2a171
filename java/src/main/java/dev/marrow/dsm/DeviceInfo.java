// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

/** struct marrow_dsm_device_info; maxActiveClusters is for cluster sizes 2, 4, 8, 16. */
public record DeviceInfo(int ordinal, String name, int ccMajor, int ccMinor, int smCount, int maxSmemOptin,
                         int smemPerCta, int clockRateKhz, int driverVersion, int runtimeVersion,
                         int[] maxActiveClusters) {
    public static final int[] CLUSTER_SIZES = {2, 4, 8, 16};
}
