// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.internal.ffi.CEnum;

/**
 * The seven ordering variants of Table 4 of "GPU-Initiated Communication: Dissecting Down to the Bone": how the WQE and
 * doorbell-record stores are ordered before the doorbell store. Codes are
 * enum marrow_gda_ordering; gda_post.h documents the PTX each one emits and
 * the C11 ordering the CPU executor maps it to.
 */
public enum Ordering implements CEnum {
    NONE("none", false, "no fence (unsafe control)"),
    GPU_FENCE("gpu-fence", false, "DBR; fence.acq_rel.gpu; DB (DOCA, GDAKI)"),
    GPU_FENCE_DBREC("gpu-fence-dbrec", false, "fence.acq_rel.gpu; DBR; fence.acq_rel.gpu; DB (fenced doorbell record)"),
    RELEASE_GPU("release-gpu", false, "st.release.gpu DBR; st.release.gpu DB (DeepEP)"),
    THREADFENCE("threadfence", false, "membar.gl; DBR; membar.gl; DB (NVSHMEM __threadfence)"),
    RELEASE_SYS("release-sys", true, "st.release.sys DBR; st.release.sys DB"),
    FENCE_SYS("fence-sys", true, "DBR; membar.sys; DB (__threadfence_system)");

    private final String label;
    private final boolean systemScope;
    private final String description;

    Ordering(String label, boolean systemScope, String description) {
        this.label = label;
        this.systemScope = systemScope;
        this.description = description;
    }

    /** The name results and messages use (the CLI accepts the same word). */
    public String label() {
        return label;
    }

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_GDA_ORD_" + name();
    }

    /**
     * True for the variants that order for observers outside the GPU. With
     * host-resident queues (software NIC, verbs host queues) only these are
     * formally correct; the others are measured as the paper does.
     */
    public boolean systemScope() {
        return systemScope;
    }

    public String description() {
        return description;
    }

    @Override
    public String toString() {
        return label;
    }
}
