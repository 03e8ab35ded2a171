// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

import dev.marrow.internal.ffi.CEnum;

/**
 * The status codes every Marrow entry point returns (enum marrow_status in
 * marrow_abi.h). Java knows their names only; the numbers come from the
 * library ("const:MARROW_&lt;name&gt;"), so C stays their one definition.
 */
public enum Status implements CEnum {
    OK, EPERM, ENOENT, EIO, ENOMEM, EBUSY, ENODEV, EINVAL, ENOSPC, ERANGE, ENOSYS, EPROTO, ETIMEDOUT, ECONNRESET;

    @Override
    public String component() {
        return "emu"; // every library exports the status table; the software NIC's is always built
    }

    @Override
    public String cName() {
        return "MARROW_" + name();
    }

    /** The status whose C value is {@code code}, or null for a value C does not define. */
    public static Status of(int code) {
        return CEnum.byCode(values(), code);
    }
}
