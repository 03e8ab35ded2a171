// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

/**
 * What every point of one kernel-cost run shares: launch shape, work per
 * thread of each caller, launches, the device wait bound, the GPU, and the
 * proxy's shape (four workers and 32 rings by default).
 *
 * @param computeWork FMAs per thread of the compute caller
 * @param streamWork  streamed floats per thread of the streaming caller
 * @param segments    MARROW_KCOST_SEGMENTS (from the library)
 */
public record KcostSettings(int blocks, int threads, long computeWork, long streamWork, int launches, int warmup,
                            long timeoutNs, int cudaDevice, int proxyWorkers, int proxyRings, int segments,
                            int engineCpu) {
    public KcostSettings {
        if (blocks < 1 || threads < 32 || threads > 1024 || threads % 32 != 0) {
            throw new IllegalArgumentException("--blocks must be >= 1 and --threads 32..1024, a multiple of 32");
        }
        if (launches < 1 || warmup < 0 || timeoutNs <= 0 || computeWork < 1 || streamWork < 1) {
            throw new IllegalArgumentException("--launches must be >= 1, --warmup >= 0, --timeout-ms > 0, work > 0");
        }
    }

    public long workFor(Caller c) {
        return c == Caller.COMPUTE ? computeWork : streamWork;
    }
}
