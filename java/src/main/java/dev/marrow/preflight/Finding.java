// SPDX-License-Identifier: Apache-2.0
package dev.marrow.preflight;

/**
 * One preflight check's answer: what was found and, unless it is OK, the one
 * line that fixes it. docs/design/preflight.md says what each check reads.
 */
public record Finding(String check, Status status, String detail, String fix) {
    public enum Status {
        OK, WARN, FAIL;

        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static Finding ok(String check, String detail) {
        return new Finding(check, Status.OK, detail, "");
    }

    static Finding warn(String check, String detail, String fix) {
        return new Finding(check, Status.WARN, detail, fix);
    }

    static Finding fail(String check, String detail, String fix) {
        return new Finding(check, Status.FAIL, detail, fix);
    }
}
