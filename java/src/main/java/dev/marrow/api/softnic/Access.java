// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

/** Memory-region and QP access rights; bit values of ibv_access_flags. */
public final class Access {
    private Access() {
    }

    public static final int LOCAL_WRITE = 1;
    public static final int REMOTE_WRITE = 2;
    public static final int REMOTE_READ = 4;
    public static final int REMOTE_ATOMIC = 8;
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC;
}
