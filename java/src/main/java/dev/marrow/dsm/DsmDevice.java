// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.List;

/**
 * What the experiments need from a GPU. The real implementation is
 * {@link NativeDsmDevice}; tests substitute a synthetic one with known rates.
 */
public interface DsmDevice {
    DeviceInfo info();

    TimerInfo timer(int windowUs);

    /** warmup + reps launches of spec at tileBytes per role; returns reps launches (rejected ones included). */
    List<Launch> run(Spec spec, int tileBytes, int reps, int warmup, int runId);

    /** reps launches of the latency chase; hops dependent loads per (src, dst). */
    List<LatSample> latency(int clusterSize, int reps, int hops);

    /** "cuda" for the GPU; anything else marks results as not from hardware. */
    String backend();

    boolean hardware();

    /** Threads per load/store group (recorded with every result). */
    int groupThreads();

    /** Bytes per TMA command. */
    int tmaChunkBytes();

    /** Load kernel variant (marrow_dsm_load_kernel), recorded with every result. */
    default LoadKernel loadKernel() {
        return LoadKernel.INFLIGHT;
    }

    /** Bytes per remote store (4, 8 or 16; marrow_dsm_params.store_width), recorded with every result. */
    default int storeWidth() {
        return KernelConfig.DEFAULT_WIDTH;
    }

    /** Bytes per remote load of the INFLIGHT kernel (4, 8 or 16), recorded with every result. */
    default int loadWidth() {
        return KernelConfig.DEFAULT_WIDTH;
    }

    /**
     * marrow_dsm_load_kernel: INFLIGHT = 0 (default), BATCHED = 1 (the first kernel, kept for comparison),
     * INFLIGHT_BYTES = 2 (the same 208 bytes in flight per thread at every load width).
     */
    enum LoadKernel implements dev.marrow.internal.ffi.CEnum {
        INFLIGHT, BATCHED, INFLIGHT_BYTES;

        @Override
        public String component() {
            return "cuda";
        }

        @Override
        public String cName() {
            return "MARROW_DSM_LOAD_" + name();
        }

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
