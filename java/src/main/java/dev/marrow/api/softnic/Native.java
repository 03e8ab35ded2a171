// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.api.MarrowException;

/** Turns what MethodHandle.invokeExact may throw into an unchecked exception. */
final class Native {
    private Native() {
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new MarrowException("native call failed: " + t, t);
    }
}
