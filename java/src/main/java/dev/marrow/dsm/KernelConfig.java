// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.List;

/**
 * How the traffic kernel moves a tile, apart from the spec: threads per
 * load/store group, bytes per TMA command, the load kernel, and the width in
 * bytes of each remote store and load (marrow_dsm_params.store_width /
 * load_width: 4 = .u32, 8 = .v2.u32, 16 = .v4.u32). Recorded with every fit.
 */
public record KernelConfig(int groupThreads, int tmaChunkBytes, DsmDevice.LoadKernel loadKernel, int storeWidth,
        int loadWidth) {
    /** Widths the kernel implements. */
    public static final List<Integer> WIDTHS = List.of(4, 8, 16);
    /** MARROW_DSM_DEFAULT_ACCESS_WIDTH: the width of every result before the width became a parameter. */
    public static final int DEFAULT_WIDTH = 16;

    public static final KernelConfig DEFAULT = new KernelConfig(480, 16384, DsmDevice.LoadKernel.INFLIGHT,
            DEFAULT_WIDTH, DEFAULT_WIDTH);

    public KernelConfig {
        if (loadKernel == null) {
            throw new IllegalArgumentException("load kernel missing");
        }
        String bad = widthProblem("store width", storeWidth);
        if (bad == null) {
            bad = widthProblem("load width", loadWidth);
        }
        if (bad == null && loadWidth != DEFAULT_WIDTH && loadKernel == DsmDevice.LoadKernel.BATCHED) {
            bad = "load width " + loadWidth + " needs the INFLIGHT load kernel (BATCHED loads 16 B)";
        }
        if (bad != null) {
            throw new IllegalArgumentException(bad);
        }
    }

    /** A config with this width of remote store. */
    public KernelConfig withStoreWidth(int w) {
        return new KernelConfig(groupThreads, tmaChunkBytes, loadKernel, w, loadWidth);
    }

    /** A config with this width of remote load. */
    public KernelConfig withLoadWidth(int w) {
        return new KernelConfig(groupThreads, tmaChunkBytes, loadKernel, storeWidth, w);
    }

    /** null if w is a width the kernel implements, else what is wrong, starting with what. */
    public static String widthProblem(String what, int w) {
        return WIDTHS.contains(w) ? null : what + " " + w + " must be 4, 8 or 16 (bytes per access)";
    }
}
