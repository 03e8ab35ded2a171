// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api;

/** Root of every exception Marrow throws; unchecked, like Jackson 3 and FFM. */
public class MarrowException extends RuntimeException {
    public MarrowException(String message) {
        super(message);
    }

    public MarrowException(String message, Throwable cause) {
        super(message, cause);
    }
}
