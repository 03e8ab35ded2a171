// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

/** RC queue-pair states, with the verbs numbering. */
public enum QpState {
    RESET(0), INIT(1), RTR(2), RTS(3), ERR(6);

    private final int code;

    QpState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static QpState of(int code) {
        for (QpState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown QP state " + code);
    }
}
