// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.internal.ffi.CEnum;

/** RC queue-pair states (enum marrow_qp_state, the verbs numbering); values from libmarrow_emu.so. */
public enum QpState implements CEnum {
    RESET, INIT, RTR, RTS, ERR;

    @Override
    public String component() {
        return "emu";
    }

    @Override
    public String cName() {
        return "MARROW_QPS_" + name();
    }

    public static QpState of(int code) {
        QpState s = CEnum.byCode(values(), code);
        if (s == null) {
            throw new IllegalArgumentException("unknown QP state " + code);
        }
        return s;
    }
}
