// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

/**
 * How a --nic softnic-device run used the GPU (struct marrow_gda_rate_devnic):
 * the SMs asked for the engine kernel, the distinct SMs its blocks reported,
 * its occupancy, the GPU's SM count, and whether the rate kernel's blocks had
 * to share SMs with the engine (blocks + nic SMs above the GPU's SMs).
 */
public record DeviceEngineUse(int nicSms, int distinctSms, int maxBlocksPerSm, int deviceSms, boolean sharedSms) {
}
