// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.internal.ffi.CEnum;

/**
 * How the software NIC's device engine laid out its engine threads, as run (enum
 * marrow_softnic_device_exec; docs/design/device-engine.md §2.4): one GPU thread each, packed
 * into warps, or one warp each (the lane path).
 */
public enum EngineLayout implements CEnum {
    THREAD("thread"), LANE("lane");

    private final String label;

    EngineLayout(String label) {
        this.label = label;
    }

    /** The word results use. */
    public String label() {
        return label;
    }

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_SNDEV_EXEC_" + name();
    }

    /** The label of the layout with C value {@code code}, or "unknown (code)". */
    public static String labelOf(int code) {
        EngineLayout l = CEnum.byCode(values(), code);
        return l == null ? "unknown (" + code + ")" : l.label;
    }

    @Override
    public String toString() {
        return label;
    }
}
