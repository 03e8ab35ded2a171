// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

/**
 * A native entry point returned a non-zero status. Carries the status code,
 * its symbolic name, the function and the C side's thread-local message.
 */
public class NativeException extends MarrowException {
    private final int status;
    private final String function;
    private final String detail;

    public NativeException(int status, String statusName, String function, String detail) {
        super(function + " failed: " + statusName + " (" + status + ")"
                + (detail == null || detail.isEmpty() ? "" : ": " + detail));
        this.status = status;
        this.function = function;
        this.detail = detail == null ? "" : detail;
    }

    private NativeException(NativeException e, String more) {
        super(e.getMessage() + more, e);
        this.status = e.status;
        this.function = e.function;
        this.detail = e.detail + more;
    }

    /**
     * The same failure with more text at the end of the message (e.g. the
     * software NIC's engine view after a watchdog dump, docs/design/watchdog.md).
     */
    public NativeException withMore(String more) {
        return more == null || more.isEmpty() ? this : new NativeException(this, more);
    }

    /** Negative MARROW_E* status (errno-style), as the library returned it. */
    public int status() {
        return status;
    }

    /** True when the library returned {@code s}. */
    public boolean is(Status s) {
        return status == s.code();
    }

    /**
     * The one translation of "no such device" (MARROW_ENODEV): the backend
     * is unavailable on this machine, with {@code message} saying why; any
     * other status stays this exception.
     */
    public MarrowException unavailableIfNoDevice(String message) {
        return is(Status.ENODEV) ? new BackendUnavailableException(message, this) : this;
    }

    /**
     * The one translation of a native argument check's refusal (MARROW_EINVAL,
     * MARROW_ERANGE from a *_check entry point): an IllegalArgumentException
     * (a usage error, exit 2) whose message is the C side's text; any other
     * status stays this exception. The C check is the only check of those
     * limits (docs/design/architecture.md §3).
     */
    public RuntimeException usageIfInvalid() {
        return is(Status.EINVAL) || is(Status.ERANGE)
                ? new IllegalArgumentException(detail.isEmpty() ? getMessage() : detail, this) : this;
    }

    public String function() {
        return function;
    }

    /** True for a bounded wait that expired (MARROW_ETIMEDOUT). */
    public boolean isTimeout() {
        return is(Status.ETIMEDOUT);
    }
}
