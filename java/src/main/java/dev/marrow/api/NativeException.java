// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

/**
 * A native entry point returned a non-zero status. Carries the status code,
 * its symbolic name, the function and the C side's thread-local message.
 */
public class NativeException extends MarrowException {
    private final int status;
    private final String function;

    public NativeException(int status, String statusName, String function, String detail) {
        super(function + " failed: " + statusName + " (" + status + ")"
                + (detail == null || detail.isEmpty() ? "" : ": " + detail));
        this.status = status;
        this.function = function;
    }

    /** Negative MARROW_E* status (errno-style). */
    public int status() {
        return status;
    }

    public String function() {
        return function;
    }

    /** True for a bounded wait that expired (MARROW_ETIMEDOUT). */
    public boolean isTimeout() {
        return status == -110;
    }
}
