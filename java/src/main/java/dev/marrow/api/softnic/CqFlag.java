// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.internal.ffi.CEnum;

/** Completion-queue creation flags (enum marrow_emu_cq_flags); values from libmarrow_emu.so. */
public enum CqFlag implements CEnum {
    /** cc = 1: every CQE goes to slot 0. */
    COLLAPSED,
    /** oi = 1: never check the consumer index. */
    OVERRUN_IGNORE;

    @Override
    public String component() {
        return "emu";
    }

    @Override
    public String cName() {
        return "MARROW_EMU_CQ_" + name();
    }
}
