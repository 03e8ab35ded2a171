// SPDX-License-Identifier: Apache-2.0
package dev.marrow.internal.ffi;

import dev.marrow.api.Backend;
import dev.marrow.api.MarrowException;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Computes each backend's unavailability cause once, by exercising the
 * native code. Probes are registered by the ffi layer so that this class does
 * not depend on any library's handles.
 */
public final class BackendProbe {
    private static final Map<Backend, Throwable> CAUSES = new EnumMap<>(Backend.class);
    private static final Map<Backend, Boolean> DONE = new EnumMap<>(Backend.class);

    private BackendProbe() {
    }

    /** Null when available; otherwise why not. */
    public static synchronized Throwable cause(Backend b) {
        if (!DONE.getOrDefault(b, false)) {
            CAUSES.put(b, compute(b));
            DONE.put(b, true);
        }
        return CAUSES.get(b);
    }

    private static Throwable compute(Backend b) {
        if (Boolean.getBoolean("marrow.backend." + b.displayName() + ".disable")) {
            return new MarrowException("disabled with -Dmarrow.backend." + b.displayName() + ".disable=true");
        }
        Supplier<Throwable> probe = switch (b) {
            case SOFTNIC -> Probes::softnic;
            case VERBS -> Probes::verbs;
            case CUDA -> Probes::cuda;
        };
        try {
            return probe.get();
        } catch (ExceptionInInitializerError e) {
            return e.getCause() != null ? e.getCause() : e;
        } catch (Throwable t) {
            return t;
        }
    }
}
