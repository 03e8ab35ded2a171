// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

/**
 * Per-operation samples in ns: enqueue (issue), enqueue start to completion
 * seen (put+completion), enqueue start to PE 1's reply seen (round trip).
 * An array is empty when that phase was not run.
 */
public record LatencySamples(long[] issueNs, long[] putcNs, long[] rttNs) {
}
