// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.api.Backend;
import dev.marrow.api.NativeAccess;

/**
 * The native side of {@link NativeAccess}, found by {@link java.util.ServiceLoader}
 * (META-INF/services): the api package asks through the interface, so it depends on no
 * internal package and the internal packages may depend on it.
 */
public final class NativeAccessImpl implements NativeAccess {
    @Override
    public Throwable backendCause(Backend b) {
        return BackendProbe.cause(b);
    }

    @Override
    public int intConstant(String component, String cName) {
        return NativeLib.shared(component).intConstant(cName);
    }
}
