// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

/** A backend was asked for on a machine where it cannot run; the message says why. */
public class BackendUnavailableException extends MarrowException {
    public BackendUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
