// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.internal.ffi.NativeLib;

/** Memory-region and QP access rights (enum marrow_emu_access, the ibv_access_flags bits); values from libmarrow_emu.so. */
public final class Access {
    private Access() {
    }

    public static final int LOCAL_WRITE = bit("MARROW_ACCESS_LOCAL_WRITE");
    public static final int REMOTE_WRITE = bit("MARROW_ACCESS_REMOTE_WRITE");
    public static final int REMOTE_READ = bit("MARROW_ACCESS_REMOTE_READ");
    public static final int REMOTE_ATOMIC = bit("MARROW_ACCESS_REMOTE_ATOMIC");
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;

    private static int bit(String cName) {
        return NativeLib.shared("emu").intConstant(cName);
    }
}
