// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

/**
 * The status codes every Marrow entry point returns (enum marrow_status in
 * marrow_abi.h). Java knows their names only; the numbers come from the
 * library ("const:MARROW_&lt;name&gt;"), so C stays their one definition.
 */
public enum Status {
    OK, EPERM, ENOENT, EIO, ENOMEM, EBUSY, ENODEV, EINVAL, ENOSPC, ERANGE, ENOSYS, EPROTO, ETIMEDOUT, ECONNRESET;

    /** The library whose constants define the values: every library exports the status table; the software
     *  NIC's is always built. */
    public static final String COMPONENT = "emu";

    /** The C name of this value (MARROW_...). */
    public String cName() {
        return "MARROW_" + name();
    }

    /** The C value, as the library exports it (through {@link NativeAccess}: the api depends on no FFI class). */
    public int code() {
        return NativeAccess.get().intConstant(COMPONENT, cName());
    }

    /** The status whose C value is {@code code}, or null for a value C does not define. */
    public static Status of(int code) {
        for (Status s : values()) {
            if (s.code() == code) {
                return s;
            }
        }
        return null;
    }
}
