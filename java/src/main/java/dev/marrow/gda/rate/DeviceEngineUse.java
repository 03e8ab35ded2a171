// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

/**
 * How a --nic softnic-device run used the GPU (struct marrow_gda_rate_devnic):
 * the SMs asked for the engine kernel, the distinct SMs its blocks reported,
 * its occupancy, the GPU's SM count, whether the rate kernel's blocks had
 * to share SMs with the engine (blocks + nic SMs above the GPU's SMs), and
 * the engine's layout and engine threads per SM as run
 * (docs/design/device-engine.md §2.4).
 */
public record DeviceEngineUse(int nicSms, int distinctSms, int maxBlocksPerSm, int deviceSms, boolean sharedSms,
                              String layout, int threadsPerSm) {
}
