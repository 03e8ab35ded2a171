// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

/**
 * The native backends, each with netty's availability trio. Availability is
 * computed once per JVM by loading the library, checking the ABI handshake
 * and exercising the native code (softnic: open and close a device; verbs:
 * list RDMA devices; cuda: count GPUs).
 *
 * <p>{@code -Dmarrow.backend.<name>.disable=true} makes a backend unavailable
 * on purpose.
 */
public enum Backend {
    /** The software NIC (libmarrow_emu.so): always built, runs anywhere. */
    SOFTNIC("emu", "softnic", false),
    /** rdma-core + mlx5dv (libmarrow_verbs.so): needs a ConnectX NIC. */
    VERBS("verbs", "verbs", true),
    /** CUDA kernels (libmarrow_cuda.so): needs an NVIDIA GPU and driver. */
    CUDA("cuda", "cuda", true);

    private final String component;
    private final String displayName;
    private final boolean hardware;

    Backend(String component, String displayName, boolean hardware) {
        this.component = component;
        this.displayName = displayName;
        this.hardware = hardware;
    }

    /** Library component name: libmarrow_{component}.so. */
    public String component() {
        return component;
    }

    public String displayName() {
        return displayName;
    }

    /**
     * Whether results produced by this backend come from real hardware: not verbs on the mlx5
     * model ({@link RdmaCore#model()}).
     */
    public boolean isHardware() {
        return hardware && !(this == VERBS && RdmaCore.model());
    }

    public boolean isAvailable() {
        return NativeAccess.get().backendCause(this) == null;
    }

    /** Throws {@link BackendUnavailableException} carrying the cause when unavailable. */
    public void ensureAvailability() {
        Throwable cause = NativeAccess.get().backendCause(this);
        if (cause != null) {
            throw new BackendUnavailableException(
                    "backend '" + displayName + "' is unavailable: " + cause.getMessage(), cause);
        }
    }

    /** Why the backend is unavailable, or null when it is available. */
    public Throwable unavailabilityCause() {
        return NativeAccess.get().backendCause(this);
    }
}
