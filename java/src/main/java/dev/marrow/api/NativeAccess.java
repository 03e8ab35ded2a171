// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

import java.util.ServiceLoader;

/**
 * What the api package needs from the native libraries: whether a backend can run here, and the
 * value of a C constant. Implemented by the internal FFI layer and found with
 * {@link ServiceLoader}, so that the api depends on no internal package (the internal packages
 * use the api's exceptions and status codes: one direction only).
 */
public interface NativeAccess {
    /** Null when the backend is available; otherwise why not. */
    Throwable backendCause(Backend b);

    /** The value the component's library exports for the C constant cName. */
    int intConstant(String component, String cName);

    /** The one implementation on the class path. */
    static NativeAccess get() {
        return Holder.INSTANCE;
    }

    /** Loaded once, on first use. */
    final class Holder {
        private Holder() {
        }

        static final NativeAccess INSTANCE = ServiceLoader.load(NativeAccess.class, NativeAccess.class.getClassLoader())
                .findFirst().orElseThrow(() -> new MarrowException("no dev.marrow.api.NativeAccess implementation "
                        + "on the class path (META-INF/services is missing from this build)"));
    }
}
